/**
 * The gauges read at scrape time. None walks a table: the outbox gauges take, per organization, the
 * first entry of its pending range in the (org_id, state, id) index and count that range up to
 * `metrics.backlogCountLimit`; the blocked resources read the failing pending rows (the partial
 * index deliveries_retrying) up to the same limit; the inbound backlog counts the (state, id) index the same way; the
 * webhook counts walk the webhooks table, which webhooks.maxPerOrganization bounds; the WAL size
 * is one stat() of a file; the events counter reads, per organization, the events committed since
 * the last scrape on the (org_id, id) index. docs/observability.md gives the cost.
 *
 * @module metrics/scrape
 */
import { stat } from 'node:fs/promises';
import type { AppContext } from '../context.js';
import { blockedResources, pendingBacklog, type PendingBacklog } from '../store/delivery-views.js';
import { inboundBacklog } from '../store/inbound-events.js';
import { countEventsAfterByType, latestStreamPosition, type StreamPosition } from '../store/events.js';
import { listOrganizationIds } from '../store/organizations.js';
import { countWebhooksByState } from '../store/webhooks.js';
import type { Counter } from 'prom-client';
import type { AtScrape } from './definitions.js';

export interface ScrapeSources {
  ctx: AppContext;
  /** Event streams open in this process now. */
  streams: () => number;
  /** The dispatcher's sends in flight and claimed rows waiting for a slot, per organization holding any; none without one. */
  slots?: () => ReadonlyMap<string, { sending: number; queued: number }>;
}

/**
 * One read shared by the gauges that need it in the same scrape: prom-client collects every metric
 * at once, so the first gauge starts the read and the others wait for the same one, until `fresh`
 * begins the next scrape.
 */
function sharedRead<T>(read: () => Promise<T>): { get: () => Promise<T>; fresh: () => void } {
  let current: Promise<T> | undefined;
  return { get: () => (current ??= read()), fresh: () => (current = undefined) };
}

/**
 * borderd_events_total from the events table: per organization, the events after the newest one
 * counted so far, by type. The cursor is a stream position (src/store/events.ts), which follows
 * commit order across every process, so a cursor per organization misses none and counts none twice,
 * however many processes commit. The cursors start at each organization's newest event when this process
 * starts (an organization made later starts at its first); scrapes that overlap take turns.
 */
function eventCursors(ctx: AppContext): (counter: Counter<string>) => Promise<void> {
  const start = async () => {
    const cursors = new Map<string, StreamPosition | null>();
    for (const orgId of await listOrganizationIds(ctx.db)) cursors.set(orgId, await latestStreamPosition(ctx.db, orgId));
    return cursors;
  };
  let started = start();
  // A failed read is said by the scrape that awaits it; until then it is not an unhandled rejection.
  let turn: Promise<unknown> = started.catch(() => undefined);
  return (counter) => {
    const read = turn.then(async () => {
      // A first read that failed (the database was down at start) is made again by the next scrape,
      // which then counts from there: the counter never stays dark until a restart.
      const cursors = await started.catch(() => (started = start()));
      for (const orgId of await listOrganizationIds(ctx.db)) {
        const { counts, newest } = await countEventsAfterByType(ctx.db, orgId, cursors.get(orgId) ?? null);
        for (const t of counts) counter.inc({ type: t.type }, t.count);
        cursors.set(orgId, newest);
      }
    });
    turn = read.catch(() => undefined);
    return read;
  };
}

/** What sets each scrape-time gauge; `fresh()` before each scrape. */
export function readAtScrape({ ctx, streams, slots = () => new Map() }: ScrapeSources): { atScrape: AtScrape; fresh: () => void } {
  const cap = ctx.config.metrics.backlogCountLimit;
  const shared = sharedRead(async () => {
    const byOrg = new Map<string, PendingBacklog>();
    for (const orgId of await listOrganizationIds(ctx.db)) byOrg.set(orgId, await pendingBacklog(ctx.db, orgId, cap));
    return byOrg;
  });
  const outbox = shared.get;
  const events = eventCursors(ctx);
  const walFile = ctx.db.dialect === 'sqlite' && ctx.config.database.path !== ':memory:' ? `${ctx.config.database.path}-wal` : undefined;
  const atScrape: AtScrape = {
    events,
    async outboxPending(gauge) {
      const byOrg = await outbox();
      gauge.reset();
      for (const [orgId, b] of byOrg) gauge.set({ org_id: orgId }, b.count);
    },
    async outboxOldestAge(gauge) {
      const byOrg = await outbox();
      const now = ctx.clock.now();
      gauge.reset();
      for (const [orgId, b] of byOrg) {
        const made = b.oldestCreatedAt === undefined ? now : Date.parse(b.oldestCreatedAt);
        gauge.set({ org_id: orgId }, Math.max(0, now - made) / 1000);
      }
    },
    async blockedResources(gauge) {
      const byOrg = new Map([...(await outbox()).keys()].map((orgId): [string, number] => [orgId, 0]));
      for (const line of await blockedResources(ctx.db, { limit: cap })) byOrg.set(line.orgId, (byOrg.get(line.orgId) ?? 0) + 1);
      gauge.reset();
      for (const [orgId, n] of byOrg) gauge.set({ org_id: orgId }, n);
    },
    deliverySending(gauge) {
      gauge.reset();
      for (const [orgId, held] of slots()) gauge.set({ org_id: orgId }, held.sending);
    },
    deliveryQueued(gauge) {
      gauge.reset();
      for (const [orgId, held] of slots()) gauge.set({ org_id: orgId }, held.queued);
    },
    async webhooks(gauge) {
      const counts = await countWebhooksByState(ctx.db);
      gauge.set({ state: 'enabled' }, counts.enabled);
      gauge.set({ state: 'disabled' }, counts.disabled);
    },
    async inboundBacklog(gauge) {
      for (const [state, n] of Object.entries(await inboundBacklog(ctx.db, cap))) gauge.set({ state }, n);
    },
    eventStreamClients(gauge) {
      gauge.set(streams());
    },
    async sqliteWalSize(gauge) {
      if (walFile === undefined) return;
      gauge.set(
        await stat(walFile).then(
          (s) => s.size,
          () => 0,
        ),
      );
    },
  };
  return { atScrape, fresh: shared.fresh };
}
