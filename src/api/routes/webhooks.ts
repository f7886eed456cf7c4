/**
 * Endpoints 11 to 17: an organization's webhook settings and its signing key.
 *
 * @module api/routes/webhooks
 */
import { z } from 'zod';
import {
  createWebhook,
  deleteWebhook,
  getPublicKey,
  getWebhookSettings,
  listWebhookSettings,
  rotatePublicKey,
  updateWebhookSettings,
} from '../../services/webhooks.js';
import { toSettings } from '../../store/webhooks.js';
import { idParams } from '../id-params.js';
import type { RouteModule } from '../route.js';
import { adminWebhookRoutes } from './admin-webhooks.js';
import { instant } from '../instant.js';

export const settingsSchema = z.object({
  id: z.string(),
  url: z.string(),
  enabled: z.boolean(),
  eventTypes: z
    .array(z.string())
    .describe(
      'The event types sent to this webhook (exact, or a prefix ending in `*`); empty: every type. Events of other types are not queued for it at all.',
    ),
  createdAt: instant,
  updatedAt: instant,
});

const publicKey = z.object({
  keyId: z.string(),
  publicKey: z.string().describe('SPKI PEM of the RSA public key'),
  algorithm: z.literal('RSA-SHA256'),
  createdAt: instant,
});

// URL rules beyond "a string" and its length (scheme, credentials, private targets) are checked by
// the service, which names body.url in the 400 problem. The length is the configured one, so
// /openapi.json publishes the limit the server applies.
const writeBody = (maxUrlLength: number) =>
  z.strictObject({
    url: z.string().min(1).max(maxUrlLength, `must be at most ${maxUrlLength} characters (webhooks.maxUrlLength)`),
    enabled: z.boolean().optional(),
    eventTypes: z
      .array(z.string().min(1).max(100))
      .max(50)
      .optional()
      .describe(
        'Only events of these types are queued for this webhook (exact names, or a prefix ending in `*`); events of other types are not queued for it at all, not even as skipped. Absent or empty: every type. On PATCH, absent keeps the current filter.',
      ),
  });

const BASE = '/v1/notifications/webhooks/settings';

export const webhookRoutes: RouteModule = (api, deps) => {
  const { ctx } = deps;
  adminWebhookRoutes(api, deps);
  const settingsBody = writeBody(ctx.config.webhooks.maxUrlLength);
  // The public-key routes come first so that "public-key" is never taken for a webhook id.
  api.route({
    method: 'get',
    path: `${BASE}/public-key`,
    summary: "The organization's current public key for x-signature",
    tags: ['webhooks'],
    auth: 'bearer',
    responses: { 200: { description: 'the current key', schema: publicKey }, 404: { description: 'no key yet: register a webhook first' } },
    handler: async ({ ctx, auth }) => ({ body: await getPublicKey(ctx, auth.orgId) }),
  });
  api.route({
    method: 'post',
    path: `${BASE}/public-key`,
    summary: "Regenerate the organization's key pair",
    description: 'Signatures made after this call verify only with the returned key.',
    tags: ['webhooks'],
    auth: 'bearer',
    responses: { 201: { description: 'the new key', schema: publicKey } },
    handler: async ({ ctx, auth, commit }) => ({ status: 201, body: await rotatePublicKey(ctx, auth.orgId, commit) }),
  });
  api.route({
    method: 'post',
    path: BASE,
    summary: 'Register a webhook URL',
    description: "The organization's signing key pair is generated with its first webhook.",
    tags: ['webhooks'],
    auth: 'bearer',
    body: settingsBody,
    responses: {
      201: { description: 'registered', schema: settingsSchema },
      400: { description: 'url refused (names body.url)' },
      409: { description: 'the organization has webhooks.maxPerOrganization webhooks already (webhook_limit_reached)' },
    },
    handler: async ({ ctx, auth, body, commit }) => ({ status: 201, body: toSettings(await createWebhook(ctx, auth.orgId, body, commit)) }),
  });
  api.route({
    method: 'get',
    path: BASE,
    summary: 'All webhooks of the organization',
    tags: ['webhooks'],
    auth: 'bearer',
    responses: { 200: { description: 'the list', schema: z.array(settingsSchema) } },
    handler: async ({ ctx, auth }) => ({ body: (await listWebhookSettings(ctx, auth.orgId)).map(toSettings) }),
  });
  api.route({
    method: 'get',
    path: `${BASE}/{id}`,
    summary: 'One webhook',
    tags: ['webhooks'],
    auth: 'bearer',
    params: idParams,
    responses: {
      200: { description: 'the webhook', schema: settingsSchema },
      404: { description: "unknown id or another organization's" },
    },
    handler: async ({ ctx, auth, params }) => ({ body: toSettings(await getWebhookSettings(ctx, auth.orgId, params.id)) }),
  });
  api.route({
    method: 'patch',
    path: `${BASE}/{id}`,
    summary: 'Update a webhook (url required; enabled defaults to true, which re-enables a disabled one)',
    tags: ['webhooks'],
    auth: 'bearer',
    params: idParams,
    body: settingsBody,
    responses: {
      200: { description: 'updated', schema: settingsSchema },
      400: { description: 'url refused (names body.url)' },
      404: { description: "unknown id or another organization's" },
    },
    groupCommit: true,
    handler: async ({ ctx, auth, params, body }) => ({ body: toSettings(await updateWebhookSettings(ctx, auth.orgId, params.id, body)) }),
  });
  api.route({
    method: 'delete',
    path: `${BASE}/{id}`,
    summary: 'Delete a webhook; its pending deliveries are cancelled (kept, not sent)',
    tags: ['webhooks'],
    auth: 'bearer',
    params: idParams,
    responses: { 204: { description: 'deleted' }, 404: { description: "unknown id or another organization's" } },
    groupCommit: true,
    handler: async ({ ctx, auth, params }) => {
      await deleteWebhook(ctx, auth.orgId, params.id);
      return { status: 204 };
    },
  });
};
