/**
 * The BullMQ peer's Redis: a private `redis-server` (Debian's package puts it on the PATH) on a free
 * loopback port, in a temporary directory, with Redis's usual durable setting: the append-only
 * file on, fsynced once a second (`appendfsync everysec`), no snapshots. It is stopped and its
 * files removed by `stop()`.
 *
 * @module bench/bullmq-redis
 */
import { spawn, spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { cpuOf } from './peer-process.js';
import { freePort } from './postgres-server.js';
import { tempDir } from './daemon-process.js';

/** How the peer's Redis keeps what it acknowledged, said beside every figure it is in. */
export const REDIS_DURABILITY = 'Redis appendonly yes, appendfsync everysec';

export interface RedisServer {
  host: string;
  port: number;
  pid: number;
  /** CPU seconds the server used so far, every thread. */
  cpuSeconds(): number;
  stop(): Promise<void>;
}

/** Why the BullMQ peer cannot run here (no `redis-server` on the PATH), or undefined when it can. */
export function redisMissing(): string | undefined {
  const probe = spawnSync('redis-server', ['--version'], { encoding: 'utf8' });
  if (probe.error) return `redis-server is not on the PATH (${(probe.error as NodeJS.ErrnoException).code ?? probe.error.message})`;
  if (probe.status !== 0) return `redis-server --version exited ${probe.status}: ${(probe.stderr || probe.stdout).trim().slice(0, 200)}`;
  return undefined;
}

/** Starts redis-server and waits until it accepts connections. */
export async function startRedis(): Promise<RedisServer> {
  const dir = tempDir('borderd-bench-redis-');
  const port = await freePort();
  const proc = spawn(
    'redis-server',
    [
      '--bind',
      '127.0.0.1',
      '--port',
      String(port),
      '--dir',
      dir,
      '--appendonly',
      'yes',
      '--appendfsync',
      'everysec',
      '--save',
      '',
      '--daemonize',
      'no',
      '--loglevel',
      'notice',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  const keep = (d: Buffer) => (out.length < 8192 ? (out += d.toString()) : undefined);
  proc.stdout.on('data', keep);
  proc.stderr.on('data', keep);
  const exited = new Promise<void>((resolve) => proc.on('exit', () => resolve()));
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`redis-server did not start: ${out}`)), 20_000);
      proc.stdout.on('data', () => {
        if (out.includes('Ready to accept connections')) {
          clearTimeout(timer);
          resolve();
        }
      });
      proc.on('error', (err) => {
        clearTimeout(timer);
        reject(err);
      });
      void exited.then(() => {
        clearTimeout(timer);
        reject(new Error(`redis-server exited: ${out}`));
      });
    });
  } catch (err) {
    proc.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  return {
    host: '127.0.0.1',
    port,
    pid: proc.pid!,
    cpuSeconds: () => cpuOf(proc.pid!),
    stop: async () => {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGTERM');
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
