import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { procStatFields } from './machine-cpu.js';

/** The package root: the nearest directory up with a package.json (this file runs from dist/bench/, tests import it from bench/). */
export const ROOT = ((): string => {
  for (let dir = new URL('./', import.meta.url); ; dir = new URL('../', dir)) {
    if (existsSync(new URL('package.json', dir))) return fileURLToPath(dir);
    if (dir.pathname === '/') throw new Error('no package.json above bench/');
  }
})();
export const BIN = join(ROOT, 'bin', 'borderd.js');

export const BENCH_ADMIN_TOKEN = 'bench-admin-token-0123456789abcdef0123456789abcdef';

/** Extra node flags for every daemon the benchmarks start (`--cpu-prof DIR` sets them). */
export const daemonNodeArgs: string[] = [];

/** The environment variables and node flags a start command sets before `bin/borderd.js serve`. */
export interface DaemonRuntime {
  env: Record<string, string>;
  nodeArgs: string[];
}

/**
 * Reads `KEY=value … node --flag … bin/borderd.js serve` (package.json's start script): the
 * daemon's runtime settings are written once, there, and the benchmarks run the daemon with them.
 */
export function parseStartScript(script: string): DaemonRuntime {
  const words = script.trim().split(/\s+/);
  const env: Record<string, string> = {};
  let i = 0;
  for (; i < words.length && /^[A-Z_][A-Z0-9_]*=/.test(words[i]!); i++) {
    const w = words[i]!;
    env[w.slice(0, w.indexOf('='))] = w.slice(w.indexOf('=') + 1);
  }
  if (words[i] !== 'node') throw new Error(`start script does not run node: ${script}`);
  const nodeArgs: string[] = [];
  for (i++; i < words.length && words[i]!.startsWith('--'); i++) nodeArgs.push(words[i]!);
  if (words[i] !== 'bin/borderd.js' || words[i + 1] !== 'serve')
    throw new Error(`start script does not run bin/borderd.js serve: ${script}`);
  return { env, nodeArgs };
}

/** How `npm start` runs the daemon. */
export const START_RUNTIME: DaemonRuntime = parseStartScript(
  (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: { start: string } }).scripts.start,
);

export interface BenchDaemon {
  url: string;
  pid: number;
  dataDir: string;
  dbPath: string;
  /** The PostgreSQL database it runs on; undefined on SQLite (dbPath). */
  databaseUrl?: string;
  /** The CLI options that name its database: `--db FILE` or `--database-url URL`. */
  databaseArgs: string[];
  adminToken: string;
  /** The first-start client, printed once by `borderd serve` on an empty database (not by a second node). */
  credentials: { clientId: string; clientSecret: string };
  /** The head and tail of what it printed (its log at the level the benchmark set). */
  output(): string;
  /** VmRSS now, in bytes. */
  rss(): number;
  /** VmHWM (peak resident set) so far, in bytes. */
  peakRss(): number;
  stop(): Promise<number | null>;
}

