/**
 * /v1/refunds/config: the organization's default refund destination, and how it is set and
 * re-confirmed (as the reference service does).
 *
 * @module api/routes/refunds
 */
import type { RouteModule } from '../route.js';
import {
  orgRefundDestinationSchema,
  readRefundConfig,
  reconfirmRefundConfig,
  refundConfigSchema,
  setRefundConfig,
} from '../../services/refunds.js';

export const refundRoutes: RouteModule = (api) => {
  api.route({
    method: 'get',
    path: '/v1/refunds/config',
    summary: 'Get the default refund destination',
    description: 'null when none is set. isStaleWarning after 30 days, isStaleReject after 90 days since verifiedAt.',
    tags: ['refunds'],
    auth: 'bearer',
    responses: { 200: { description: 'RefundConfig or null', schema: refundConfigSchema.nullable() } },
    handler: async ({ ctx, auth }) => ({ body: await readRefundConfig(ctx, auth.orgId) }),
  });

  api.route({
    method: 'post',
    path: '/v1/refunds/config',
    summary: 'Set the default refund destination',
    description:
      'Replaces the default and sets verifiedAt to now. Plans paused on the replaced default are planned again against the new one.',
    tags: ['refunds'],
    auth: 'bearer',
    body: orgRefundDestinationSchema,
    responses: {
      200: { description: 'the new RefundConfig', schema: refundConfigSchema },
      400: { description: 'invalid destination (field named)' },
    },
    groupCommit: true,
    handler: async ({ ctx, body, auth }) => {
      const { replannedPlans: _plans, ...config } = await setRefundConfig(ctx, auth.orgId, body);
      return { body: config };
    },
  });

  api.route({
    method: 'post',
    path: '/v1/refunds/config/reconfirm',
    summary: 'Re-confirm the default refund destination',
    description:
      'Sets verifiedAt to now; refund plans paused because this default was stale are dispatched (never those of a default it replaced).',
    tags: ['refunds'],
    auth: 'bearer',
    responses: { 200: { description: 'the RefundConfig', schema: refundConfigSchema }, 404: { description: 'no default is set' } },
    groupCommit: true,
    handler: async ({ ctx, auth }) => {
      const { dispatchedPlans: _plans, ...config } = await reconfirmRefundConfig(ctx, auth.orgId);
      return { body: config };
    },
  });
};
