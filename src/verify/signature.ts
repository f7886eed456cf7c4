/**
 * The signature contract: `x-signature` is base64 of RSASSA-PKCS1-v1_5 with SHA-256 over the exact
 * body bytes, made with the organization's current key (`x-signature-key-id`). Only node:crypto is
 * used so the library runs anywhere Node does.
 *
 * @module verify/signature
 */
import { createPublicKey, KeyObject, verify } from 'node:crypto';
import { WebhookVerificationError } from './errors.js';
import type { AnyWebhookEvent } from './events.js';

export const SIGNATURE_HEADER = 'x-signature';
export const KEY_ID_HEADER = 'x-signature-key-id';
export const EVENT_ID_HEADER = 'x-event-id';
export const EVENT_TYPE_HEADER = 'x-event-type';

/**
 * A PEM (a string, or its bytes as `readFileSync` gives them), a KeyObject, or several of them
 * (during a rotation, old and new).
 */
export type PublicKeyInput = string | Uint8Array | KeyObject | readonly (string | Uint8Array | KeyObject)[];
export type RawBody = string | Buffer | Uint8Array;
export type HeaderBag = Record<string, string | string[] | undefined> | Headers | Map<string, string>;

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;
const keyCache = new Map<string, KeyObject>();

/**
 * A key that cannot be used (a PEM that does not parse, an unset environment variable, a secret
 * KeyObject) is `invalid_public_key`, never OpenSSL's own error: callers tell it by its code, and
 * the message names what was wrong without quoting the key.
 */
function toKeyObject(given: unknown): KeyObject {
  // A PEM read without an encoding (readFileSync(path)) is the same key: Node's own verify takes it.
  const key = given instanceof Uint8Array ? Buffer.from(given.buffer, given.byteOffset, given.byteLength).toString('utf8') : given;
  if (key instanceof KeyObject) {
    if (key.type === 'secret')
      throw new WebhookVerificationError(
        'invalid_public_key',
        'the public key is a secret (symmetric) KeyObject: give the PEM or KeyObject of an RSA public key',
      );
    return key;
  }
  if (typeof key !== 'string' || key.trim() === '') {
    const what =
      key === undefined || key === null || typeof key === 'string'
        ? 'none was given (an unset environment variable?)'
        : `got ${typeof key}`;
    throw new WebhookVerificationError('invalid_public_key', `the public key must be a PEM (string or bytes) or a KeyObject: ${what}`);
  }
  let obj = keyCache.get(key);
  if (!obj) {
    try {
      obj = createPublicKey(key);
    } catch (err) {
      throw new WebhookVerificationError(
        'invalid_public_key',
        `the public key is not a readable PEM public key (${(err as Error).message})`,
      );
    }
    if (keyCache.size > 64) keyCache.clear();
    keyCache.set(key, obj);
  }
  return obj;
}

/**
 * The keys as KeyObjects; throws WebhookVerificationError `invalid_public_key` for one that cannot be
 * read. Takes undefined too: what an unset environment variable gives a JavaScript caller.
 */
export function toKeyList(keys: PublicKeyInput | undefined): KeyObject[] {
  const list: readonly unknown[] = Array.isArray(keys) ? keys : [keys];
  return list.map(toKeyObject);
}

/** Refuses parsed bodies: a signature covers bytes, and JSON.stringify of a parsed object is not them. */
export function rawBytes(body: unknown): Buffer {
  if (typeof body === 'string') return Buffer.from(body, 'utf8');
  if (Buffer.isBuffer(body)) return body;
  if (body instanceof Uint8Array) return Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  throw new WebhookVerificationError(
    'body_not_raw',
    'the body must be the raw request bytes (string or Buffer), not a parsed object: ' +
      "in express mount express.raw({ type: 'application/json' }) on the webhook route instead of express.json(), " +
      'or use createWebhookMiddleware, which reads the body itself',
  );
}

/** Case-insensitive header lookup over plain objects (node), Headers (fetch) and Maps. */
export function headerValue(headers: HeaderBag, name: string): string | undefined {
  const lower = name.toLowerCase();
  if (typeof (headers as Headers).get === 'function' && !(headers instanceof Map)) return (headers as Headers).get(lower) ?? undefined;
  const entries = headers instanceof Map ? headers.entries() : Object.entries(headers);
  for (const [k, v] of entries) {
    if (k.toLowerCase() === lower) return Array.isArray(v) ? v[0] : (v ?? undefined);
  }
  return undefined;
}

/**
 * True when one of the keys verifies the signature over the body. Throws WebhookVerificationError:
 * invalid_public_key when a key cannot be read, missing_header when there is no signature
 * (undefined, null or empty, as an absent x-signature header gives), malformed_signature when it is
 * not base64, body_not_raw for a parsed body. A well-formed signature that no key matches is `false`.
 * The keys are read first, so a broken key shows on the first delivery, whatever that one carries.
 */
export function verifySignature(
  rawBody: RawBody,
  signature: string | readonly string[] | null | undefined,
  publicKey: PublicKeyInput,
): boolean {
  const keys = toKeyList(publicKey);
  const bytes = rawBytes(rawBody);
  const given: unknown = Array.isArray(signature) ? signature[0] : signature;
  if (given === undefined || given === null || given === '') {
    throw new WebhookVerificationError('missing_header', `no signature: the ${SIGNATURE_HEADER} header is missing or empty`);
  }
  if (typeof given !== 'string') throw new WebhookVerificationError('malformed_signature', `${SIGNATURE_HEADER} must be a base64 string`);
  const sig = given.trim();
  if (!sig || !BASE64.test(sig)) throw new WebhookVerificationError('malformed_signature', `${SIGNATURE_HEADER} is not base64`);
  const sigBytes = Buffer.from(sig, 'base64');
  return keys.some((key) => verify('sha256', bytes, key, sigBytes));
}

/**
 * Verifies a delivery and returns its event. Throws WebhookVerificationError with code
 * invalid_public_key (checked first), missing_header, malformed_signature, no_key_matches,
 * body_not_raw or invalid_json.
 */
export function verifyWebhook<E = AnyWebhookEvent>(rawBody: RawBody, headers: HeaderBag, publicKey: PublicKeyInput): E {
  const keys = toKeyList(publicKey);
  const bytes = rawBytes(rawBody);
  const signature = headerValue(headers, SIGNATURE_HEADER);
  if (!signature) throw new WebhookVerificationError('missing_header', `the ${SIGNATURE_HEADER} header is missing`);
  if (!verifySignature(bytes, signature, keys)) {
    const keyId = headerValue(headers, KEY_ID_HEADER);
    throw new WebhookVerificationError('no_key_matches', `no public key verifies the signature${keyId ? ` (signed with ${keyId})` : ''}`);
  }
  try {
    return JSON.parse(bytes.toString('utf8')) as E;
  } catch {
    throw new WebhookVerificationError('invalid_json', 'the signed body is not JSON');
  }
}