export function tempDir(prefix: string): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** Reads a `Vm…: N kB` line of /proc/<pid>/status; 0 where /proc is absent (not Linux). */
export function procStatusBytes(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  try {
    const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

/** CPU seconds a process has used so far: its main thread and all its other threads (thread pool, GC helpers); zeros where /proc is absent. */
export function processCpuSeconds(pid: number): { main: number; other: number } {
  const out = { main: 0, other: 0 };
  let tasks: string[];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return out;
  }
  for (const tid of tasks) {
    try {
      const f = procStatFields(`/proc/${pid}/task/${tid}/stat`);
      const seconds = (Number(f[11]) + Number(f[12])) / 100;
      if (tid === String(pid)) out.main += seconds;
      else out.other += seconds;
    } catch {
      // the thread ended between the listing and the read
    }
  }
  return out;
}

/**
 * Starts the compiled `borderd serve` on 127.0.0.1 and a free port, in a fresh data directory,
 * with the environment and node flags of `npm start`, and waits for its listening line. The data
 * directory is removed on stop.
 */
export async function startDaemon(
  opts: {
    env?: Record<string, string>;
    args?: string[];
    nodeArgs?: string[];
    /** PostgreSQL instead of the SQLite file in the data directory. */
    databaseUrl?: string;
    /** Another node of the same database: its data directory (master key), kept at stop; it prints no credentials. */
    nodeOf?: BenchDaemon;
  } = {},
): Promise<BenchDaemon> {
  const dataDir = opts.nodeOf?.dataDir ?? tempDir('borderd-bench-');
  const dbPath = join(dataDir, 'borderd.db');
  const databaseUrl = opts.nodeOf?.databaseUrl ?? opts.databaseUrl;
  const databaseArgs = databaseUrl !== undefined ? ['--database-url', databaseUrl] : ['--db', dbPath];
  const nodeArgs = [...START_RUNTIME.nodeArgs, ...daemonNodeArgs, ...(opts.nodeArgs ?? [])];
  const proc: ChildProcess = spawn(
    process.execPath,
    [...nodeArgs, BIN, 'serve', '--host', '127.0.0.1', '--port', '0', ...databaseArgs, ...(opts.args ?? [])],
    {
      env: {
        ...process.env,
        ...START_RUNTIME.env,
        BORDERD_LOG_LEVEL: 'error',
        BORDERD_ADMIN_TOKEN: BENCH_ADMIN_TOKEN,
        BORDERD_DATA_DIR: dataDir,
        ...opts.env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
      cwd: dataDir,
    },
  );
  let out = '';
  const keep = (d: Buffer) => {
    // Keep only the head (banner) and a tail for error messages; a long run must not grow memory.
    out = out.length < 8192 ? out + d.toString() : out.slice(0, 4096) + out.slice(-4096) + d.toString();
  };
  proc.stdout!.on('data', keep);
  proc.stderr!.on('data', keep);
  let stopping = false;
  const exited = new Promise<number | null>((resolve) =>
    proc.on('exit', (code, signal) => {
      // A daemon gone in the middle of a measurement would only show as a timeout: say why at once.
      if (!stopping) process.stderr.write(`bench: borderd ${proc.pid} exited on its own (${code ?? signal}):\n${out.slice(-4096)}\n`);
      resolve(code);
    }),
  );
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      // Not left running: the benchmark process would wait for it and never exit.
      proc.kill('SIGKILL');
      reject(new Error(`borderd did not start:\n${out}`));
    }, 30_000);
    // On stderr when the log on stdout is JSON lines (not a terminal), as here.
    const check = () => {
      const m = /borderd listening on (http:\/\/\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    };
    proc.stdout!.on('data', check);
    proc.stderr!.on('data', check);
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`borderd exited early:\n${out}`));
    });
  });
  const clientId = /clientId:\s+(\S+)/.exec(out)?.[1];
  const clientSecret = /clientSecret:\s+(\S+)/.exec(out)?.[1];
  const credentials = opts.nodeOf?.credentials ?? (clientId && clientSecret ? { clientId, clientSecret } : undefined);
  if (!credentials) throw new Error(`borderd printed no first-start credentials:\n${out}`);
  const pid = proc.pid!;
  return {
    url,
    pid,
    dataDir,
    dbPath,
    ...(databaseUrl !== undefined ? { databaseUrl } : {}),
    databaseArgs,
    adminToken: BENCH_ADMIN_TOKEN,
    credentials,
    output: () => out,
    rss: () => procStatusBytes(pid, 'VmRSS'),
    peakRss: () => procStatusBytes(pid, 'VmHWM'),
    stop: async () => {
      stopping = true;
      if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGTERM');
      const code = await exited;
      if (!opts.nodeOf) rmSync(dataDir, { recursive: true, force: true });
      return code;
    },
  };
}

/** Runs `borderd <args> --json` to completion and parses its stdout; throws on a non-zero exit. */
export function cli<T>(args: string[], env: Record<string, string> = {}): Promise<T> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, [BIN, ...args, '--json'], {
      env: { ...process.env, BORDERD_LOG_LEVEL: 'error', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    proc.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    proc.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    proc.on('exit', (code) => {
      if (code !== 0) reject(new Error(`borderd ${args.join(' ')} exited ${code}: ${stderr}${stdout}`));
      else resolve(JSON.parse(stdout) as T);
    });
  });
}

/** A bearer token for the daemon's first-start client. */
export async function bearerToken(d: BenchDaemon): Promise<string> {
  const res = await fetch(`${d.url}/v1/auth/m2m/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(d.credentials),
  });
  if (!res.ok) throw new Error(`token: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { accessToken: string }).accessToken;
}

/** Samples a process's RSS every `everyMs`; returns the samples (bytes) when stopped. */
export function sampleRss(read: () => number, everyMs: number): { stop(): number[] } {
  const samples: number[] = [read()];
  const timer = setInterval(() => samples.push(read()), everyMs);
  timer.unref();
  return {
    stop: () => {
      clearInterval(timer);
      samples.push(read());
      return samples;
    },
  };
}
