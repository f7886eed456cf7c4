/**
 * Each webhook's Standard Webhooks secret (`whsec_` + base64 of 32 random bytes): made with the
 * webhook, sealed under the master key, read back only through its own endpoint, and rotated with
 * an overlap (`webhooks.rotationOverlapSeconds`) during which the replaced secret signs beside the
 * new one. A rotation while a window is open replaces the pending secret (the one that rotation
 * made) and leaves the old one its original end: the leaked-secret case is served at once, and the
 * window is never stretched by rotating again.
 *
 * @module delivery/webhook-secrets
 */
import { randomBytes } from 'node:crypto';
import { announce } from '../cluster/wakeups.js';
import type { AppContext } from '../context.js';
import { commitAlone, type Commit } from '../db/group-commit.js';
import { holdLock, type Db } from '../db/database.js';
import { remember } from '../domain/bounded-map.js';
import { isoAt } from '../domain/clock.js';
import { notFound } from '../domain/errors.js';
import { newId } from '../domain/ids.js';
import { getWebhook } from '../store/webhooks.js';
import { expireWebhookSecret, insertWebhookSecret, signingSecrets, type WebhookSecretRow } from '../store/webhook-secrets.js';
import { SECRET_PREFIX, secretKey } from '../verify/standard-webhooks.js';

/** Key bytes of a new secret: inside the 24 to 64 the Standard Webhooks specification recommends. */
const SECRET_BYTES = 32;

/** Unsealed secret keys kept per process: one or two per webhook, and webhooks are bounded per organization. */
const KEPT_KEYS = 10_000;

const context = (id: string) => `webhook_secrets.secret:${id}`;

/** A webhook's secret as its endpoint shows it. */
export interface WebhookSecretView {
  /** The current secret, `whsec_…`: it signs every delivery. */
  secret: string;
  createdAt: string;
  /** While a rotation's window is open: when the replaced secret stops signing beside this one; else null. */
  previousExpiresAt: string | null;
}

export const newSecretText = (): string => SECRET_PREFIX + randomBytes(SECRET_BYTES).toString('base64');

/** Inside the caller's transaction: a new current secret for the webhook; answers its text. */
export async function insertSecret(ctx: AppContext, orgId: string, webhookId: string): Promise<{ secret: string; createdAt: string }> {
  const now = ctx.clock.now();
  const id = newId('wss', now);
  const secret = newSecretText();
  const createdAt = isoAt(now);
  await insertWebhookSecret(ctx.db, {
    id,
    webhook_id: webhookId,
    org_id: orgId,
    secret_enc: ctx.secrets.seal(secret, context(id)),
    created_at: createdAt,
    expires_at: null,
  });
  return { secret, createdAt };
}

function view(ctx: AppContext, rows: readonly WebhookSecretRow[]): WebhookSecretView | undefined {
  const current = rows.find((r) => r.expires_at === null);
  if (!current) return undefined;
  const previous = rows.filter((r) => r.expires_at !== null).map((r) => r.expires_at!);
  return {
    secret: ctx.secrets.open(current.secret_enc, context(current.id)),
    createdAt: current.created_at,
    previousExpiresAt: previous.length ? previous.sort().at(-1)! : null,
  };
}

async function mustHaveWebhook(db: Db, orgId: string, webhookId: string): Promise<void> {
  if (!(await getWebhook(db, orgId, webhookId))) throw notFound(`webhook ${webhookId}`);
}

/** The webhook's current secret; 404 for another organization's webhook, or one made before secrets (rotate to make one). */
export async function readWebhookSecret(ctx: AppContext, orgId: string, webhookId: string): Promise<WebhookSecretView> {
  await mustHaveWebhook(ctx.db, orgId, webhookId);
  const shown = view(ctx, await signingSecrets(ctx.db, webhookId, isoAt(ctx.clock.now())));
  if (!shown) throw notFound(`secret of webhook ${webhookId} (it has none yet: rotate it to make one)`);
  return shown;
}

/**
 * A new current secret. Outside a window, the current one signs on until now + the overlap; inside
 * one (a previous rotation's secret still signs), the pending secret is replaced at once and the
 * old one keeps its end. A webhook without a secret gets its first one.
 */
export async function rotateWebhookSecret(
  ctx: AppContext,
  orgId: string,
  webhookId: string,
  commit: Commit = commitAlone(ctx.db),
): Promise<WebhookSecretView> {
  return commit(async (db) => {
    const inner = { ...ctx, db };
    await holdLock(db, `webhook-secret:${webhookId}`);
    await mustHaveWebhook(db, orgId, webhookId);
    const now = ctx.clock.now();
    const rows = await signingSecrets(db, webhookId, isoAt(now));
    const current = rows.find((r) => r.expires_at === null);
    const windowOpen = rows.some((r) => r.expires_at !== null);
    const overlapMs = ctx.config.webhooks.rotationOverlapSeconds * 1000;
    if (current) await expireWebhookSecret(db, current.id, isoAt(windowOpen || overlapMs === 0 ? now : now + overlapMs));
    await insertSecret(inner, orgId, webhookId);
    // The dispatchers of the other nodes read this webhook's secrets again (dispatch/signing.ts).
    await announce(db, 'webhookChanged');
    return view(inner, await signingSecrets(db, webhookId, isoAt(now)))!;
  });
}

/**
 * The keys that sign each webhook's deliveries now, current first, for the dispatcher: one read per
 * webhook (kept by the dispatcher as dispatch/signing.ts says), each secret unsealed once per process.
 */
export class WebhookSecretKeys {
  readonly #keys = new Map<string, Buffer>();

  constructor(private readonly ctx: AppContext) {}

  async keysOf(webhookId: string): Promise<Buffer[]> {
    const rows = await signingSecrets(this.ctx.db, webhookId, isoAt(this.ctx.clock.now()));
    return rows.map((row) => {
      let key = this.#keys.get(row.id);
      if (!key) key = secretKey(this.ctx.secrets.open(row.secret_enc, context(row.id)));
      remember(this.#keys, row.id, key, KEPT_KEYS);
      return key;
    });
  }
}
