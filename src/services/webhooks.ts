/**
 * Webhook settings: an organization's endpoints and its signing key as the API manages them, and
 * the operator's tools across organizations.
 *
 * @module services/webhooks
 */
import type { AppContext } from '../context.js';
import { isoAt } from '../domain/clock.js';
import { badRequest, conflict, notFound } from '../domain/errors.js';
import { unknownPatterns } from '../domain/event-type-filter.js';
import { newId } from '../domain/ids.js';
import { EVENT_TYPES } from '../verify/events.js';
import { checkWebhookUrl } from '../domain/webhook-url.js';
import {
  ensureSigningKey,
  currentSigningKey,
  pairIfKeyless,
  rotateSigningKey,
  signingKeyById,
  type KeyPair,
  type PublicSigningKey,
} from '../delivery/signing-keys.js';
import { commitAlone, type Commit } from '../db/group-commit.js';
import { setPendingState } from '../store/deliveries.js';
import { webhookHealth, type WebhookHealth } from '../store/delivery-views.js';
import { setWebhookEnabled } from '../delivery/webhook-state.js';
import {
  countWebhooks,
  getWebhook,
  getWebhookById,
  insertWebhook,
  listWebhooks,
  markWebhookDeleted,
  setWebhookEventTypes,
  setWebhookOrdering,
  type WebhookOrdering,
  type WebhookRecord,
} from '../store/webhooks.js';
import { replayWebhookSince } from './outbox.js';
import type { ReplayResult } from './outbox-views.js';
import { insertSecret, readWebhookSecret, rotateWebhookSecret, type WebhookSecretView } from '../delivery/webhook-secrets.js';
import { webhooksWithSecret } from '../store/webhook-secrets.js';
import { setWebhookV1a, webhooksWithV1a } from '../store/webhook-v1a.js';
import { holdLock, withTransaction } from '../db/database.js';
import { announce } from '../cluster/wakeups.js';

function assertUrl(ctx: AppContext, url: string): void {
  const errors = checkWebhookUrl(url, ctx.config.webhooks);
  if (errors.length) throw badRequest('invalid_webhook_url', `url ${errors[0]!.message}`, errors);
}

function assertEventTypes(types: readonly string[] | undefined): void {
  if (!types) return;
  const unknown = unknownPatterns(types, EVENT_TYPES);
  if (unknown.length)
    throw badRequest(
      'unknown_event_type',
      `eventTypes names no known event type: ${unknown.join(', ')}`,
      unknown.map((t) => ({ path: `body.eventTypes[${types.indexOf(t)}]`, message: `matches none of ${EVENT_TYPES.join(', ')}` })),
    );
}

/**
 * The schemes a write may list: x-signature and v1 are always sent, so a list must name them;
 * v1a is the opt-in. Answers whether v1a is asked for (undefined: no list, keep what it is).
 */
function wantsV1a(schemes: readonly SignatureScheme[] | undefined): boolean | undefined {
  if (!schemes) return undefined;
  const always = (['x-signature', 'webhook-signature:v1'] as const).filter((s) => !schemes.includes(s));
  if (always.length)
    throw badRequest('signature_scheme_required', `signatureSchemes must list ${always.join(' and ')}: every delivery carries them`, [
      { path: 'body.signatureSchemes', message: `add ${always.join(', ')}; webhook-signature:v1a is the one scheme to choose` },
    ]);
  return schemes.includes('webhook-signature:v1a');
}

/** A filter as stored: each pattern once, in the order given. */
const distinct = (types: readonly string[]): string[] => [...new Set(types)];

/** What a create or an update gives. */
export interface WebhookInput {
  url: string;
  enabled?: boolean | undefined;
  eventTypes?: string[] | undefined;
  /** When given, webhook-signature:v1a in it opts the webhook in, its absence out; absent keeps the choice. */
  signatureSchemes?: SignatureScheme[] | undefined;
  /** When given, replaces the webhook's delivery order; absent keeps it (none on create). */
  ordering?: WebhookOrdering | undefined;
}

