/**
 * The PostgreSQL peer of the outbox benchmark: Graphile Worker (npm graphile-worker, a dev
 * dependency of the benchmarks alone) drains the same backlog as borderd's PostgreSQL layouts, on
 * the same server, to the same verifying receiver. One job per delivery, each signed RSA-SHA256 and
 * POSTed by graphile-worker-node.ts; PEER_SLOTS jobs in flight in all (borderd's layouts have one
 * webhook of that many send slots), split between its processes as borderd's nodes split the
 * slots. The server keeps its settings (synchronous_commit on). The jobs are added in one statement
 * while the workers wait, then timed like borderd's released backlog, from the first receipt to the
 * last, with a ledger.
 *
 * @module bench/graphile-peer
 */
import { spawn } from 'node:child_process';
import { createPublicKey } from 'node:crypto';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeWorkerUtils } from 'graphile-worker';
import { startListening } from './child-server.js';
import { processCpuSeconds, ROOT, tempDir } from './daemon-process.js';
import { ledgerOf, type Ledger } from './ledger.js';
import { receiverStats, waitForReceipts } from './outbox-scenario.js';
import type { PostgresServer } from './postgres-server.js';
import { makeSigningKey, SAMPLE_EVENT_BODY } from './signing-limit.js';

/** Jobs in flight across the peer's processes: the send slots of the one webhook of outbox-nodes.ts. */
export const PEER_SLOTS = 16;

export interface PeerResult {
  processes: number;
  deliveriesPerSecond: number;
  ledger: Ledger;
  /** Jobs each process says it delivered (a 2xx answer), counted when it stopped. */
  deliveredBy: number[];
  /** CPU ms per delivery: each worker process, the database server (undefined where unseen), the receiver. */
  workersMs: number[];
  databaseMs: number | undefined;
  receiverMs: number;
}

interface WorkerProcess {
  pid: number;
  output(): string;
  /** Stops it after the jobs in hand; resolves to how many jobs it delivered. */
  stop(): Promise<number>;
}

/** Starts one graphile-worker-node.js (compiled) and waits for its `ready` line. */
function startWorker(env: Record<string, string>): Promise<WorkerProcess> {
  const proc = spawn(process.execPath, [join(ROOT, 'dist', 'bench', 'graphile-worker-node.js')], {
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
      if (code !== 0 || !delivered) throw new Error(`graphile worker ${proc.pid} ended with ${code}: ${out.slice(-2000)}`);
      return Number(delivered[1]);
    },
  };
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`graphile worker did not start: ${out}`)), 30_000);
    proc.stdout.on('data', () => {
      if (/^ready$/m.test(out)) {
        clearTimeout(timer);
        resolve(worker);
      }
    });
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`graphile worker exited before it was ready: ${out}`));
    });
  });
}

const cpuOf = (pid: number) => {
  const c = processCpuSeconds(pid);
  return c.main + c.other;
};

/** Graphile Worker in `processes` processes drains `backlog` jobs; a database of its own on `server`. */
export async function graphilePeer(
  server: PostgresServer,
  processes: number,
  backlog: number,
  log: (line: string) => void,
): Promise<PeerResult> {
  const connectionString = await server.createDatabase(`bench_graphile_${processes}`);
  const dir = tempDir('borderd-bench-peer-');
  const key = makeSigningKey();
  const keyFile = join(dir, 'signing-key.pem');
  writeFileSync(keyFile, key.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 });
  // Both children by their compiled paths, so the module also runs from its source (the test imports it).
  const receiver = await startListening([join(ROOT, 'dist', 'bench', 'webhook-receiver-server.js')], 'webhook-receiver-server');
  const utils = await makeWorkerUtils({ connectionString });
  const workers: WorkerProcess[] = [];
  try {
    await utils.migrate();
    const publicKey = createPublicKey(key).export({ type: 'spki', format: 'pem' });
    const put = await fetch(`${receiver.url}/public-key`, { method: 'PUT', body: publicKey });
    if (put.status !== 204) throw new Error(`receiver refused the public key: ${put.status}`);
    for (let i = 0; i < processes; i++) {
      // PEER_SLOTS split as borderd's nodes split a webhook's slots: the first ones take the remainder.
      const slots = Math.floor(PEER_SLOTS / processes) + (i < PEER_SLOTS % processes ? 1 : 0);
      workers.push(
        await startWorker({
          PEER_DATABASE_URL: connectionString,
          PEER_PRIVATE_KEY_FILE: keyFile,
          PEER_RECEIVER_URL: `${receiver.url}/hook/peer`,
          PEER_CONCURRENCY: String(slots),
        }),
      );
    }
    const createdAt = new Date().toISOString();
    const sample = JSON.parse(SAMPLE_EVENT_BODY) as Record<string, unknown>;
    const jobs = Array.from({ length: backlog }, (_, i) => {
      const id = `evt_peer_${processes}_${i}`;
      return { identifier: 'deliver', payload: { id, body: JSON.stringify({ ...sample, id, createdAt }) } };
    });
    const database = () => server.cpuSeconds();
    const before = { workers: workers.map((w) => cpuOf(w.pid)), db: database(), receiver: cpuOf(receiver.pid) };
    await utils.addJobs(jobs);
    const s = await waitForReceipts(receiver.url, backlog, 600_000);
    const after = { workers: workers.map((w) => cpuOf(w.pid)), db: database(), receiver: cpuOf(receiver.pid) };
    // Counted when the wait ended: duplicates can make up the count while an event is missing.
    const ledger = ledgerOf(
      `backlog, Graphile Worker, ${processes} process${processes > 1 ? 'es' : ''}`,
      backlog,
      await receiverStats(receiver.url),
    );
    const per = (a: number, b: number) => ((b - a) * 1000) / backlog;
    const deliveredBy: number[] = [];
    for (const w of workers.splice(0)) deliveredBy.push(await w.stop());
    return {
      processes,
      deliveriesPerSecond: s.deliveries > 1 && s.lastAt > s.firstAt ? ((s.deliveries - 1) * 1000) / (s.lastAt - s.firstAt) : 0,
      ledger,
      deliveredBy,
      workersMs: before.workers.map((b, i) => per(b, after.workers[i]!)),
      // NaN: a server elsewhere whose processes this machine cannot see.
      databaseMs: Number.isNaN(before.db) ? undefined : per(before.db, after.db),
      receiverMs: per(before.receiver, after.receiver),
    };
  } catch (err) {
    for (const w of workers) log(`graphile peer: what worker ${w.pid} printed:\n${w.output()}`);
    throw err;
  } finally {
    for (const w of workers) await w.stop().catch(() => undefined);
    await utils.release();
    await receiver.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
