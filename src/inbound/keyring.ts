/**
 * The organizations' card-network decryption keys. An organization may hold several at once: a
 * rotation imports (or generates) the new key, the card network switches its senders over, and the
 * old key is removed afterwards, so no notification arrives for a kid borderd cannot open.
 *
 * @module inbound/keyring
 */
import { createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import type { AppContext } from '../context.js';
import type { Db } from '../db/database.js';
import { isoAt } from '../domain/clock.js';
import { badRequest, conflict, notFound } from '../domain/errors.js';
import { newId } from '../domain/ids.js';
import {
  deleteCardNetworkKey,
  findCardNetworkKey,
  insertCardNetworkKey,
  keysWithKid,
  listCardNetworkKeys,
  type CardNetworkKey,
} from '../store/card-network-keys.js';
import { getOrganization } from '../store/organizations.js';
import { buildCsrPem } from './csr.js';
import { MAX_KID_LENGTH, normalizeKid, spkiFingerprint } from './key-fingerprint.js';
import { isPkcs12, privateKeyFromPkcs12 } from './pkcs12.js';
import { withTransaction } from '../db/database.js';

export const MIN_KEY_BITS = 2048;

export interface CardNetworkKeyView {
  id: string;
  organizationId: string;
  kid: string;
  bits: number;
  source: 'generated' | 'imported';
  publicKey: string;
  createdAt: string;
}

const sealContext = (id: string) => `card_network_keys.private:${id}`;

function bitsOf(key: KeyObject): number {
  return key.asymmetricKeyDetails?.modulusLength ?? 0;
}

function toView(k: CardNetworkKey): CardNetworkKeyView {
  return {
    id: k.id,
    organizationId: k.orgId,
    kid: k.kid,
    bits: bitsOf(createPublicKey(k.publicPem)),
    source: k.source,
    publicKey: k.publicPem,
    createdAt: k.createdAt,
  };
}

async function store(
  ctx: AppContext,
  orgId: string,
  privateKey: KeyObject,
  source: 'generated' | 'imported',
  explicitKid?: string,
): Promise<CardNetworkKeyView> {
  if (!(await getOrganization(ctx.db, orgId))) throw notFound(`organization ${orgId}`);
  if (privateKey.asymmetricKeyType !== 'rsa') throw badRequest('unsupported_key', 'card-network keys are RSA keys');
  if (bitsOf(privateKey) < MIN_KEY_BITS)
    throw badRequest('key_too_small', `card-network keys must have at least ${MIN_KEY_BITS} bits; this one has ${bitsOf(privateKey)}`);
  const kid = explicitKid ? normalizeKid(explicitKid) : spkiFingerprint(privateKey);
  if (kid.length > MAX_KID_LENGTH) throw badRequest('invalid_kid', `kid must be at most ${MAX_KID_LENGTH} characters`);
  const now = ctx.clock.now();
  const id = newId('cnk', now);
  const row: CardNetworkKey = {
    id,
    orgId,
    kid,
    publicPem: createPublicKey(privateKey).export({ type: 'spki', format: 'pem' }).toString(),
    privateEnc: ctx.secrets.seal(privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(), sealContext(id)),
    source,
    createdAt: isoAt(now),
  };
  await withTransaction(ctx, async (ctx) => {
    if (await findCardNetworkKey(ctx.db, orgId, kid))
      throw conflict('key_exists', `organization ${orgId} already has a card-network key with kid ${kid}`);
    await insertCardNetworkKey(ctx.db, row);
  });
  ctx.log.info({ orgId, kid, keyId: id, source }, 'card-network key added');
  return toView(row);
}

export interface GeneratedKey extends CardNetworkKeyView {
  /** PKCS#10 request for the card network's key-management portal. */
  csr: string;
}

export async function generateCardNetworkKey(
  ctx: AppContext,
  orgId: string,
  opts: { bits?: number; commonName?: string } = {},
): Promise<GeneratedKey> {
  const bits = opts.bits ?? MIN_KEY_BITS;
  if (!Number.isInteger(bits) || bits < MIN_KEY_BITS || bits > 8192)
    throw badRequest('invalid_bits', `bits must be an integer from ${MIN_KEY_BITS} to 8192`);
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: bits });
  const view = await store(ctx, orgId, privateKey, 'generated');
  return {
    ...view,
    csr: await buildCsrPem(privateKey, { CN: opts.commonName ?? `borderd ${orgId}`, O: (await getOrganization(ctx.db, orgId))!.name }),
  };
}