/** A webhook as just created: its record and its secret, which this answer alone shows (besides the secret endpoint). */
export interface CreatedWebhook extends WebhookRecord {
  secret: string;
}

/** What a create checks and makes before its write (prepareWebhook). */
export interface PreparedWebhook {
  /** The organization's first key pair, when it has none yet. */
  pair: KeyPair | undefined;
  v1a: boolean | undefined;
}

/**
 * A create's work before its transaction: the input's checks, and the organization's first signing
 * key pair when it has none, made off the main thread. Outside any transaction, so none waits on it.
 */
export async function prepareWebhook(ctx: AppContext, orgId: string, input: WebhookInput): Promise<PreparedWebhook> {
  assertUrl(ctx, input.url);
  assertEventTypes(input.eventTypes);
  const v1a = wantsV1a(input.signatureSchemes);
  return { v1a, pair: await pairIfKeyless(ctx, orgId) };
}

/**
 * POST /v1/notifications/webhooks/settings. The organization's signing key pair is made with its first webhook, and written in
 * the same transaction; every webhook gets its own Standard Webhooks secret. `prepared` is what
 * prepareWebhook made for this input before the caller's transaction; without it, it is made here.
 */
export async function createWebhook(
  ctx: AppContext,
  orgId: string,
  input: WebhookInput,
  commit: Commit = commitAlone(ctx.db),
  prepared?: PreparedWebhook,
): Promise<CreatedWebhook> {
  const { v1a, pair } = prepared ?? (await prepareWebhook(ctx, orgId, input));
  const outer = ctx;
  return commit(async (db) => {
    const ctx = { ...outer, db };
    // Counted under the organization's webhook lock, so two requests at once cannot both take the last place.
    await holdLock(ctx.db, `webhooks:${orgId}`);
    const max = ctx.config.webhooks.maxPerOrganization;
    if ((await countWebhooks(ctx.db, orgId)) >= max) {
      throw conflict(
        'webhook_limit_reached',
        `this organization already has ${max} webhooks (webhooks.maxPerOrganization); delete one first`,
      );
    }
    const now = isoAt(ctx.clock.now());
    const webhook: WebhookRecord = {
      id: newId('whk', ctx.clock.now()),
      orgId,
      url: input.url,
      enabled: input.enabled ?? true,
      disabledReason: input.enabled === false ? `disabled by ${BY_ORGANIZATION}` : null,
      disabledAt: null,
      eventTypes: distinct(input.eventTypes ?? []),
      ordering: input.ordering ?? 'none',
      createdAt: now,
      updatedAt: now,
    };
    await insertWebhook(ctx.db, webhook);
    await ensureSigningKey(ctx, orgId, pair);
    const { secret } = await insertSecret(ctx, orgId, webhook.id);
    if (v1a) await setWebhookV1a(ctx.db, webhook.id, true, now);
    return { ...webhook, secret };
  });
}

async function mustGet(ctx: AppContext, orgId: string, id: string): Promise<WebhookRecord> {
  const webhook = await getWebhook(ctx.db, orgId, id);
  if (!webhook) throw notFound(`webhook ${id}`);
  return webhook;
}

export const getWebhookSettings = mustGet;
export const listWebhookSettings = async (ctx: AppContext, orgId: string): Promise<WebhookRecord[]> => await listWebhooks(ctx.db, orgId);

/**
 * PATCH /v1/notifications/webhooks/settings/{id}. url is required (the same url is fine); enabled defaults to true, so a PATCH of a
 * disabled webhook re-enables it. Disabling keeps its pending deliveries as skipped. eventTypes
 * replaces the filter when given (empty: every type) and keeps it when absent; it applies to events
 * written from then on, and deliveries already queued stay. ordering replaces the order when given
 * and keeps it when absent; it applies to deliveries already queued too.
 */
