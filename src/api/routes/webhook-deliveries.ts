/**
 * An organization's outbox: webhook health, deliveries and their attempts, the event log, retry,
 * replay and test events. The same routes make two modules: under /v1 for the organization's bearer
 * token, and under /admin/v1/organizations/{orgId} for the operator's token (the console's operator
 * view), with one handler each.
 *
 * @module api/routes/webhook-deliveries
 */
import { z } from 'zod';
import { notFound } from '../../domain/errors.js';
import { getOrganization } from '../../store/organizations.js';
import { toSettings } from '../../store/webhooks.js';
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
import {
  blockedLineSchema,
  deliverySchema,
  deliveryStateSchema,
  deliveryWithAttemptsSchema,
  eventTypeSchema,
  eventViewSchema,
  healthSchema,
  pageSchema,
  replayResultSchema,
  testEventResultSchema,
} from '../../services/outbox-views.js';
import type { AuthContext } from '../../services/tokens.js';
import { EVENT_TYPES } from '../../verify/events.js';
import { testEventType } from '../../verify/test-events.js';
import { integerParam } from '../query-params.js';
import type { AuthMode, ResponseSpec, RouteModule } from '../route.js';
import { settingsSchema } from './webhooks.js';

const timeQuery = {
  since: z.string().max(40).optional().describe('created at or after this instant'),
  until: z.string().max(40).optional().describe('created before this instant'),
  limit: integerParam({ min: 1, max: 100, default: 20 }),
  startingAfter: z.string().max(64).optional().describe('the last id of the previous page'),
};

/** The types a list filters by: every event type, and the test event type standing in for each. */
const LISTED_TYPES = z.enum([...EVENT_TYPES, ...EVENT_TYPES.map(testEventType)] as [string, ...string[]]);

const deliveriesQuery = z.strictObject({
  state: deliveryStateSchema.optional(),
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
  type: eventTypeSchema,
  data: z
    .record(z.string(), z.unknown())
    .optional()
    .describe(
      "sent as `data.testData` of the event, at most webhooks.testEventMaxDataBytes as JSON; the identity fields (`data.id`, the times) are borderd's own",
    ),
});

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

/** How a list that pages says so, where `cursor` is what its startingAfter must name. */
const paging = (filters: string, cursor: string) => `Filtered by ${filters}; pages with startingAfter (${cursor}) and hasMore.`;

/** A paging list's answers: a page of `items`, or a 400 for a bad filter or a cursor that is not `cursor`. */
const pageAnswers = (item: z.ZodType, items: string, cursor: string): Record<number, ResponseSpec> => ({
  200: { description: `a page of ${items}`, schema: pageSchema(item) },
  400: { description: `a bad filter or a cursor that is not ${cursor} (invalid_cursor)` },
});

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
    responses: {
      200: {
        description: 'the webhooks',
        schema: z.object({ data: z.array(z.object({ webhook: settingsSchema, health: healthSchema })) }),
      },
    },
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
    responses: { 200: { description: 'its health', schema: healthSchema }, 404: unknown('webhook') },
    handler: async ({ ctx, auth, params }) => ({ body: await webhookHealthReport(ctx, await s.org(ctx, auth, params), params.id) }),
  });
  api.route({
    method: 'get',
    path: `${whk}/deliveries`,
    summary: "A webhook's deliveries, newest first",
    description: paging('state, event type and creation time', 'a delivery of this webhook'),
    tags: s.tags,
    auth: s.auth,
    params: s.id,
    query: deliveriesQuery,
    responses: { ...pageAnswers(deliverySchema, 'deliveries', 'a delivery of this webhook'), 404: unknown('webhook') },
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
      200: { description: 'how many were queued', schema: replayResultSchema },
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
        schema: testEventResultSchema,
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
      200: { description: 'the delivery', schema: deliveryWithAttemptsSchema },
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
      202: { description: 'queued', schema: deliverySchema },
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
      200: { description: 'the blocked lines, oldest head first', schema: z.object({ data: z.array(blockedLineSchema) }) },
      404: unknown('webhook'),
    },
    handler: async ({ ctx, auth, params }) => ({
      body: { data: await blockedLinesOf(ctx, await s.org(ctx, auth, params), params.id) },
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
        200: { description: `${state}`, schema: deliverySchema },
        404: unknown('delivery'),
        409: { description: 'not pending (delivery_not_pending), or its attempt is in flight (delivery_in_flight)' },
      },
      handler: async ({ ctx, auth, params }) => ({ body: await releaseDelivery(ctx, await s.org(ctx, auth, params), params.id, state) }),
    });
  api.route({
    method: 'get',
    path: `${s.prefix}/events`,
    summary: "The organization's events, newest first, with where each went",
    description: paging('type and creation time', 'an event of the organization'),
    tags: s.tags,
    auth: s.auth,
    params: s.none,
    query: eventsQuery,
    responses: pageAnswers(eventViewSchema, 'events', 'an event of the organization'),
    handler: async ({ ctx, auth, params, query }) => ({ body: await listEvents(ctx, await s.org(ctx, auth, params), query) }),
  });
}

/** The organization's own routes, under /v1/notifications: its token is held to the replay and test-event budgets. */
export const webhookDeliveryRoutes: RouteModule = (api, { ctx }) =>
  declare(api, { ...TENANT, budgets: new OutboxBudgets(ctx.config.webhooks, ctx.clock) });

/** The same routes for the operator, under /admin/v1/organizations/{orgId}/notifications: the admin token has no budget. */
export const operatorDeliveryRoutes: RouteModule = (api) => declare(api, OPERATOR);
