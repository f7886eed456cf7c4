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
 * Every notification reaches every node, and each wake-up costs a node at least one statement (its
 * dispatcher's due query, its streams' reads) whether or not it finds work: a cost per node and per
 * write, which grows with the nodes. So a channel's notifications are coalesced per node: the first
 * raises the signal at once, and the ones that follow within WAKE_WINDOW_MS raise it once more at
 * the end of that window. A pass or read at that moment finds every write they announced; none is
 * lost, and a stream of writes costs each node at most one wake-up per window, not one per write.
 *
 * A change of a webhook or of a signing key is announced too (webhookChanged): the dispatchers of
 * every node read the rows they claimed before it again before sending them (delivery/dispatch/leases.ts).
 *
 * @module cluster/wakeups
 */
import type { AppContext } from '../context.js';
import { notifyOnCommit, type Database, type Db } from '../db/database.js';
import type { Signals } from '../signals.js';
import type { Worker } from '../worker.js';

/** How long a node gathers a channel's notifications after raising its signal. */
export const WAKE_WINDOW_MS = 10;

/**
 * `raise`, at once for the first call and then at most once per `windowMs`: a call within the
 * window after a raise is answered by one raise at its end, however many calls came. `cancel`
 * drops a raise still to come.
 */
export function coalesced(raise: () => void, windowMs: number): { call(): void; cancel(): void } {
  let timer: NodeJS.Timeout | undefined;
  let pending = false;
  const close = () => {
    timer = undefined;
    if (!pending) return;
    pending = false;
    raise();
    open();
  };
  const open = () => {
    timer = setTimeout(close, windowMs);
    timer.unref();
  };
  return {
    call() {
      if (timer) {
        pending = true;
        return;
      }
      raise();
      open();
    },
    cancel() {
      clearTimeout(timer);
      timer = undefined;
      pending = false;
    },
  };
}

/** The signals raised across nodes, each with its channel. */
const CHANNELS = { outbox: 'borderd_outbox', inbound: 'borderd_inbound', webhookChanged: 'borderd_webhooks' } as const satisfies Partial<
  Record<keyof Signals, string>
>;

type Announced = keyof typeof CHANNELS;

/** Inside the write transaction: once it commits, every node's `signal` listeners run. */
export async function announce(db: Db, signal: Announced): Promise<void> {
  await notifyOnCommit(db, CHANNELS[signal]);
}

/** The listener of `borderd serve`: every channel's notifications raise its signal here. */
export function crossNodeWakeups(ctx: AppContext & { db: Database }): Worker {
  let stop: (() => Promise<void>) | undefined;
  const raisers = new Map<string, ReturnType<typeof coalesced>>(
    Object.entries(CHANNELS).map(([signal, channel]) => [
      channel,
      coalesced(() => ctx.signals[signal as Announced].emit(), WAKE_WINDOW_MS),
    ]),
  );
  return {
    name: 'wakeups',
    async start() {
      stop = await ctx.db.listen(Object.values(CHANNELS), (channel) => raisers.get(channel)?.call());
    },
    async stop() {
      await stop?.();
      for (const raiser of raisers.values()) raiser.cancel();
    },
  };
}
