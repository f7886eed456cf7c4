/**
 * Wake-ups across the processes sharing a PostgreSQL database. A transaction that commits work for
 * the dispatchers (an event and its deliveries, a replay) or for the decrypt workers (a stored
 * notification) also notifies a channel; every serve process listens and turns it into its own
 * signal (src/signals.ts), so a write on one node wakes the dispatchers and event streams of all of
 * them within milliseconds. Polling stays as the fallback (delivery.pollIntervalMs,
 * eventStream.pollIntervalMs, inbound.pollIntervalMs): a notification lost with a connection is
 * made up for by calling every channel once after the listener reconnects. On SQLite nothing is
 * sent, and the polls find what another process wrote.
 *
 * @module cluster/wakeups
 */
import type { AppContext } from '../context.js';
import { notifyOnCommit, type Database, type Db } from '../db/database.js';
import type { Signals } from '../signals.js';
import type { Worker } from '../worker.js';

/** The signals raised across nodes, each with its channel. */
const CHANNELS = { outbox: 'borderd_outbox', inbound: 'borderd_inbound' } as const satisfies Partial<Record<keyof Signals, string>>;

type Announced = keyof typeof CHANNELS;

/** Inside the write transaction: once it commits, every node's `signal` listeners run. */
export async function announce(db: Db, signal: Announced): Promise<void> {
  await notifyOnCommit(db, CHANNELS[signal]);
}

/** The listener of `borderd serve`: every channel's notifications raise its signal here. */
export function crossNodeWakeups(ctx: AppContext & { db: Database }): Worker {
  let stop: (() => Promise<void>) | undefined;
  return {
    name: 'wakeups',
    async start() {
      const signalOf = new Map<string, Announced>(Object.entries(CHANNELS).map(([signal, channel]) => [channel, signal as Announced]));
      stop = await ctx.db.listen(Object.values(CHANNELS), (channel) => ctx.signals[signalOf.get(channel)!].emit());
    },
    async stop() {
      await stop?.();
    },
  };
}
