/**
 * An organization's own view of its outbox: a webhook's health, its deliveries and their attempts,
 * the event log with where each event went, a retry now, a replay and a test event. Every read and
 * write is scoped by the organization (another organization's ids are unknown ids), and replays
 * follow the operator's rules (services/outbox.ts), bounded.
 *
 * @module services/webhook-deliveries
 */
import { resourceKeyOf } from '../domain/resource-key.js';
import type { AppContext } from '../context.js';
import { DAY_MS, HOUR_MS, isoAt } from '../domain/clock.js';
import { syntheticIdentity } from '../domain/synthetic-event.js';
import { attemptHeaders } from '../domain/delivery-headers.js';
import { isSlowSend } from '../domain/slow-endpoint.js';
import { BorderdError, badRequest, conflict, notFound } from '../domain/errors.js';
import { newId } from '../domain/ids.js';
import { VERSION } from '../version.js';
import { inOutboxTransaction, wakeDispatcher } from '../delivery/enqueue.js';
import { writeShapedEvent } from '../delivery/events.js';
import { withTransaction } from '../db/database.js';
import { DELIVERY_STATES, insertDelivery, requeueDelivery, type DeliveryState } from '../store/deliveries.js';
import { nextAttemptOf } from '../store/delivery-claims.js';
import { makeDueNow } from '../store/delivery-results.js';
import { deliveriesOfEvents, getDeliveryView, pageWebhookDeliveries, webhookHealth } from '../store/delivery-views.js';
import { attemptsByHour, attemptTotals, lastAttemptDurationMs, listAttempts, type AttemptRecord } from '../store/delivery-attempts.js';
import { signaturesOf } from '../store/event-signatures.js';
import { countEventsSince, eventIdsSince, eventTypesOf, pageEvents } from '../store/events.js';
import { getWebhook, listWebhooks, type WebhookRecord } from '../store/webhooks.js';
import type { EventType } from '../verify/events.js';
import { testEventType, type TestEventData } from '../verify/test-events.js';
import { parseInstant, replayableWebhook, requeueForWebhook } from './outbox.js';
import type { ReplayCharge } from './outbox-budgets.js';
import type {
  AttemptView,
  DeliveryView,
  DeliveryWithAttempts,
  EventView,
  HealthReport,
  Page,
  PeriodStats,
  ReplayResult,
  TestEventResult,
} from './outbox-views.js';

/** The most events one replay may queue: a larger range is refused before anything is queued. */
export const MAX_REPLAY_EVENTS = 10_000;
/** The most event ids one replay may name. */
export const MAX_REPLAY_IDS = 1000;

async function mustGetWebhook(ctx: AppContext, orgId: string, id: string): Promise<WebhookRecord> {
  const webhook = await getWebhook(ctx.db, orgId, id);
  if (!webhook) throw notFound(`webhook ${id}`);
  return webhook;
}

// ---- health ----

const stats = (t: { attempts: number; succeeded: number; totalMs: number }): PeriodStats => ({
  attempts: t.attempts,
  succeeded: t.succeeded,
  successRate: t.attempts ? t.succeeded / t.attempts : null,
  meanLatencyMs: t.attempts ? Math.round(t.totalMs / t.attempts) : null,
});

