/**
 * Each organization's Ed25519 key for Standard Webhooks' asymmetric `v1a` signature. Made on the
 * first delivery of a webhook that opted in, sealed under the master key, retired with the
 * organization's RSA key when it rotates (the next `v1a` signature makes a new one), and published
 * in the organization's JWKS.
 *
 * @module delivery/ed25519-keys
 */
import { createPrivateKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import type { AppContext } from '../context.js';
import { holdLock, withTransaction } from '../db/database.js';
import { remember } from '../domain/bounded-map.js';
import { isoAt } from '../domain/clock.js';
import { newId } from '../domain/ids.js';
import { currentEd25519Key, insertEd25519Key, type Ed25519KeyRow } from '../store/ed25519-keys.js';

/** Unsealed private keys kept per process: one per organization between rotations. */
const KEPT_KEYS = 10_000;

const context = (id: string) => `webhook_ed25519_keys.private:${id}`;

/** The organization's current key, created if it has none. Safe inside or outside a transaction. */
async function ensureKey(ctx: AppContext, orgId: string): Promise<Ed25519KeyRow> {
  return withTransaction(ctx, async (ctx) => {
    await holdLock(ctx.db, `ed25519-keys:${orgId}`);
    const current = await currentEd25519Key(ctx.db, orgId);
    if (current) return current;
    // An Ed25519 pair takes microseconds: made inline, unlike the RSA pairs.
    const { publicKey, privateKey } = generateKeyPairSync('ed25519');
    const now = ctx.clock.now();
    const id = newId('wek', now);
    const row: Ed25519KeyRow = {
      id,
      org_id: orgId,
      public_key: publicKey.export({ format: 'jwk' }).x!,
      private_enc: ctx.secrets.seal(privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(), context(id)),
      created_at: isoAt(now),
      retired_at: null,
    };
    await insertEd25519Key(ctx.db, row);
    return row;
  });
}

/**
 * The current private key of each organization, for the dispatcher: one read of the current row
 * per organization and pass (so a rotation made by any process is seen by the next pass), each key
 * unsealed once per process.
 */
export class Ed25519Keys {
  readonly #keys = new Map<string, KeyObject>();

  constructor(private readonly ctx: AppContext) {}

  async currentKey(orgId: string): Promise<{ keyId: string; key: KeyObject }> {
    const row = (await currentEd25519Key(this.ctx.db, orgId)) ?? (await ensureKey(this.ctx, orgId));
    let key = this.#keys.get(row.id);
    if (!key) key = createPrivateKey(this.ctx.secrets.open(row.private_enc, context(row.id)));
    remember(this.#keys, row.id, key, KEPT_KEYS);
    return { keyId: row.id, key };
  }
}
