/**
 * An organization's outbox on its own token: webhook health, deliveries and their attempts, the
 * event log, retry, replay and test events. The same routes are declared twice: under /v1 for the
 * organization's bearer token, and under /admin/v1/organizations/{orgId} for the operator's token
 * (the console's operator view), with one handler each.
 *
 * @module api/routes/webhook-deliveries
 */
import { z } from 'zod';
import { notFound } from '../../domain/errors.js';
import { getOrganization } from '../../store/organizations.js';
import { listOrganizations } from '../../store/organizations.js';
import { DELIVERY_STATES } from '../../store/deliveries.js';
import { toSettings, WEBHOOK_ORDERINGS } from '../../store/webhooks.js';
import { blockedLinesOf, releaseDelivery, type Release } from '../../services/delivery-order.js';
import {
  MAX_REPLAY_EVENTS,
  MAX_REPLAY_IDS,
  deliveryWithAttempts,
  listEvents,
  listWebhookDeliveries,
  replayToWebhook,
  retryDelivery,
  sendTestEvent,
  webhookHealthReport,
  webhooksWithHealth,
} from '../../services/webhook-deliveries.js';
import type { AppContext } from '../../context.js';
import { OutboxBudgets, type ReplayCharge } from '../../services/outbox-budgets.js';
import type { AuthContext } from '../../services/tokens.js';
import { EVENT_TYPES } from '../../verify/events.js';
import { testEventType } from '../../verify/test-events.js';
import { instant } from '../instant.js';
import { integerParam } from '../query-params.js';
import type { AuthMode, ResponseSpec, RouteModule } from '../route.js';
import { settingsSchema } from './webhooks.js';

const period = z.object({
  attempts: z.number().int(),
  succeeded: z.number().int().describe('attempts answered with a 2xx'),
  successRate: z.number().nullable().describe('succeeded / attempts, from 0 to 1; null without attempts'),
  meanLatencyMs: z.number().nullable().describe('mean duration of the attempts; null without attempts'),
});

const health = z.object({
  webhookId: z.string(),
  enabled: z.boolean(),
  disabledReason: z.string().nullable().describe('why borderd disabled it; null when enabled or disabled by its owner'),
  disabledAt: instant.nullable(),
  lastSuccessAt: instant.nullable(),
  failuresInARow: z.number().int(),
  pending: z.number().int(),
  nextAttemptAt: instant.nullable(),
  lastHour: period,
  lastDay: period,
  slow: z.boolean().describe('its last attempt (of the last hour) took delivery.slowAfterMs or longer: it gives way to quicker endpoints'),
  hourly: z.array(period.extend({ hour: instant })).describe('the last 24 hours, one entry per UTC hour that had attempts'),
});

const delivery = z.object({
  id: z.string(),
  eventId: z.string(),
  eventType: z.string(),
  webhookId: z.string(),
  state: z.enum(DELIVERY_STATES),
  attempts: z.number().int(),
  inFlight: z.boolean().describe('a dispatcher holds it: its attempt is being sent'),
  waitingBehind: z
    .string()
    .nullable()
    .describe(
      'on an ordered webhook, the pending delivery at the head of its line (dlv_…), which must succeed or be skipped or cancelled before this one goes; null when nothing is ahead',
    ),
  nextAttemptAt: instant.nullable().describe('when it is next tried; null unless pending'),
  lastStatus: z.number().int().nullable(),
  lastError: z.string().nullable(),
  deliveredAt: instant.nullable(),
  createdAt: instant,
  updatedAt: instant,
});

const blockedLine = z.object({
  webhookId: z.string(),
  ordering: z.enum(WEBHOOK_ORDERINGS),
  resource: z.string().nullable().describe("the events' data.id (on a webhook in strict order, the head's: the whole webhook waits)"),
  headId: z.string().describe('the pending delivery at the head of the line; skip or cancel it to release the rest'),
  eventId: z.string(),
  attempts: z.number().int(),
  lastStatus: z.number().int().nullable(),
  lastError: z.string().nullable(),
  nextAttemptAt: instant,
  waiting: z.number().int().describe('pending deliveries behind the head'),
});

const attempt = z.object({
  attempt: z.number().int(),
  startedAt: instant,
  durationMs: z.number().int(),
  statusCode: z.number().int().nullable(),
  error: z.string().nullable(),
  responseBody: z.string().nullable().describe('the first KiB of the answer'),
  requestHeaders: z
    .record(z.string(), z.string())
    .describe('the headers of the request that went out, as recorded with the attempt ({} when none went out)'),
  requestHeadersSource: z
    .enum(['sent', 'rebuilt'])
    .describe(
      'sent: exactly the headers that went out; rebuilt: an attempt recorded before borderd kept them, its headers made again ' +
        'from its key id and number, without the Standard Webhooks headers and traceparent, which are unknown',
    ),
});