async function healthOf(ctx: AppContext, webhook: WebhookRecord): Promise<HealthReport> {
  const now = ctx.clock.now();
  const base = await webhookHealth(ctx.db, webhook.id);
  const hours = await attemptsByHour(ctx.db, webhook.id, isoAt(now - DAY_MS));
  const day = hours.reduce(
    (a, h) => ({ attempts: a.attempts + h.attempts, succeeded: a.succeeded + h.succeeded, totalMs: a.totalMs + h.totalMs }),
    {
      attempts: 0,
      succeeded: 0,
      totalMs: 0,
    },
  );
  const next = await nextAttemptOf(ctx.db, webhook.id);
  const lastHour = stats(await attemptTotals(ctx.db, webhook.id, isoAt(now - HOUR_MS)));
  const lastTook = await lastAttemptDurationMs(ctx.db, webhook.id, isoAt(now - HOUR_MS));
  return {
    webhookId: webhook.id,
    enabled: webhook.enabled,
    disabledReason: webhook.enabled ? null : webhook.disabledReason,
    disabledAt: webhook.enabled ? null : webhook.updatedAt,
    lastSuccessAt: base.lastSuccessAt,
    failuresInARow: base.failuresInARow,
    pending: base.pending,
    nextAttemptAt: next === undefined ? null : isoAt(next),
    lastHour,
    lastDay: stats(day),
    slow: lastTook !== undefined && isSlowSend(lastTook, ctx.config.delivery.slowAfterMs),
    hourly: hours.map((h) => ({ hour: `${h.hour}:00:00.000Z`, ...stats(h) })),
  };
}

export async function webhookHealthReport(ctx: AppContext, orgId: string, webhookId: string): Promise<HealthReport> {
  return await healthOf(ctx, await mustGetWebhook(ctx, orgId, webhookId));
}

/** Every webhook of the organization with its health: the console's first page. */
export async function webhooksWithHealth(ctx: AppContext, orgId: string): Promise<{ webhook: WebhookRecord; health: HealthReport }[]> {
  const out = [];
  for (const webhook of await listWebhooks(ctx.db, orgId)) out.push({ webhook, health: await healthOf(ctx, webhook) });
  return out;
}

// ---- deliveries and attempts ----

export interface TimeRange {
  since?: string | undefined;
  until?: string | undefined;
}

function range(r: TimeRange): { since?: string; until?: string } {
  const since = r.since === undefined ? undefined : parseInstant(r.since, 'query.since');
  const until = r.until === undefined ? undefined : parseInstant(r.until, 'query.until');
  if (since !== undefined && until !== undefined && until <= since)
    throw badRequest('invalid_time_range', 'until must be after since', [{ path: 'query.until', message: 'must be after since' }]);
  return { ...(since !== undefined && { since }), ...(until !== undefined && { until }) };
}

const badCursor = () =>
  badRequest('invalid_cursor', 'startingAfter must be the id of an item of this list', [
    { path: 'query.startingAfter', message: 'names no item of this list' },
  ]);

/** Deliveries of a webhook, newest first; `startingAfter` is a delivery of that webhook (any other id is a 400). */
export async function listWebhookDeliveries(
  ctx: AppContext,
  orgId: string,
  webhookId: string,
  q: TimeRange & { state?: DeliveryState | undefined; eventType?: string | undefined; startingAfter?: string | undefined; limit: number },
): Promise<Page<DeliveryView>> {
  await mustGetWebhook(ctx, orgId, webhookId);
  const now = ctx.clock.now();
  if (q.startingAfter !== undefined) {
    const cursor = await getDeliveryView(ctx.db, orgId, q.startingAfter, now);
    if (!cursor || cursor.webhookId !== webhookId) throw badCursor();
  }
  const rows = await pageWebhookDeliveries(ctx.db, webhookId, now, {
    ...range(q),
    state: q.state,
    eventType: q.eventType,
    before: q.startingAfter,
    limit: q.limit + 1,
  });
  return { data: rows.slice(0, q.limit), hasMore: rows.length > q.limit };
}

/**
 * One delivery with its attempts, each with the headers its request went out with
 * (requestHeadersSource `sent`): an attempt stores only the values made at its send, and the others
 * are derived from the event, the attempt's key id and number, and the signature event_signatures
 * holds for that key (domain/delivery-headers.ts attemptHeaders); a row that stored its whole
 * request reads as stored. An attempt recorded before borderd kept its headers shows what can be
 * known (requestHeadersSource `rebuilt`): the derived headers with this borderd's user-agent, a
 * signature no longer stored left out rather than guessed; its Standard Webhooks headers and
 * traceparent were made at its send and are unknown. `orgId` undefined: a delivery of any
 * organization (operators' tools).
 */
