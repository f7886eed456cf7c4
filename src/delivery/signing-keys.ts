/**
 * The organization's RSA-SHA256 webhook signing keys. The private half is sealed under the master
 * key; the newest unretired key signs. `x-signature` is base64 of RSASSA-PKCS1-v1_5 with SHA-256
 * over the exact body bytes, which `openssl dgst -sha256 -verify pub.pem -signature sig.bin`
 * checks.
 *
 * @module delivery/signing-keys
 */
import { createPrivateKey, generateKeyPair, generateKeyPairSync, sign, createPublicKey, type KeyObject } from 'node:crypto';
import { promisify } from 'node:util';
import type { AppContext } from '../context.js';
import { commitAlone, type Commit } from '../db/group-commit.js';
import { isoAt } from '../domain/clock.js';
import { holdLock, withTransaction } from '../db/database.js';
import { announce } from '../cluster/wakeups.js';
import { newId } from '../domain/ids.js';
import { retireEd25519Keys } from '../store/ed25519-keys.js';
import {
  currentKeyId,
  currentKeyRow,
  insertWebhookKey,
  retireWebhookKeys,
  sealedPrivateKey,
  webhookKeyOf,
  type WebhookKeyRow,
} from '../store/webhook-keys.js';

export const SIGNING_KEY_BITS = 2048;

export interface PublicSigningKey {
  keyId: string;
  publicKey: string;
  algorithm: 'RSA-SHA256';
  createdAt: string;
  /** Only on a replaced key read by its id: when a rotation replaced it (it signs nothing since). */
  retiredAt?: string;
}

const context = (id: string) => `webhook_keys.private:${id}`;

function toPublic(row: WebhookKeyRow): PublicSigningKey {
  return { keyId: row.id, publicKey: row.public_pem, algorithm: 'RSA-SHA256', createdAt: row.created_at };
}

export interface KeyPair {
  publicKey: KeyObject;
  privateKey: KeyObject;
}

const generateKeyPairAsync = promisify(generateKeyPair);

async function insertNewKey(
  ctx: AppContext,
  orgId: string,
  pair: KeyPair = generateKeyPairSync('rsa', { modulusLength: SIGNING_KEY_BITS }),
): Promise<WebhookKeyRow> {
  const { publicKey, privateKey } = pair;
  const now = ctx.clock.now();
  const id = newId('wsk', now);
  const row: WebhookKeyRow = {
    id,
    org_id: orgId,
    public_pem: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    private_enc: ctx.secrets.seal(privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(), context(id)),
    created_at: isoAt(now),
    retired_at: null,
  };
  await insertWebhookKey(ctx.db, row);
  return row;
}

/**
 * The current key, created if the organization has none yet (from `pair` when given, else made here,
 * on this thread). Safe inside or outside a transaction.
 */
export async function ensureSigningKey(ctx: AppContext, orgId: string, pair?: KeyPair): Promise<PublicSigningKey> {
  return toPublic(
    await withTransaction(ctx, async (ctx) => {
      await holdLock(ctx.db, `keys:${orgId}`);
      return (await currentKeyRow(ctx.db, orgId)) ?? (await insertNewKey(ctx, orgId, pair));
    }),
  );
}

/**
 * A new pair for an organization that has no key yet, made on libuv's thread pool; undefined when
 * it has one. Made inline, an RSA-2048 pair would hold the daemon's main thread for tens of
 * milliseconds (at times hundreds: the search for primes is random), and, inside the write, the
 * write lock with it. Pass it to `ensureSigningKey` in the write that needs the key; if another
 * request made one meanwhile, that one stays and this pair is dropped.
 */
export async function pairIfKeyless(ctx: AppContext, orgId: string): Promise<KeyPair | undefined> {
  return (await currentKeyId(ctx.db, orgId)) ? undefined : generateKeyPairAsync('rsa', { modulusLength: SIGNING_KEY_BITS });
}

export async function currentSigningKey(ctx: AppContext, orgId: string): Promise<PublicSigningKey | undefined> {
  const row = await currentKeyRow(ctx.db, orgId);
  return row && toPublic(row);
}

/**
 * One of the organization's keys by its id (`x-signature-key-id`): the current one, or one a
 * rotation replaced less than `webhooks.rotationOverlapSeconds` ago, so a receiver that meets an
 * unknown key id (a delivery signed just before a rotation, a cache older than it) can fetch the
 * key that signed it. Undefined past the window, or for another organization's key.
 */
export async function signingKeyById(ctx: AppContext, orgId: string, keyId: string): Promise<PublicSigningKey | undefined> {
  const row = await webhookKeyOf(ctx.db, orgId, keyId);
  if (!row) return undefined;
  if (row.retired_at === null) return toPublic(row);
  return row.retired_at > retiredSince(ctx) ? { ...toPublic(row), retiredAt: row.retired_at } : undefined;
}

/**
 * The instant after which a retired key is still published (by its id, in the JWKS): now less
 * `webhooks.rotationOverlapSeconds`. Compared with `retired_at` as ISO text, which sorts as time.
 */
export const retiredSince = (ctx: AppContext): string => isoAt(ctx.clock.now() - ctx.config.webhooks.rotationOverlapSeconds * 1000);

