import { eventStreamCloser } from './api/routes/event-stream.js';
import type { AppContext } from './context.js';
import { retentionWorker } from './jobs/retention.js';
import { createDecryptWorker } from './inbound/decrypt-worker.js';
import { dispatcherWorker } from './delivery/dispatcher.js';

/**
 * Background work that lives as long as `borderd serve`: the delivery dispatcher, inbound
 * decryption, scheduled jobs. stop() must finish or hand back in-flight work (release leases)
 * before it resolves, so SIGTERM loses nothing.
 */
export interface Worker {
  name: string;
  start(): void | Promise<void>;
  stop(): Promise<void>;
}

export type WorkerFactory = (ctx: AppContext) => Worker | undefined;

/** Every feature's workers, in start order (stopped in reverse). */
export const workerFactories: WorkerFactory[] = [dispatcherWorker, createDecryptWorker, eventStreamCloser, retentionWorker];
