/**
 * /v1/notifications/webhooks/settings: an organization's webhook settings and its signing key; each webhook's
 * Standard Webhooks secret (read and rotate).
 *
 * @module api/routes/webhooks
 */
import { z } from 'zod';
import {
  createWebhook,
  deleteWebhook,
  getPublicKey,
  getWebhookSecret,
  getWebhookSettings,
  listWebhookSettings,
  prepareWebhook,
  rotatePublicKey,
  rotateWebhookSecretOf,
  signatureSchemes,
  SIGNATURE_SCHEMES,
  updateWebhookSettings,
} from '../../services/webhooks.js';
import type { AppContext } from '../../context.js';
import { rotationPair } from '../../delivery/signing-keys.js';
import { toSettings, WEBHOOK_ORDERINGS, type WebhookRecord } from '../../store/webhooks.js';
import { idParams } from '../id-params.js';
import type { RouteModule } from '../route.js';
import { instant } from '../../domain/instant.js';

export const settingsSchema = z.object({
  id: z.string(),
  url: z.string(),
  enabled: z.boolean(),
  eventTypes: z
    .array(z.string())
    .describe(
      'The event types sent to this webhook (exact, or a prefix ending in `*`); empty: every type. Events of other types are not queued for it at all.',
    ),
  ordering: z
    .enum(WEBHOOK_ORDERINGS)
    .describe(
      "The order its deliveries go out in: none, any order; resource, each resource's events (data.id) in commit order; webhook, every event in commit order",
    ),
  createdAt: instant,
  updatedAt: instant,
});

/** The settings with how deliveries to the webhook are signed. */
const settings = settingsSchema.extend({
  signatureSchemes: z
    .array(z.enum(SIGNATURE_SCHEMES))
    .describe(
      'How deliveries to this webhook are signed: x-signature (RSA-SHA256, the organization key) always; ' +
        'webhook-signature:v1 (Standard Webhooks, HMAC-SHA256 under the webhook secret) once it has a secret; ' +
        'webhook-signature:v1a (Standard Webhooks, Ed25519 with the organization key in its JWKS) when chosen',
    ),
});

const created = settings.extend({
  secret: z.string().describe('The Standard Webhooks secret (whsec_…), shown in this answer once; GET …/{id}/secret reads it again'),
});

const publicKey = z.object({
  keyId: z.string(),
  publicKey: z.string().describe('SPKI PEM of the RSA public key'),
  algorithm: z.literal('RSA-SHA256'),
  createdAt: instant,
  retiredAt: instant.optional().describe('Only for a replaced key asked for by keyId: when the rotation replaced it'),
});

const secretView = z.object({
  secret: z.string().describe('The current secret, whsec_ + base64 of its key bytes: verify webhook-signature with it'),
  createdAt: instant,
  previousExpiresAt: instant
    .nullable()
    .describe(
      'While a rotation window is open: when the replaced secret stops signing beside this one (its v1 signature is sent too); else null',
    ),
});

const publicKeyQuery = z.strictObject({
  keyId: z
    .string()
    .min(1)
    .max(100)
    .optional()
    .describe('A key by its id (x-signature-key-id): the current one, or one replaced less than webhooks.rotationOverlapSeconds ago'),
});

/** Settings with their signature schemes, in one read for a list. */
async function withSchemes(ctx: AppContext, webhooks: readonly WebhookRecord[]) {
  const schemes = await signatureSchemes(ctx, webhooks);
  return webhooks.map((w) => ({ ...toSettings(w), signatureSchemes: schemes.get(w.id)! }));
}
const oneWithSchemes = async (ctx: AppContext, webhook: WebhookRecord) => (await withSchemes(ctx, [webhook]))[0]!;

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
    signatureSchemes: z
      .array(z.enum(SIGNATURE_SCHEMES))
      .max(SIGNATURE_SCHEMES.length)
      .optional()
      .describe(
        'x-signature and webhook-signature:v1 are always sent and must be listed; add webhook-signature:v1a for the ' +
          'Ed25519 signature beside v1 (verified with the organization JWKS, no secret needed). Absent keeps the current choice.',
      ),
    ordering: z
      .enum(WEBHOOK_ORDERINGS, { error: `must be one of ${WEBHOOK_ORDERINGS.join(', ')}` })
      .optional()
      .describe(
        "none (default): deliveries go out in any order, several at once. resource: the events of one resource (the event's data.id) " +
          'arrive in commit order; a later one is sent only once the earlier one has a recorded success, and other resources are never held up. ' +
          'webhook: every event in commit order, one at a time. On PATCH, absent keeps the current order; it applies to deliveries already queued.',
      ),
  });

const BASE = '/v1/notifications/webhooks/settings';

/** An answer that carries a webhook secret is kept by no cache, as the token endpoint's. */
const NO_STORE = { 'Cache-Control': 'no-store' };

