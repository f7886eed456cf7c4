/**
 * Operator routes: ica -> organization mappings, and the notification queue with its dead letters.
 *
 * @module api/routes/admin-inbound
 */
import { z } from 'zod';
import { listMappings, mapIca, unmapIca } from '../../inbound/ica-mapping.js';
import { listInbound, retryInbound } from '../../inbound/event-queue.js';
import { INBOUND_STATES } from '../../store/inbound-events.js';
import { integerParam } from '../query-params.js';
import type { RouteModule } from '../route.js';

const icaParams = z.object({ ica: z.string().min(1).max(255) });

const mappingSchema = z.object({
  ica: z.string(),
  organizationId: z.string(),
  source: z.enum(['config', 'database']),
  createdAt: z.string().nullable(),
});

const inboundState = z.enum(INBOUND_STATES).meta({ id: 'InboundState' });

const eventView = z
  .object({
    id: z.string(),
    eventId: z.string(),
    eventType: z.string(),
    eventCreatedDate: z.string(),
    ica: z.string(),
    organizationId: z.string().nullable(),
    state: inboundState,
    attempts: z.number(),
    nextAttemptAt: z.string().nullable(),
    failureCode: z.string().nullable(),
    failureReason: z.string().nullable(),
    kid: z.string().nullable(),
    receivedAt: z.string(),
    decryptedAt: z.string().nullable(),
  })
  .meta({ id: 'InboundNotification' });

const listQuery = z.strictObject({
  state: inboundState.optional(),
  eventType: z.string().max(255).optional(),
  limit: integerParam({ min: 1, max: 100, default: 20 }),
  startingAfter: z.string().max(64).optional(),
});

export const adminInboundRoutes: RouteModule = (api) => {
  api.route({
    method: 'get',
    path: '/admin/v1/inbound/icas',
    summary: 'List ica mappings (config and database)',
    tags: ['admin', 'inbound'],
    auth: 'admin',
    responses: { 200: { description: 'mappings', schema: z.object({ data: z.array(mappingSchema) }) } },
    handler: async ({ ctx }) => ({ body: { data: await listMappings(ctx) } }),
  });

  api.route({
    method: 'put',
    path: '/admin/v1/inbound/icas/{ica}',
    summary: 'Map an ica to an organization; its unmatched notifications are queued for decryption',
    tags: ['admin', 'inbound'],
    auth: 'admin',
    params: icaParams,
    body: z.strictObject({ organizationId: z.string().min(1).max(64) }),
    responses: {
      200: {
        description: 'the mapping in force and how many waiting notifications were queued',
        schema: z.object({ mapping: mappingSchema, requeued: z.number() }),
      },
      404: { description: 'unknown organization' },
    },
    groupCommit: true,
    handler: async ({ ctx, params, body }) => ({ body: await mapIca(ctx, params.ica, body.organizationId) }),
  });

  api.route({
    method: 'delete',
    path: '/admin/v1/inbound/icas/{ica}',
    summary: 'Remove a database ica mapping',
    tags: ['admin', 'inbound'],
    auth: 'admin',
    params: icaParams,
    responses: { 204: { description: 'removed' }, 404: { description: 'no database mapping for this ica' } },
    groupCommit: true,
    handler: async ({ ctx, params }) => {
      await unmapIca(ctx, params.ica);
      return { status: 204 };
    },
  });

  api.route({
    method: 'get',
    path: '/admin/v1/inbound/events',
    summary: 'List received card-network notifications, oldest first',
    tags: ['admin', 'inbound'],
    auth: 'admin',
    query: listQuery,
    responses: { 200: { description: 'a page of notifications', schema: z.object({ data: z.array(eventView), hasMore: z.boolean() }) } },
    handler: async ({ ctx, query }) => {
      const rows = await listInbound(ctx, {
        state: query.state,
        eventType: query.eventType,
        startingAfter: query.startingAfter,
        limit: query.limit + 1,
      });
      return { body: { data: rows.slice(0, query.limit), hasMore: rows.length > query.limit } };
    },
  });

  api.route({
    method: 'post',
    path: '/admin/v1/inbound/events/{eventId}/retry',
    summary: 'Requeue a failed notification for decryption',
    tags: ['admin', 'inbound'],
    auth: 'admin',
    params: z.object({ eventId: z.string().min(1).max(255) }),
    responses: {
      200: { description: 'requeued', schema: z.object({ requeued: z.number() }) },
      404: { description: 'unknown eventId' },
      409: { description: 'already decrypted, or its ica maps to no organization' },
    },
    groupCommit: true,
    handler: async ({ ctx, params }) => ({ body: await retryInbound(ctx, { eventId: params.eventId }) }),
  });
};