export async function deliveryWithAttempts(ctx: AppContext, orgId: string | undefined, id: string): Promise<DeliveryWithAttempts> {
  const delivery = await getDeliveryView(ctx.db, orgId, id, ctx.clock.now());
  if (!delivery) throw notFound(`delivery ${id}`);
  const attempts = await listAttempts(ctx.db, id);
  const signatures = attempts.some((a) => a.keyId !== null)
    ? new Map((await signaturesOf(ctx.db, [delivery.eventId])).map((s) => [s.keyId, s.signature]))
    : new Map<string, string>();
  return { delivery, attempts: attempts.map((a) => attemptView(a, delivery, signatures)) };
}

/**
 * One delivery of any organization with its attempts, for operators (`borderd outbox attempts`):
 * the same view as the organization's own, so both show the headers each attempt went out with.
 */
export const anyDeliveryWithAttempts = (ctx: AppContext, id: string): Promise<DeliveryWithAttempts> =>
  deliveryWithAttempts(ctx, undefined, id);

/** The user-agent of an attempt rebuilt: this borderd's, the only one known. */
const REBUILT_STORED = { 'user-agent': `borderd/${VERSION}` };

/** An attempt as the API shows it: its row less the row's own keys, with the headers it went out with. */
function attemptView(a: AttemptRecord, delivery: DeliveryView, signatures: ReadonlyMap<string, string>): AttemptView {
  const { id: _id, deliveryId: _deliveryId, keyId, requestHeaders, ...recorded } = a;
  const stored = requestHeaders === null ? REBUILT_STORED : (JSON.parse(requestHeaders) as Record<string, string>);
  const headers = attemptHeaders(stored, {
    signature: keyId === null ? undefined : signatures.get(keyId),
    keyId,
    eventId: delivery.eventId,
    eventType: delivery.eventType,
    attempt: a.attempt,
  });
  return { ...recorded, requestHeaders: headers, requestHeadersSource: requestHeaders === null ? 'rebuilt' : 'sent' };
}

/**
 * Retries one delivery now: a pending row becomes due now, a finished one (delivered, failed,
 * skipped, cancelled) starts a fresh retry cycle due now. A row a dispatcher holds (its attempt in
 * flight) is a 409: it is never queued twice; so is a row of a disabled or deleted webhook.
 */
export async function retryDelivery(ctx: AppContext, orgId: string, id: string): Promise<DeliveryView> {
  const result = await withTransaction(ctx, async (ctx) => {
    const now = ctx.clock.now();
    const delivery = await getDeliveryView(ctx.db, orgId, id, now);
    if (!delivery) throw notFound(`delivery ${id}`);
    if (delivery.inFlight) throw conflict('delivery_in_flight', `delivery ${id} is being sent right now; wait for its result, then retry`);
    const webhook = await getWebhook(ctx.db, orgId, delivery.webhookId);
    if (!webhook) throw conflict('webhook_deleted', `the webhook of delivery ${id} was deleted`);
    if (!webhook.enabled) throw conflict('webhook_disabled', `webhook ${webhook.id} is disabled; enable it first (PATCH its settings)`);
    const at = isoAt(now);
    const queued =
      delivery.state === 'pending'
        ? await makeDueNow(ctx.db, id, now, at)
        : await requeueDelivery(ctx.db, {
            id: newId('dlv', now),
            eventId: delivery.eventId,
            webhookId: webhook.id,
            orgId,
            nextAttemptAt: now,
            at,
          });
    if (!queued) throw conflict('delivery_in_flight', `delivery ${id} is being sent right now; wait for its result, then retry`);
    return (await getDeliveryView(ctx.db, orgId, id, now))!;
  });
  wakeDispatcher(ctx);
  return result;
}

// ---- replay ----

