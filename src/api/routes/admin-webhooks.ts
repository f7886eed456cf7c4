/**
 * Operator routes for webhooks across organizations: their health, and why and when each was
 * disabled (by the dispatcher, the organization, an operator or the configuration); disable and
 * enable, as `borderd webhooks` does.
 *
 * @module api/routes/admin-webhooks
 */
import { z } from 'zod';
import type { AppContext } from '../../context.js';
import { disableWebhook, enableWebhook, listWebhooksWithHealth } from '../../services/webhooks.js';
import { WEBHOOK_ORDERINGS, type WebhookRecord } from '../../store/webhooks.js';
import { idParams } from '../id-params.js';
import { instant } from '../../domain/instant.js';
import type { RouteModule } from '../route.js';

const operatorView = z.object({
  id: z.string(),
  organizationId: z.string(),
  url: z.string(),
  enabled: z.boolean(),
  disabledReason: z
    .string()
    .nullable()
    .describe('why it was disabled: the last failed attempt, a 410, or who disabled it; null while enabled'),
  disabledAt: instant.nullable().describe('when it was disabled; null while enabled'),
  ordering: z.enum(WEBHOOK_ORDERINGS).describe('the order its deliveries go out in (none, resource, webhook)'),
  createdAt: instant,
  updatedAt: instant,
});
const healthView = operatorView.extend({
  lastSuccessAt: instant.nullable(),
  failuresInARow: z.number(),
  pending: z.number(),
});

const toView = (w: WebhookRecord) => ({
  id: w.id,
  organizationId: w.orgId,
  url: w.url,
  enabled: w.enabled,
  disabledReason: w.disabledReason,
  disabledAt: w.disabledAt,
  ordering: w.ordering,
  createdAt: w.createdAt,
  updatedAt: w.updatedAt,
});

export const adminWebhookRoutes: RouteModule = (api) => {
  api.route({
    method: 'get',
    path: '/admin/v1/webhooks',
    summary: 'List webhooks with their health and why and when each disabled one was disabled',
    tags: ['admin', 'webhooks'],
    auth: 'admin',
    query: z.strictObject({ organizationId: z.string().max(64).optional() }),
    responses: { 200: { description: 'webhooks', schema: z.object({ data: z.array(healthView) }) } },
    handler: async ({ ctx, query }) => {
      const rows = await listWebhooksWithHealth(ctx, query.organizationId);
      return {
        body: {
          data: rows.map((w) => ({ ...toView(w), lastSuccessAt: w.lastSuccessAt, failuresInARow: w.failuresInARow, pending: w.pending })),
        },
      };
    },
  });

  // Disable and enable differ only in what they do to the webhook: one route each, declared alike.
  const switches: [string, string, (ctx: AppContext, id: string) => Promise<WebhookRecord>][] = [
    [
      'disable',
      'Disable a webhook; its pending deliveries are kept as skipped, and an operator alert says who disabled it',
      (ctx, id) => disableWebhook(ctx, id, 'admin API'),
    ],
    [
      'enable',
      'Enable a webhook again (replays are `borderd webhooks enable --replay-since`)',
      async (ctx, id) => (await enableWebhook(ctx, id)).webhook,
    ],
  ];
  for (const [verb, summary, change] of switches)
    api.route({
      method: 'post',
      path: `/admin/v1/webhooks/{id}/${verb}`,
      summary,
      tags: ['admin', 'webhooks'],
      auth: 'admin',
      params: idParams,
      responses: { 200: { description: 'the webhook', schema: operatorView }, 404: { description: 'unknown webhook' } },
      handler: async ({ ctx, params }) => ({ body: toView(await change(ctx, params.id)) }),
    });
};
