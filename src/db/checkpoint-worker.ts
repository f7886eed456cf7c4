/**
 * The worker thread of background-checkpoints.ts: its own connection to the database file, which
 * runs a PASSIVE WAL checkpoint every `intervalMs` until it is told to stop. PASSIVE never waits
 * for a lock and never blocks a writer: it copies what no reader still needs into the database
 * file, then the next write restarts the WAL from its beginning. A checkpoint that fails (an I/O
 * error) ends the worker with that error, and its owner goes back to SQLite's own checkpoints.
 *
 * @module db/checkpoint-worker
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { CheckpointWorkerData, CheckpointWorkerMessage } from './background-checkpoints.js';
import { openConnection } from './sqlite-connection.js';

const { dbPath, intervalMs, synchronous, busyTimeoutMs } = workerData as CheckpointWorkerData;
const port = parentPort!;

// The writer's own settings: the fsync a checkpoint makes of the database file follows this connection's level.
const db = openConnection(dbPath, { synchronous, busyTimeoutMs });
const checkpoint = db.prepare('PRAGMA wal_checkpoint(PASSIVE)');

const timer = setInterval(() => checkpoint.run(), intervalMs);
port.on('message', (message: 'stop') => {
  if (message !== 'stop') return;
  clearInterval(timer);
  db.close();
  port.close();
});
port.postMessage({ type: 'ready' } satisfies CheckpointWorkerMessage);