const eventView = z.object({
  id: z.string(),
  type: z.string(),
  createdAt: instant,
  deliveries: z.array(
    z.object({
      id: z.string(),
      webhookId: z.string(),
      state: z.enum(DELIVERY_STATES),
      attempts: z.number().int(),
      lastStatus: z.number().int().nullable(),
    }),
  ),
});

const replayResult = z.object({
  events: z.number().int().describe('events considered'),
  requeued: z.number().int().describe('deliveries queued (rows already pending and types the webhook filters out are not)'),
});

const timeQuery = {
  since: z.string().max(40).optional().describe('created at or after this instant'),
  until: z.string().max(40).optional().describe('created before this instant'),
  limit: integerParam({ min: 1, max: 100, default: 20 }),
  startingAfter: z.string().max(64).optional().describe('the last id of the previous page'),
};

/** The types a list filters by: every event type, and the test event type standing in for each. */
const LISTED_TYPES = z.enum([...EVENT_TYPES, ...EVENT_TYPES.map(testEventType)] as [string, ...string[]]);

const deliveriesQuery = z.strictObject({
  state: z.enum(DELIVERY_STATES).optional(),
  eventType: LISTED_TYPES.optional(),
  ...timeQuery,
});

const eventsQuery = z.strictObject({ type: LISTED_TYPES.optional(), ...timeQuery });

const replayBody = z.strictObject({
  since: z.string().max(40).optional(),
  until: z.string().max(40).optional(),
  eventIds: z.array(z.string().max(64)).min(1).max(MAX_REPLAY_IDS).optional(),
});

const testBody = z.strictObject({
  type: z.enum(EVENT_TYPES),
  data: z
    .record(z.string(), z.unknown())
    .optional()
    .describe(
      "sent as `data.testData` of the event, at most webhooks.testEventMaxDataBytes as JSON; the identity fields (`data.id`, the times) are borderd's own",
    ),
});

const page = <T extends z.ZodType>(item: T) => z.object({ data: z.array(item), hasMore: z.boolean() });

/** Who calls: the organization on its token, or the operator naming the organization in the path. */
interface Scope {
  prefix: string;
  auth: AuthMode;
  tags: string[];
  id: z.ZodType<{ id: string; orgId?: string }>;
  none: z.ZodType<{ orgId?: string }> | undefined;
  org(ctx: AppContext, auth: AuthContext | undefined, params: { orgId?: string } | undefined): Promise<string>;
  /** The replay and test-event budgets the caller is held to; none for the operator. */
  budgets?: OutboxBudgets;
}

const idOnly = z.strictObject({ id: z.string() });
const orgId = z.string().min(1).max(100);

const TENANT: Scope = {
  prefix: '/v1/notifications',
  auth: 'bearer',
  tags: ['webhooks'],
  id: idOnly,
  none: undefined,
  org: async (_ctx, auth) => auth!.orgId,
};

const OPERATOR: Scope = {
  prefix: '/admin/v1/organizations/{orgId}/notifications',
  auth: 'admin',
  tags: ['admin', 'webhooks'],
  id: z.strictObject({ orgId, id: z.string() }),
  none: z.strictObject({ orgId }),
  org: async (ctx, _auth, params) => {
    const id = params!.orgId!;
    if (!(await getOrganization(ctx.db, id))) throw notFound(`organization ${id}`);
    return id;
  },
};

const unknown = (what: string) => ({ description: `unknown ${what}, or another organization's` });

/** The 429 of a budgeted route, declared only where the scope has budgets. */
const budgeted = (s: Scope, description: string): Record<number, ResponseSpec> => (s.budgets ? { 429: { description } } : {});