/**
 * Reads a private key: PEM (PKCS#1 "RSA PRIVATE KEY", PKCS#8, encrypted PKCS#8 or legacy encrypted
 * PEM with the passphrase), DER (PKCS#8, encrypted PKCS#8, or PKCS#1), or a PKCS#12 keystore
 * (.p12/.pfx, pkcs12.ts) with its password.
 */
async function readPrivateKey(keyBytes: Buffer, passphrase?: string): Promise<KeyObject> {
  const withPass = passphrase === undefined ? {} : { passphrase };
  const text = keyBytes.toString('latin1');
  if (text.includes('-----BEGIN')) {
    if (/-----BEGIN (?:CERTIFICATE|PUBLIC KEY|RSA PUBLIC KEY)-----/.test(text) && !/-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(text)) {
      throw new Error('the PEM holds no private key (a certificate or public key only)');
    }
    return createPrivateKey({ key: keyBytes.toString('utf8'), format: 'pem', ...withPass });
  }
  if (isPkcs12(keyBytes)) return await privateKeyFromPkcs12(keyBytes, passphrase);
  // DER: PKCS#8 (plain, or encrypted with the passphrase) first, then PKCS#1.
  let first: unknown;
  for (const type of ['pkcs8', 'pkcs1'] as const) {
    try {
      return createPrivateKey({ key: keyBytes, format: 'der', type, ...(type === 'pkcs8' ? withPass : {}) });
    } catch (err) {
      first ??= err;
    }
  }
  throw first;
}

/** Imports a private key (see readPrivateKey for the formats). The kid defaults to the SPKI fingerprint. */
export async function importCardNetworkKey(
  ctx: AppContext,
  orgId: string,
  keyBytes: Buffer,
  opts: { kid?: string; passphrase?: string } = {},
): Promise<CardNetworkKeyView> {
  let privateKey: KeyObject;
  try {
    privateKey = await readPrivateKey(keyBytes, opts.passphrase);
  } catch (err) {
    // The cause stays attached: the CLI tells a keystore that fails its integrity check (bad usage) from the rest.
    const refusal = badRequest(
      'invalid_private_key',
      `the file does not hold a readable private key (${(err as Error).message.split('\n')[0]})`,
    );
    refusal.cause = err;
    throw refusal;
  }
  return await store(ctx, orgId, privateKey, 'imported', opts.kid);
}

export async function listKeys(ctx: AppContext, orgId?: string): Promise<CardNetworkKeyView[]> {
  return (await listCardNetworkKeys(ctx.db, orgId)).map(toView);
}

/** Removes by kid (or by key id cnk_…); with the same kid in several organizations, --org picks one. */
export async function removeCardNetworkKey(ctx: AppContext, kidOrId: string, orgId?: string): Promise<CardNetworkKeyView> {
  const candidates = kidOrId.startsWith('cnk_')
    ? (await listCardNetworkKeys(ctx.db)).filter((k) => k.id === kidOrId)
    : await keysWithKid(ctx.db, normalizeKid(kidOrId));
  const matches = orgId ? candidates.filter((k) => k.orgId === orgId) : candidates;
  if (matches.length === 0) throw notFound(`card-network key ${kidOrId}`);
  if (matches.length > 1) throw conflict('ambiguous_kid', `kid ${kidOrId} exists in ${matches.length} organizations; name one with --org`);
  const key = matches[0]!;
  await deleteCardNetworkKey(ctx.db, key.id);
  keysOf(ctx).delete(key.id); // no private key kept in memory after its removal
  ctx.log.info({ orgId: key.orgId, kid: key.kid, keyId: key.id }, 'card-network key removed');
  return toView(key);
}

/**
 * Unsealed private keys by key row id (cnk_…), per database connection. Unsealing and parsing the
 * PEM into a KeyObject costs more than the lookup, and every notification needs its key. The lookup
 * reads the row each time and a row id is never reused, so a key removed or replaced (here or by a
 * CLI command in another process) is never used from the cache.
 */
const keyCache = new WeakMap<Db, Map<string, KeyObject>>();

function keysOf(ctx: AppContext): Map<string, KeyObject> {
  let cache = keyCache.get(ctx.db);
  if (!cache) keyCache.set(ctx.db, (cache = new Map()));
  return cache;
}

/** The unsealed private key of an organization's kid, or undefined when it has no such key. */
export async function privateKeyFor(ctx: AppContext, orgId: string, kid: string): Promise<KeyObject | undefined> {
  const row = await findCardNetworkKey(ctx.db, orgId, normalizeKid(kid));
  if (!row) return undefined;
  const cache = keysOf(ctx);
  let key = cache.get(row.id);
  if (!key) cache.set(row.id, (key = createPrivateKey(ctx.secrets.open(row.privateEnc, sealContext(row.id)))));
  return key;
}
