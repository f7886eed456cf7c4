import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach } from 'vitest';
import { tempDir } from './context.js';
import { freshPostgresDatabase, onPostgres } from './postgres.js';

/** Daemons a test started and did not stop (a failed assertion skips its stop): killed after each test. */
const started = new Set<ChildProcess>();
afterEach(() => {
  for (const proc of started) if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL');
  started.clear();
});

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const BIN = join(ROOT, 'bin', 'borderd.js');

export interface RunningBorderd {
  url: string;
  proc: ChildProcess;
  /** The SQLite file (on the postgres test project, the path it would have: no file is made there). */
  dbPath: string;
  dataDir: string;
  /** The CLI options that name this daemon's database: `--db FILE`, or `--database-url URL` on PostgreSQL. */
  databaseArgs: string[];
  /** The config overrides that open it (makeContext), for a test acting as another process on it. */
  database: Record<string, unknown>;
  output: () => string;
  credentials?: { clientId: string; clientSecret: string };
  /** Waits until the process has exited; resolves with its code and signal. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stop(signal?: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Starts the real compiled `borderd serve` on 127.0.0.1 and a free port (needs `npm run build`). */
export async function startBorderd(
  opts: { args?: string[]; env?: Record<string, string>; dataDir?: string; databaseUrl?: string } = {},
): Promise<RunningBorderd> {
  const dataDir = opts.dataDir ?? tempDir('borderd-proc-');
  const dbPath = join(dataDir, 'borderd.db');
  const databaseUrl = onPostgres ? (opts.databaseUrl ?? (await freshPostgresDatabase())) : undefined;
  const databaseArgs = databaseUrl !== undefined ? ['--database-url', databaseUrl] : ['--db', dbPath];
  const proc = spawn(process.execPath, [BIN, 'serve', '--host', '127.0.0.1', '--port', '0', ...databaseArgs, ...(opts.args ?? [])], {
    env: { ...process.env, BORDERD_LOG_LEVEL: 'warn', BORDERD_DATA_DIR: dataDir, ...opts.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  started.add(proc);
  let out = '';
  proc.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  proc.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    proc.on('exit', (code, signal) => resolve({ code, signal })),
  );
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`borderd did not start:\n${out}`)), 20_000);
    const check = () => {
      const m = /borderd listening on (http:\/\/[^\s]+)/.exec(out);
      // The listening line comes last (after the first-start banner, when there is one).
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    };
    // On stderr when the log on stdout is JSON lines (not a terminal), as here.
    proc.stdout!.on('data', check);
    proc.stderr!.on('data', check);
    void exited.then(() => reject(new Error(`borderd exited early:\n${out}`)));
  });
  const running: RunningBorderd = {
    url,
    proc,
    dbPath,
    dataDir,
    databaseArgs,
    database: databaseUrl !== undefined ? { 'database.url': databaseUrl } : { 'database.path': dbPath },
    output: () => out,
    exited,
    stop: async (signal = 'SIGTERM') => {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill(signal);
      return exited;
    },
  };
  const id = /clientId:\s+(\S+)/.exec(out)?.[1];
  const secret = /clientSecret:\s+(\S+)/.exec(out)?.[1];
  if (id && secret) running.credentials = { clientId: id, clientSecret: secret };
  return running;
}

/** Runs a CLI command to completion: `borderd <args>`. */
export function runCli(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const proc = spawn(process.execPath, [BIN, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    proc.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    proc.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    proc.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}
