/**
 * WAL checkpoints on a worker thread instead of inside a commit.
 *
 * SQLite checkpoints on its own in the commit that takes the WAL past `wal_autocheckpoint` pages
 * (1,000): that commit copies the WAL into the database file and fsyncs it before it returns, on
 * the thread that committed. In `borderd receive` that stalls a delivery at regular intervals while
 * the sender's next one waits (docs/receiver.md, "Speed").
 *
 * @module db/background-checkpoints
 */
import { Worker } from 'node:worker_threads';
import type { Connection, SynchronousLevel } from './sqlite-connection.js';

export interface BackgroundCheckpointOptions {
  dbPath: string;
  synchronous: SynchronousLevel;
  busyTimeoutMs?: number;
  intervalMs?: number;
  /** The compiled worker; tests running TypeScript sources pass the one in dist. */
  workerScript?: URL;
  onFailure?: (err: Error) => void;
}

export interface CheckpointWorkerData {
  dbPath: string;
  synchronous: SynchronousLevel;
  busyTimeoutMs: number;
  intervalMs: number;
}

export type CheckpointWorkerMessage = { type: 'ready' };

export interface BackgroundCheckpoints {
  /** Resolves once the worker runs and the writer's automatic checkpoint is off; false when the worker failed first. */
  readonly ready: Promise<boolean>;
  /** Stops the worker (after its checkpoint in progress) and gives the writer its automatic checkpoint back. */
  close(): Promise<void>;
}

/** SQLite's default wal_autocheckpoint, restored when the worker stops. */
const AUTOCHECKPOINT_PAGES = 1000;

/**
 * A worker thread with its own connection checkpoints every `intervalMs`, and the writer's
 * automatic checkpoint is off once the worker is running. Should the worker fail (it cannot open the
 * file, a checkpoint hits an I/O error), the writer's automatic checkpoint is switched back on, so
 * the WAL never grows without bound, and `onFailure` is told.
 *
 * The daemon does not use this: its main thread already waits for each group commit's fsync, next
 * to which a checkpoint does not show in its event-loop delay or delivery latency, and the thread
 * costs memory.
 */
export function startBackgroundCheckpoints(db: Connection, opts: BackgroundCheckpointOptions): BackgroundCheckpoints {
  const workerData: CheckpointWorkerData = {
    dbPath: opts.dbPath,
    synchronous: opts.synchronous,
    busyTimeoutMs: opts.busyTimeoutMs ?? 5000,
    intervalMs: opts.intervalMs ?? 250,
  };
  const worker = new Worker(opts.workerScript ?? new URL('./checkpoint-worker.js', import.meta.url), {
    workerData,
    // One prepared statement and a timer: the smallest heap V8 allows keeps the thread to a few MB.
    resourceLimits: { maxYoungGenerationSizeMb: 1, maxOldGenerationSizeMb: 16 },
  });
  worker.unref();
  let closing = false;
  let failed = false;
  let settleReady!: (running: boolean) => void;
  const ready = new Promise<boolean>((resolve) => (settleReady = resolve));
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  const autocheckpoint = (pages: number): void => {
    // exec(), not pragma(), which would leave a statement for the collector (open.ts).
    if (db.open) db.exec(`PRAGMA wal_autocheckpoint = ${pages}`);
  };

  worker.on('message', (message: CheckpointWorkerMessage) => {
    if (message.type !== 'ready' || closing) return;
    autocheckpoint(0);
    settleReady(true);
  });
  // An uncaught error in the worker comes as 'error' and then 'exit': one failure.
  const fail = (err: Error): void => {
    if (failed) return;
    failed = true;
    autocheckpoint(AUTOCHECKPOINT_PAGES);
    settleReady(false);
    if (!closing) opts.onFailure?.(err);
  };
  worker.on('error', fail);
  worker.on('exit', (code) => {
    if (!closing) fail(new Error(`the checkpoint worker exited (code ${code})`));
  });

  return {
    ready,
    async close() {
      if (closing) return exited;
      closing = true;
      autocheckpoint(AUTOCHECKPOINT_PAGES);
      settleReady(false);
      worker.postMessage('stop');
      // A checkpoint in progress finishes first; one stuck past this is cut short.
      const timer = setTimeout(() => void worker.terminate(), 5000);
      await exited;
      clearTimeout(timer);
    },
  };
}