/** Pairs being made for a rotation, per context and organization: requests that ask meanwhile share one. */
const rotationPairs = new WeakMap<AppContext, Map<string, Promise<KeyPair>>>();

/**
 * A new pair for a rotation of the organization's key, made on libuv's thread pool (see
 * pairIfKeyless) before the write that installs it, so a client looping on rotation cannot stall
 * every organization, nor hold a transaction while it is made. Requests of one organization that
 * ask while it is being made get the same pair, and so the same rotation (rotateSigningKey).
 */
export function rotationPair(ctx: AppContext, orgId: string): Promise<KeyPair> {
  let inFlight = rotationPairs.get(ctx);
  if (!inFlight) rotationPairs.set(ctx, (inFlight = new Map()));
  const pending = inFlight.get(orgId);
  if (pending) return pending;
  const made = generateKeyPairAsync('rsa', { modulusLength: SIGNING_KEY_BITS }).finally(() => inFlight.delete(orgId));
  inFlight.set(orgId, made);
  return made;
}

/**
 * Replaces the pair with `pair` (by default one made by rotationPair): the old key is retired at
 * once, so signatures made from now on verify only with the new one (the old one stays readable by
 * its id for the overlap window: signingKeyById). A request that shared its pair with one that
 * installed it already gets that key: each asked to retire the key current when it asked, and the
 * new one is newer than that. The write goes through `commit`: the API's group commit in the
 * daemon, which waits for a write lock another process holds on a timer.
 */
export async function rotateSigningKey(
  ctx: AppContext,
  orgId: string,
  commit: Commit = commitAlone(ctx.db),
  pair?: KeyPair,
): Promise<PublicSigningKey> {
  const made = pair ?? (await rotationPair(ctx, orgId));
  const publicPem = made.publicKey.export({ type: 'spki', format: 'pem' }).toString();
  return commit(async (db) => {
    await holdLock(db, `keys:${orgId}`);
    const current = await currentKeyRow(db, orgId);
    if (current?.public_pem === publicPem) return toPublic(current);
    await retireWebhookKeys(db, orgId, isoAt(ctx.clock.now()));
    // The v1a key rotates with it: one rotation replaces everything that signs for the organization.
    await retireEd25519Keys(db, orgId, isoAt(ctx.clock.now()));
    // The dispatchers of the other nodes read their rows again before sending them (leases.ts).
    await announce(db, 'webhookChanged');
    return toPublic(await insertNewKey({ ...ctx, db }, orgId, made));
  });
}

/** An organization's current signing key, unsealed. */
export interface SigningKey {
  keyId: string;
  key: KeyObject;
}

/**
 * Signs bodies with an organization's current key. Private keys are unsealed once per key id and
 * kept in memory, so the daemon has one Signer, in its EventSignatures, which the dispatcher and
 * the event stream share. `sign` re-reads which key is current, so a rotation made by another
 * process is picked up on the next signature; the dispatcher asks `currentKey` once per pass (one
 * indexed read of the key id) and signs a batch with it through `signAsync`, off the main thread.
 * `signatures` counts every signature made, whichever way.
 */
export class Signer {
  readonly #keys = new Map<string, KeyObject>();
  /** Signatures made by this signer (tests and the dispatcher's stats read it). */
  signatures = 0;

  constructor(private readonly ctx: AppContext) {}

  /** The current key id of an organization, or undefined when it has none. */
  async currentKeyId(orgId: string): Promise<string | undefined> {
    return await currentKeyId(this.ctx.db, orgId);
  }

  /**
   * The organization's current key, created if it has none. Reads only the current key id (one
   * indexed query); the private key is unsealed the first time an id is seen. Throws when the
   * private key cannot be opened (wrong master key, damaged row).
   */
  async currentKey(orgId: string): Promise<SigningKey> {
    let keyId = await currentKeyId(this.ctx.db, orgId);
    if (!keyId) keyId = (await ensureSigningKey(this.ctx, orgId)).keyId;
    let key = this.#keys.get(keyId);
    if (!key) {
      key = createPrivateKey(this.ctx.secrets.open((await sealedPrivateKey(this.ctx.db, keyId))!, context(keyId)));
      this.#keys.set(keyId, key);
    }
    return { keyId, key };
  }

  /** base64 RSA-SHA256 over the exact bytes, with the id of the key that made it. */
  async sign(orgId: string, body: string | Buffer): Promise<{ signature: string; keyId: string }> {
    const { keyId, key } = await this.currentKey(orgId);
    this.signatures++;
    return { signature: sign('sha256', typeof body === 'string' ? Buffer.from(body) : body, key).toString('base64'), keyId };
  }

  /** The same signature as `sign`, made on libuv's thread pool so the event loop keeps sending meanwhile. */
  signAsync(key: SigningKey, body: string | Buffer): Promise<string> {
    this.signatures++;
    return new Promise((resolve, reject) =>
      sign('sha256', typeof body === 'string' ? Buffer.from(body) : body, key.key, (err, sig) =>
        err ? reject(err) : resolve(sig.toString('base64')),
      ),
    );
  }
}

/** For tests and tools: the KeyObject of a PEM public key. */
export const publicKeyObject = (pem: string): KeyObject => createPublicKey(pem);