export async function updateWebhookSettings(ctx: AppContext, orgId: string, id: string, input: WebhookInput): Promise<WebhookRecord> {
  assertUrl(ctx, input.url);
  assertEventTypes(input.eventTypes);
  const v1a = wantsV1a(input.signatureSchemes);
  const updated = await withTransaction(ctx, async (ctx) => {
    await mustGet(ctx, orgId, id);
    if (v1a !== undefined) await setWebhookV1a(ctx.db, id, v1a, isoAt(ctx.clock.now()));
    if (input.eventTypes) await setWebhookEventTypes(ctx.db, id, distinct(input.eventTypes), isoAt(ctx.clock.now()));
    if (input.ordering) await setWebhookOrdering(ctx.db, id, input.ordering, isoAt(ctx.clock.now()));
    return setEnabled(ctx, id, input.enabled ?? true, BY_ORGANIZATION, input.url);
  });
  return changed(ctx, updated);
}

/** After the commit of a change to a webhook or its organization's key: this process's dispatcher checks what it holds (src/signals.ts). */
function changed<T>(ctx: AppContext, value: T): T {
  ctx.signals.webhookChanged.emit();
  return value;
}

/** Who a webhook's disable names when its organization's API client made it. */
const BY_ORGANIZATION = 'the organization (API)';

/**
 * Inside a transaction: moves the flag (src/delivery/webhook-state.ts) and reads the webhook back;
 * the other nodes hear of it once it commits (their rows claimed before it are read again).
 */
async function setEnabled(ctx: AppContext, id: string, enabled: boolean, by: string, url?: string): Promise<WebhookRecord> {
  await setWebhookEnabled(ctx, (await getWebhookById(ctx.db, id))!, enabled, isoAt(ctx.clock.now()), by, url);
  await announce(ctx.db, 'webhookChanged');
  return (await getWebhookById(ctx.db, id))!;
}

/** DELETE /v1/notifications/webhooks/settings/{id}. The row is kept (marked deleted) so its history stays; its pending deliveries are cancelled, not sent. */
export async function deleteWebhook(ctx: AppContext, orgId: string, id: string): Promise<void> {
  await withTransaction(ctx, async (ctx) => {
    await mustGet(ctx, orgId, id);
    const at = isoAt(ctx.clock.now());
    // The webhook row before its deliveries, the order of every change to a webhook (setWebhookEnabled):
    // on PostgreSQL two transactions that took them in opposite orders could wait on each other.
    await markWebhookDeleted(ctx.db, id, at);
    await setPendingState(ctx.db, id, 'cancelled', at);
    await announce(ctx.db, 'webhookChanged');
  });
  changed(ctx, undefined);
}

/**
 * GET /v1/notifications/webhooks/settings/public-key: 404 while the organization has no key (no webhook registered yet). With `keyId`, that
 * key: the current one or one replaced within the rotation window, else 404.
 */
export async function getPublicKey(ctx: AppContext, orgId: string, keyId?: string): Promise<PublicSigningKey> {
  if (keyId !== undefined) {
    const byId = await signingKeyById(ctx, orgId, keyId);
    if (!byId) throw notFound(`public key ${keyId} (unknown, or replaced longer ago than webhooks.rotationOverlapSeconds)`);
    return byId;
  }
  const key = await currentSigningKey(ctx, orgId);
  if (!key) throw notFound('public key (register a webhook first)');
  return key;
}

/**
 * POST /v1/notifications/webhooks/settings/public-key: a new pair; signatures made from now on verify only with it (the old one stays
 * readable by id for the window). `pair`, made by rotationPair before the caller's transaction, is
 * the one installed; without it, one is made here first.
 */
export const rotatePublicKey = async (ctx: AppContext, orgId: string, commit?: Commit, pair?: KeyPair): Promise<PublicSigningKey> =>
  changed(ctx, await rotateSigningKey(ctx, orgId, commit, pair));

/** The webhook's Standard Webhooks secret; 404 for an unknown id or another organization's. */
export const getWebhookSecret = (ctx: AppContext, orgId: string, id: string): Promise<WebhookSecretView> =>
  readWebhookSecret(ctx, orgId, id);