/**
 * Replays a time range or a list of events to one webhook, with the CLI's rules (an enabled
 * webhook, its event-type filter, rows already pending left alone). Bounded: a range of more than
 * MAX_REPLAY_EVENTS events is refused before anything is queued. With `charge` (the organization's
 * own token, services/outbox-budgets.ts), the events also count against its hourly replay budget.
 */
export async function replayToWebhook(
  ctx: AppContext,
  orgId: string,
  webhookId: string,
  input: { since?: string | undefined; until?: string | undefined; eventIds?: string[] | undefined },
  charge?: ReplayCharge,
): Promise<ReplayResult> {
  await mustGetWebhook(ctx, orgId, webhookId);
  const webhook = await replayableWebhook(ctx, webhookId);
  // Counted against the organization's budget before anything is queued; what was not queued is given back.
  const requeue = async (events: readonly { id: string; type: string }[]): Promise<ReplayResult> => {
    const settle = charge?.(events.length);
    const result = await requeueForWebhook(ctx, webhook, events);
    settle?.(result.requeued);
    return result;
  };
  if (input.eventIds !== undefined) {
    if (input.since !== undefined || input.until !== undefined)
      throw badRequest('invalid_replay', 'give either eventIds or a time range (since, until), not both', [
        { path: 'body.eventIds', message: 'not with since or until' },
      ]);
    const ids = [...new Set(input.eventIds)];
    const found = await eventTypesOf(ctx.db, orgId, ids);
    const known = new Set(found.map((e) => e.id));
    const unknown = ids.filter((id) => !known.has(id));
    if (unknown.length)
      throw badRequest(
        'unknown_event',
        `${unknown.length} event id(s) name no event of this organization`,
        unknown
          .slice(0, 20)
          .map((id) => ({ path: `body.eventIds[${input.eventIds!.indexOf(id)}]`, message: 'names no event of this organization' })),
      );
    return await requeue(found);
  }
  if (input.since === undefined)
    throw badRequest('invalid_replay', 'give eventIds or since (and optionally until)', [
      { path: 'body.since', message: 'required without eventIds' },
    ]);
  const since = parseInstant(input.since, 'body.since');
  const until = input.until === undefined ? undefined : parseInstant(input.until, 'body.until');
  if (until !== undefined && until <= since)
    throw badRequest('invalid_time_range', 'until must be after since', [{ path: 'body.until', message: 'must be after since' }]);
  const count = await countEventsSince(ctx.db, orgId, since, until);
  if (count > MAX_REPLAY_EVENTS)
    throw badRequest('replay_too_large', `the range holds ${count} events, more than ${MAX_REPLAY_EVENTS} a replay may queue; narrow it`, [
      { path: 'body.since', message: `the range holds more than ${MAX_REPLAY_EVENTS} events` },
    ]);
  return await requeue(await eventIdsSince(ctx.db, orgId, since, until));
}

// ---- events ----

/** The organization's events, newest first; `startingAfter` is an event of the organization (any other id is a 400). */
export async function listEvents(
  ctx: AppContext,
  orgId: string,
  q: TimeRange & { type?: string | undefined; startingAfter?: string | undefined; limit: number },
): Promise<Page<EventView>> {
  if (q.startingAfter !== undefined && (await eventTypesOf(ctx.db, orgId, [q.startingAfter])).length === 0) throw badCursor();
  const rows = await pageEvents(ctx.db, orgId, { ...range(q), type: q.type, before: q.startingAfter, limit: q.limit + 1 });
  const page = rows.slice(0, q.limit);
  const byEvent = new Map<string, EventView['deliveries']>(page.map((e) => [e.id, []]));
  for (const d of await deliveriesOfEvents(ctx.db, orgId, [...byEvent.keys()]))
    byEvent.get(d.eventId)!.push({ id: d.id, webhookId: d.webhookId, state: d.state, attempts: d.attempts, lastStatus: d.lastStatus });
  return { data: page.map((e) => ({ ...e, deliveries: byEvent.get(e.id)! })), hasMore: rows.length > q.limit };
}