function declare(api: Parameters<RouteModule>[0], s: Scope): void {
  const whk = `${s.prefix}/webhooks/settings/{id}`;
  api.route({
    method: 'get',
    path: `${s.prefix}/webhooks/health`,
    summary: 'Every webhook with its health',
    tags: s.tags,
    auth: s.auth,
    params: s.none,
    responses: { 200: { description: 'the webhooks', schema: z.object({ data: z.array(z.object({ webhook: settingsSchema, health })) }) } },
    handler: async ({ ctx, auth, params }) => {
      const rows = await webhooksWithHealth(ctx, await s.org(ctx, auth, params));
      return { body: { data: rows.map((r) => ({ webhook: toSettings(r.webhook), health: r.health })) } };
    },
  });
  api.route({
    method: 'get',
    path: `${whk}/health`,
    summary:
      "A webhook's health: success rate and latency over the last hour and day, failures in a row, next attempt, why it was disabled",
    tags: s.tags,
    auth: s.auth,
    params: s.id,
    responses: { 200: { description: 'its health', schema: health }, 404: unknown('webhook') },
    handler: async ({ ctx, auth, params }) => ({ body: await webhookHealthReport(ctx, await s.org(ctx, auth, params), params.id) }),
  });
  api.route({
    method: 'get',
    path: `${whk}/deliveries`,
    summary: "A webhook's deliveries, newest first",
    description: 'Filtered by state, event type and creation time; pages with startingAfter (a delivery of this webhook) and hasMore.',
    tags: s.tags,
    auth: s.auth,
    params: s.id,
    query: deliveriesQuery,
    responses: {
      200: { description: 'a page of deliveries', schema: page(delivery) },
      400: { description: 'a bad filter or a cursor that is no delivery of this webhook (invalid_cursor)' },
      404: unknown('webhook'),
    },
    handler: async ({ ctx, auth, params, query }) => ({
      body: await listWebhookDeliveries(ctx, await s.org(ctx, auth, params), params.id, query),
    }),
  });
  api.route({
    method: 'post',
    path: `${whk}/replay`,
    summary: 'Replay a time range or a list of events to this webhook',
    description: `Idempotent: a delivery already pending is left alone. A range of more than ${MAX_REPLAY_EVENTS} events is refused (replay_too_large) before anything is queued; at most ${MAX_REPLAY_IDS} eventIds. Events of types the webhook filters out are not queued. On the organization's own token, one replay per webhook at a time, and at most webhooks.replayEventsPerHour events queued by replay per hour (per node).`,
    tags: s.tags,
    auth: s.auth,
    params: s.id,
    body: replayBody,
    responses: {
      200: { description: 'how many were queued', schema: replayResult },
      400: { description: 'neither or both of eventIds and since, unknown event ids, a range over the bound' },
      404: unknown('webhook'),
      409: { description: 'the webhook is disabled (webhook_disabled)' },
      ...budgeted(
        s,
        'a replay to this webhook is in progress (replay_in_progress), or the organization queued webhooks.replayEventsPerHour events by replay within the hour (replay_budget_exhausted); retry after Retry-After',
      ),
    },
    handler: async ({ ctx, auth, params, body }) => {
      const org = await s.org(ctx, auth, params);
      const replay = (charge?: ReplayCharge) => replayToWebhook(ctx, org, params.id, body, charge);
      return { body: s.budgets ? await s.budgets.replay(ctx.db, org, params.id, replay) : await replay() };
    },
  });
  api.route({
    method: 'post',
    path: `${whk}/test`,
    summary: 'Send a test event to this webhook and answer with its first attempt',
    description:
      'The event is of type `test.<type>` (a receiver refuses test events by that prefix, inside the signed body); its data is ' +
      "`{ id, createdAt, updatedAt, synthetic: true, testData }`: a new id naming nothing stored, and the caller's data under " +
      '`testData`. It is queued for this webhook alone, whatever its event-type filter, appears in the event log and is kept ' +
      'retention.testEventHours. 200 with the attempt, or 202 with `attempt: null` when the dispatcher has not made it within the send timeout.',
    tags: s.tags,
    auth: s.auth,
    params: s.id,
    body: testBody,
    responses: {
      200: {
        description: 'sent',
        schema: z.object({
          event: z.object({ id: z.string(), type: z.string(), createdAt: instant }),
          delivery,
          attempt: attempt.nullable(),
        }),
      },
      202: { description: 'queued; not attempted yet' },
      404: unknown('webhook'),
      409: { description: 'the webhook is disabled (webhook_disabled)' },
      413: { description: 'data is over webhooks.testEventMaxDataBytes as JSON (test_event_too_large)' },
      ...budgeted(
        s,
        'the organization sent webhooks.testEventsPerMinute test events within the minute (test_event_budget_exhausted); retry after Retry-After',
      ),
    },
    handler: async ({ ctx, auth, params, body }) => {
      const org = await s.org(ctx, auth, params);
      const send = () => sendTestEvent(ctx, org, params.id, body.type, body.data);
      const result = s.budgets ? await s.budgets.testEvent(ctx.db, org, send) : await send();
      return { status: result.attempt ? 200 : 202, body: result };
    },
  });
  api.route({
    method: 'get',
    path: `${s.prefix}/deliveries/{id}`,
    summary: 'One delivery with its attempts (status, duration, error, first KiB of the answer, request headers)',
    tags: s.tags,
    auth: s.auth,
    params: s.id,
    responses: {
      200: { description: 'the delivery', schema: z.object({ delivery, attempts: z.array(attempt) }) },
      404: unknown('delivery'),
    },
    handler: async ({ ctx, auth, params }) => ({ body: await deliveryWithAttempts(ctx, await s.org(ctx, auth, params), params.id) }),
  });
  api.route({
    method: 'post',
    path: `${s.prefix}/deliveries/{id}/retry`,
    summary: 'Retry one delivery now',
    description:
      'A pending delivery becomes due now; a finished one (delivered, failed, skipped, cancelled) starts a new retry cycle, due now.',
    tags: s.tags,
    auth: s.auth,
    params: s.id,
    responses: {
      202: { description: 'queued', schema: delivery },
      404: unknown('delivery'),
      409: { description: 'its attempt is in flight (delivery_in_flight), or its webhook is disabled or deleted' },
    },
    handler: async ({ ctx, auth, params }) => ({ status: 202, body: await retryDelivery(ctx, await s.org(ctx, auth, params), params.id) }),
  });
  api.route({
    method: 'get',
    path: `${whk}/blocked`,
    summary: "A webhook's blocked resources: ordered lines held by a head that has failed",
    description:
      'On a webhook with ordering resource (or webhook), each resource whose oldest pending delivery has been tried without success ' +
      'while later ones wait behind it. Skip or cancel the head to release the rest.',
    tags: s.tags,
    auth: s.auth,
    params: s.id,
    responses: {
      200: { description: 'the blocked lines, oldest head first', schema: z.object({ data: z.array(blockedLine) }) },
      404: unknown('webhook'),
    },
    handler: async ({ ctx, auth, params }) => ({
      body: { data: (await blockedLinesOf(ctx, await s.org(ctx, auth, params), params.id)).map(({ orgId: _org, ...line }) => line) },
    }),
  });
  const releases: [string, Release, string][] = [
    ['skip', 'skipped', 'kept as skipped: a replay sends it again'],
    ['cancel', 'cancelled', 'cancelled: it is not sent'],
  ];
  for (const [verb, state, what] of releases)
    api.route({
      method: 'post',
      path: `${s.prefix}/deliveries/{id}/${verb}`,
      summary: `${verb[0]!.toUpperCase()}${verb.slice(1)} a pending delivery (${what})`,
      description:
        'Takes a pending delivery out of its line unsent. On an ordered webhook this releases the deliveries of its resource ' +
        '(or of the webhook, in strict order) that wait behind it: the next one becomes the head and goes.',
      tags: s.tags,
      auth: s.auth,
      params: s.id,
      responses: {
        200: { description: `${state}`, schema: delivery },
        404: unknown('delivery'),
        409: { description: 'not pending (delivery_not_pending), or its attempt is in flight (delivery_in_flight)' },
      },
      handler: async ({ ctx, auth, params }) => ({ body: await releaseDelivery(ctx, await s.org(ctx, auth, params), params.id, state) }),
    });
  api.route({
    method: 'get',
    path: `${s.prefix}/events`,
    summary: "The organization's events, newest first, with where each went",
    description: 'Filtered by type and creation time; pages with startingAfter (an event of the organization) and hasMore.',
    tags: s.tags,
    auth: s.auth,
    params: s.none,
    query: eventsQuery,
    responses: {
      200: { description: 'a page of events', schema: page(eventView) },
      400: { description: 'a bad filter or a cursor that is no event of the organization (invalid_cursor)' },
    },
    handler: async ({ ctx, auth, params, query }) => ({ body: await listEvents(ctx, await s.org(ctx, auth, params), query) }),
  });
}

export const webhookDeliveryRoutes: RouteModule = (api, { ctx }) => {
  // The organization's own token is held to the budgets; the operator's admin token is not.
  declare(api, { ...TENANT, budgets: new OutboxBudgets(ctx.config.webhooks, ctx.clock) });
  declare(api, OPERATOR);
  api.route({
    method: 'get',
    path: '/admin/v1/organizations',
    summary: 'Every organization (id and name)',
    tags: ['admin'],
    auth: 'admin',
    responses: {
      200: { description: 'the organizations', schema: z.object({ data: z.array(z.object({ id: z.string(), name: z.string() })) }) },
    },
    handler: async ({ ctx }) => ({ body: { data: (await listOrganizations(ctx.db)).map((o) => ({ id: o.id, name: o.name })) } }),
  });
};
