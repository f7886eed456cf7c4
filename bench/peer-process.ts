/**
 * The parent's side of the outbox benchmark's peers (Graphile Worker on PostgreSQL, BullMQ on
 * Redis): one backlog drained by a peer in one or more worker processes, to a verifying receiver of
 * its own, timed like borderd's released backlog (from the first receipt to the last), with a
 * ledger and each process's CPU per delivery. With a warm-up, the same processes first drain a
 * warm-up backlog to the same receiver (its own ledger, its figures those of fresh processes), as
 * borderd's nodes do in the PostgreSQL comparison: a process's first jobs carry its compilation, a
 * cost it pays once. What differs between peers (the queue, its server,
 * how jobs are added) is a PeerQueue; each worker is a compiled bench script that prints `ready`
 * once it takes jobs and, on SIGTERM, stops after the jobs in hand, prints `delivered N` and exits 0
 * (peer-sender.ts).
 *
 * @module bench/peer-process
 */
import { spawn } from 'node:child_process';
import { createPublicKey } from 'node:crypto';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startListening } from './child-server.js';
import { processCpuSeconds, ROOT, tempDir } from './daemon-process.js';
import { ledgerOf, type Ledger } from './ledger.js';
import { receiverStats, waitForReceipts } from './outbox-scenario.js';
import type { PeerPayload } from './peer-sender.js';
import { makeSigningKey, SAMPLE_EVENT_BODY } from './signing-limit.js';

/** Jobs in flight across a peer's processes: the send slots of the one webhook borderd delivers to in the comparisons. */
export const PEER_SLOTS = 16;

/** One backlog drained by the peer's processes. */
export interface PeerDrain {
  deliveriesPerSecond: number;
  ledger: Ledger;
  /** CPU ms per delivery: each worker process, the queue's server (undefined where unseen), the receiver. */
  workersMs: number[];
  databaseMs: number | undefined;
  receiverMs: number;
}

/** The measured backlog's figures, and with a warm-up the first backlog's (`fresh`). */
export interface PeerResult extends PeerDrain {
  processes: number;
  /** Jobs each process says it delivered (a 2xx answer) over every backlog, counted when it stopped. */
  deliveredBy: number[];
  fresh?: PeerDrain;
}

/** One peer: its worker script, what its workers need besides peer-sender.ts's variables, and its queue. */
export interface PeerQueue {
  /** The peer's name in its ledger's phase ("Graphile Worker"). */
  name: string;
  /** The compiled worker, dist/bench/<script>.js. */
  script: string;
  workerEnv: Record<string, string>;
  /** Adds one job per payload, the workers already waiting. */
  addJobs(jobs: PeerPayload[]): Promise<void>;
  /** CPU seconds the queue's server used so far; NaN where this machine cannot see its processes. */
  serverCpuSeconds(): number;
}

export interface WorkerProcess {
  pid: number;
  output(): string;
  /** Stops it after the jobs in hand; resolves to how many jobs it delivered. */
  stop(): Promise<number>;
}