// ---- test events ----

/** The data of a test event: identity fields borderd makes up (naming nothing stored), the caller's data under `testData`. */
export function testEventData(type: EventType, nowMs: number, data: Record<string, unknown> | undefined): TestEventData {
  return { ...syntheticIdentity(type, nowMs), testData: data ?? {} };
}

/** A test event's data within webhooks.testEventMaxDataBytes (as JSON), else a 413 before anything is written. */
function assertTestDataSize(ctx: AppContext, data: Record<string, unknown> | undefined): void {
  const max = ctx.config.webhooks.testEventMaxDataBytes;
  const bytes = data === undefined ? 0 : Buffer.byteLength(JSON.stringify(data));
  if (bytes > max)
    throw new BorderdError(
      413,
      'test_event_too_large',
      `a test event's data may hold at most ${max} bytes as JSON (webhooks.testEventMaxDataBytes); this one holds ${bytes}`,
      { errors: [{ path: 'body.data', message: `at most ${max} bytes as JSON` }] },
    );
}

/**
 * Sends a test event to one webhook: an event of the organization of type `test.<type>` (its own
 * family, so a receiver refuses test events by one check on the signed body), whose identity
 * fields are borderd's and whose caller data goes under `data.testData`, so it can name no real
 * resource. It is queued for this webhook alone (its event-type filter does not apply: the webhook
 * is named), then the first attempt's outcome is read once the dispatcher has recorded it. The
 * dispatcher records results in batches and no signal carries them, so the row is read again every
 * `pollMs` until the send's deadline has passed.
 */
export async function sendTestEvent(
  ctx: AppContext,
  orgId: string,
  webhookId: string,
  type: EventType,
  data: Record<string, unknown> | undefined,
  opts: { pollMs?: number; waitMs?: number } = {},
): Promise<TestEventResult> {
  assertTestDataSize(ctx, data);
  const { event, deliveryId } = await inOutboxTransaction(ctx, async (ctx) => {
    const webhook = await mustGetWebhook(ctx, orgId, webhookId);
    if (!webhook.enabled) throw conflict('webhook_disabled', `webhook ${webhookId} is disabled; enable it first (PATCH its settings)`);
    const now = ctx.clock.now();
    const stored = await writeShapedEvent(ctx.db, now, orgId, testEventType(type), (head) => ({
      ...head,
      type: testEventType(type),
      data: testEventData(type, now, data),
    }));
    const deliveryId = newId('dlv', now);
    await insertDelivery(ctx.db, {
      id: deliveryId,
      eventId: stored.event.id,
      webhookId,
      orgId,
      state: 'pending',
      nextAttemptAt: now,
      at: isoAt(now),
      resourceKey: resourceKeyOf(stored.event),
      // Out of an ordered webhook's line: a failing test event never holds up real deliveries.
      inLine: false,
    });
    return { event: { id: stored.event.id, type: stored.event.type, createdAt: stored.event.createdAt }, deliveryId };
  });
  // Inside a transaction of the caller's (a request with an Idempotency-Key keeps its answer in it),
  // no attempt can be made before that transaction commits: the answer is the queued delivery.
  if (ctx.db.inTransaction) return { event, delivery: (await deliveryWithAttempts(ctx, orgId, deliveryId)).delivery, attempt: null };
  const pollMs = opts.pollMs ?? 50;
  const deadline = performance.now() + (opts.waitMs ?? ctx.config.delivery.timeoutMs + 2000);
  for (;;) {
    const found = await deliveryWithAttempts(ctx, orgId, deliveryId);
    if (found.attempts.length > 0 || performance.now() >= deadline)
      return { event, delivery: found.delivery, attempt: found.attempts[0] ?? null };
    await new Promise((r) => setTimeout(r, pollMs));
  }
}

export { DELIVERY_STATES };