export const webhookRoutes: RouteModule = (api, { ctx }) => {
  const settingsBody = writeBody(ctx.config.webhooks.maxUrlLength);
  // The public-key routes come first so that "public-key" is never taken for a webhook id.
  api.route({
    method: 'get',
    path: `${BASE}/public-key`,
    summary: "The organization's current public key for x-signature",
    description:
      'With keyId (the x-signature-key-id of a delivery): that key, also one a rotation replaced less than ' +
      'webhooks.rotationOverlapSeconds ago, so a receiver that meets an unknown key id can fetch it.',
    tags: ['webhooks'],
    auth: 'bearer',
    query: publicKeyQuery,
    responses: {
      200: { description: 'the current key, or the one asked for', schema: publicKey },
      404: { description: 'no key yet (register a webhook first), or keyId unknown or replaced before the window' },
    },
    handler: async ({ ctx, auth, query }) => ({ body: await getPublicKey(ctx, auth.orgId, query.keyId) }),
  });
  api.route({
    method: 'post',
    path: `${BASE}/public-key`,
    summary: "Regenerate the organization's key pair",
    description:
      'Signatures made after this call verify only with the returned key. The replaced key stays readable ' +
      'by its id (GET with ?keyId=) for webhooks.rotationOverlapSeconds.',
    tags: ['webhooks'],
    auth: 'bearer',
    responses: { 201: { description: 'the new key', schema: publicKey } },
    prepare: ({ ctx, auth }) => rotationPair(ctx, auth.orgId),
    handler: async ({ ctx, auth, commit, prepared }) => ({ status: 201, body: await rotatePublicKey(ctx, auth.orgId, commit, prepared) }),
  });
  api.route({
    method: 'post',
    path: BASE,
    summary: 'Register a webhook URL',
    description:
      "The organization's signing key pair is generated with its first webhook. Each webhook gets its own " +
      'Standard Webhooks secret, shown in this answer once.',
    tags: ['webhooks'],
    auth: 'bearer',
    body: settingsBody,
    responses: {
      201: { description: 'registered, with its secret', schema: created },
      400: { description: 'url refused (names body.url)' },
      409: { description: 'the organization has webhooks.maxPerOrganization webhooks already (webhook_limit_reached)' },
    },
    prepare: ({ ctx, auth, body }) => prepareWebhook(ctx, auth.orgId, body),
    handler: async ({ ctx, auth, body, commit, prepared }) => {
      const webhook = await createWebhook(ctx, auth.orgId, body, commit, prepared);
      return {
        status: 201,
        body: { ...(await oneWithSchemes(ctx, webhook)), secret: webhook.secret },
        headers: NO_STORE,
      };
    },
  });
  api.route({
    method: 'get',
    path: BASE,
    summary: 'All webhooks of the organization',
    tags: ['webhooks'],
    auth: 'bearer',
    responses: { 200: { description: 'the list', schema: z.array(settings) } },
    handler: async ({ ctx, auth }) => ({ body: await withSchemes(ctx, await listWebhookSettings(ctx, auth.orgId)) }),
  });
  api.route({
    method: 'get',
    path: `${BASE}/{id}`,
    summary: 'One webhook',
    tags: ['webhooks'],
    auth: 'bearer',
    params: idParams,
    responses: { 200: { description: 'the webhook', schema: settings }, 404: { description: "unknown id or another organization's" } },
    handler: async ({ ctx, auth, params }) => ({ body: await oneWithSchemes(ctx, await getWebhookSettings(ctx, auth.orgId, params.id)) }),
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
      200: { description: 'updated', schema: settings },
      400: { description: 'url refused (names body.url)' },
      404: { description: "unknown id or another organization's" },
    },
    groupCommit: true,
    handler: async ({ ctx, auth, params, body }) => ({
      body: await oneWithSchemes(ctx, await updateWebhookSettings(ctx, auth.orgId, params.id, body)),
    }),
  });
  api.route({
    method: 'get',
    path: `${BASE}/{id}/secret`,
    summary: "The webhook's Standard Webhooks secret",
    description:
      'The secret that signs webhook-signature (v1, HMAC-SHA256). A webhook made before secrets existed has none until its first rotation.',
    tags: ['webhooks'],
    auth: 'bearer',
    params: idParams,
    responses: {
      200: { description: 'the current secret', schema: secretView },
      404: { description: "unknown id or another organization's, or a webhook without a secret yet" },
    },
    handler: async ({ ctx, auth, params }) => ({ body: await getWebhookSecret(ctx, auth.orgId, params.id), headers: NO_STORE }),
  });
  api.route({
    method: 'post',
    path: `${BASE}/{id}/secret/rotate`,
    summary: "Rotate the webhook's Standard Webhooks secret",
    description:
      'A new secret signs at once; the replaced one signs beside it (both v1 signatures in webhook-signature) for ' +
      'webhooks.rotationOverlapSeconds. A rotation while that window is open replaces the pending secret (the one the ' +
      'open rotation made); the old one keeps signing until its original end.',
    tags: ['webhooks'],
    auth: 'bearer',
    params: idParams,
    responses: {
      201: { description: 'the new secret', schema: secretView },
      404: { description: "unknown id or another organization's" },
    },
    handler: async ({ ctx, auth, params, commit }) => ({
      status: 201,
      body: await rotateWebhookSecretOf(ctx, auth.orgId, params.id, commit),
      headers: NO_STORE,
    }),
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