/** A new secret for the webhook; the replaced one signs beside it for `webhooks.rotationOverlapSeconds`. */
export const rotateWebhookSecretOf = async (ctx: AppContext, orgId: string, id: string, commit?: Commit): Promise<WebhookSecretView> =>
  changed(ctx, await rotateWebhookSecret(ctx, orgId, id, commit));

/** The signature schemes of a webhook's deliveries, as its settings show them. */
export type SignatureScheme = 'x-signature' | 'webhook-signature:v1' | 'webhook-signature:v1a';

export const SIGNATURE_SCHEMES: readonly SignatureScheme[] = ['x-signature', 'webhook-signature:v1', 'webhook-signature:v1a'];

/**
 * Each webhook's schemes: `x-signature` always, the Standard Webhooks `v1` once it has a secret,
 * `v1a` (Ed25519) when it opted in.
 */
export async function signatureSchemes(ctx: AppContext, webhooks: readonly WebhookRecord[]): Promise<Map<string, SignatureScheme[]>> {
  const ids = webhooks.map((w) => w.id);
  const withSecret = await webhooksWithSecret(ctx.db, ids);
  const withV1a = await webhooksWithV1a(ctx.db, ids);
  return new Map(
    webhooks.map((w) => {
      const schemes: SignatureScheme[] = ['x-signature'];
      if (withSecret.has(w.id)) schemes.push('webhook-signature:v1');
      if (withV1a.has(w.id)) schemes.push('webhook-signature:v1a');
      return [w.id, schemes];
    }),
  );
}

export const organizationHasWebhooks = async (ctx: AppContext, orgId: string): Promise<boolean> => (await countWebhooks(ctx.db, orgId)) > 0;

// ---- operator tooling (CLI): across organizations, by webhook id ----

export interface WebhookWithHealth extends WebhookRecord, WebhookHealth {
  signatureSchemes: SignatureScheme[];
}

export async function listWebhooksWithHealth(ctx: AppContext, orgId?: string): Promise<WebhookWithHealth[]> {
  const out: WebhookWithHealth[] = [];
  const webhooks = await listWebhooks(ctx.db, orgId);
  const schemes = await signatureSchemes(ctx, webhooks);
  for (const w of webhooks) out.push({ ...w, signatureSchemes: schemes.get(w.id)!, ...(await webhookHealth(ctx.db, w.id)) });
  return out;
}

async function mustGetAny(ctx: AppContext, id: string): Promise<WebhookRecord> {
  const webhook = await getWebhookById(ctx.db, id);
  if (!webhook) throw notFound(`webhook ${id}`);
  return webhook;
}

/** Re-enables a webhook; with `replaySince`, also requeues its events since then (skipped ones included). */
export async function enableWebhook(
  ctx: AppContext,
  id: string,
  replaySince?: string,
): Promise<{ webhook: WebhookRecord; replay?: ReplayResult }> {
  await mustGetAny(ctx, id);
  const webhook = changed(ctx, await withTransaction(ctx, async (ctx) => setEnabled(ctx, id, true, 'an operator')));
  if (replaySince === undefined) return { webhook };
  return changed(ctx, { webhook, replay: await replayWebhookSince(ctx, id, replaySince) });
}

/** An operator's disable; `via` says where it was made (`borderd webhooks disable`, the admin API), for the reason operators see. */
export async function disableWebhook(ctx: AppContext, id: string, via: string): Promise<WebhookRecord> {
  await mustGetAny(ctx, id);
  return changed(ctx, await withTransaction(ctx, async (ctx) => setEnabled(ctx, id, false, `an operator (${via})`)));
}

/** An operator's change of a webhook's ordering; it applies to deliveries already queued too. */
export async function setOrdering(ctx: AppContext, id: string, ordering: WebhookOrdering): Promise<WebhookRecord> {
  await mustGetAny(ctx, id);
  return withTransaction(ctx, async (ctx) => {
    await setWebhookOrdering(ctx.db, id, ordering, isoAt(ctx.clock.now()));
    return (await getWebhookById(ctx.db, id))!;
  });
}