/** Starts the compiled dist/bench/<script>.js and waits for its `ready` line. */
function startWorker(script: string, env: Record<string, string>): Promise<WorkerProcess> {
  const proc = spawn(process.execPath, [join(ROOT, 'dist', 'bench', `${script}.js`)], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...env },
  });
  let out = '';
  proc.stdout.on('data', (d: Buffer) => (out += d.toString()));
  proc.stderr.on('data', (d: Buffer) => (out.length < 16_384 ? (out += d.toString()) : undefined));
  const exited = new Promise<number | null>((resolve) => proc.on('exit', (code) => resolve(code)));
  const worker: WorkerProcess = {
    pid: proc.pid!,
    output: () => out,
    stop: async () => {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGTERM');
      const code = await exited;
      const delivered = /^delivered (\d+)$/m.exec(out);
      if (code !== 0 || !delivered) throw new Error(`${script} ${proc.pid} ended with ${code}: ${out.slice(-2000)}`);
      return Number(delivered[1]);
    },
  };
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${script} did not start: ${out}`)), 30_000);
    proc.stdout.on('data', () => {
      if (/^ready$/m.test(out)) {
        clearTimeout(timer);
        resolve(worker);
      }
    });
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`${script} exited before it was ready: ${out}`));
    });
  });
}

/** CPU seconds of every thread of a process. */
export const cpuOf = (pid: number): number => {
  const c = processCpuSeconds(pid);
  return c.main + c.other;
};

/**
 * The peer in `processes` processes drains `backlog` jobs (ids `evt_<tag>_<i>`) to a verifying
 * receiver of its own; with `warmUp` jobs, the same processes drain a first backlog of that many
 * (ids `evt_<tag>_fresh_<i>`) before it.
 */
export async function drainByPeer(
  queue: PeerQueue,
  processes: number,
  backlog: number,
  tag: string,
  log: (line: string) => void,
  { warmUp = 0 }: { warmUp?: number } = {},
): Promise<PeerResult> {
  const dir = tempDir('borderd-bench-peer-');
  const key = makeSigningKey();
  const keyFile = join(dir, 'signing-key.pem');
  writeFileSync(keyFile, key.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 });
  // Both children by their compiled paths, so the module also runs from its source (the tests import it).
  const receiver = await startListening([join(ROOT, 'dist', 'bench', 'webhook-receiver-server.js')], 'webhook-receiver-server');
  const workers: WorkerProcess[] = [];
  const layout = `${processes} process${processes > 1 ? 'es' : ''}`;
  const sample = JSON.parse(SAMPLE_EVENT_BODY) as Record<string, unknown>;
  /** One backlog added while the workers wait, drained and counted since the receiver's reset. */
  const drain = async (phase: string, ids: string, size: number): Promise<PeerDrain> => {
    await fetch(`${receiver.url}/reset`, { method: 'POST' });
    const createdAt = new Date().toISOString();
    const jobs = Array.from({ length: size }, (_, i) => {
      const id = `evt_${ids}_${i}`;
      return { id, body: JSON.stringify({ ...sample, id, createdAt }) };
    });
    const before = { workers: workers.map((w) => cpuOf(w.pid)), server: queue.serverCpuSeconds(), receiver: cpuOf(receiver.pid) };
    await queue.addJobs(jobs);
    const s = await waitForReceipts(receiver.url, size, 600_000);
    const after = { workers: workers.map((w) => cpuOf(w.pid)), server: queue.serverCpuSeconds(), receiver: cpuOf(receiver.pid) };
    // Counted when the wait ended: duplicates can make up the count while an event is missing.
    const ledger = ledgerOf(`${phase}${queue.name}, ${layout}`, size, await receiverStats(receiver.url));
    const per = (a: number, b: number) => ((b - a) * 1000) / size;
    return {
      deliveriesPerSecond: s.deliveries > 1 && s.lastAt > s.firstAt ? ((s.deliveries - 1) * 1000) / (s.lastAt - s.firstAt) : 0,
      ledger,
      workersMs: before.workers.map((b, i) => per(b, after.workers[i]!)),
      // NaN: a server elsewhere whose processes this machine cannot see.
      databaseMs: Number.isNaN(before.server) ? undefined : per(before.server, after.server),
      receiverMs: per(before.receiver, after.receiver),
    };
  };
  try {
    const publicKey = createPublicKey(key).export({ type: 'spki', format: 'pem' });
    const put = await fetch(`${receiver.url}/public-key`, { method: 'PUT', body: publicKey });
    if (put.status !== 204) throw new Error(`receiver refused the public key: ${put.status}`);
    for (let i = 0; i < processes; i++) {
      // PEER_SLOTS split as borderd's nodes split a webhook's slots: the first ones take the remainder.
      const slots = Math.floor(PEER_SLOTS / processes) + (i < PEER_SLOTS % processes ? 1 : 0);
      workers.push(
        await startWorker(queue.script, {
          ...queue.workerEnv,
          PEER_PRIVATE_KEY_FILE: keyFile,
          PEER_RECEIVER_URL: `${receiver.url}/hook/peer`,
          PEER_CONCURRENCY: String(slots),
        }),
      );
    }
    const fresh = warmUp > 0 ? await drain('backlog, fresh, ', `${tag}_fresh`, warmUp) : undefined;
    const measured = await drain(warmUp > 0 ? 'backlog, warm, ' : 'backlog, ', tag, backlog);
    const deliveredBy: number[] = [];
    for (const w of workers.splice(0)) deliveredBy.push(await w.stop());
    return { processes, ...measured, deliveredBy, ...(fresh ? { fresh } : {}) };
  } catch (err) {
    for (const w of workers) log(`${queue.name} peer: what worker ${w.pid} printed:\n${w.output()}`);
    throw err;
  } finally {
    for (const w of workers) await w.stop().catch(() => undefined);
    await receiver.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
