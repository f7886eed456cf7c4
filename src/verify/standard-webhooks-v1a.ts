/**
 * Standard Webhooks' asymmetric signature: `v1a,<base64 Ed25519 signature>` entries of
 * `webhook-signature`, over the same `<webhook-id>.<webhook-timestamp>.<body>` as `v1`, made with
 * the organization's Ed25519 key (published in its JWKS as an OKP key, alg EdDSA). A receiver needs
 * no secret: the public key verifies. Only node:crypto is used.
 *
 * @module verify/standard-webhooks-v1a
 */
import { createPublicKey, KeyObject, sign, verify, type JsonWebKey } from 'node:crypto';
import { WebhookVerificationError } from './errors.js';
import type { AnyWebhookEvent } from './events.js';
import { headerValue, rawBytes, type HeaderBag, type RawBody } from './signature.js';
import {
  checkTimestamp,
  required,
  signedEvent,
  WEBHOOK_ID_HEADER,
  WEBHOOK_SIGNATURE_HEADER,
  WEBHOOK_TIMESTAMP_HEADER,
  type StandardWebhookOptions,
} from './standard-webhooks.js';

/** The Standard Webhooks prefix of an Ed25519 public key: `whpk_` + base64 of its 32 bytes. */
export const PUBLIC_KEY_PREFIX = 'whpk_';

/** An Ed25519 public key as a JWK (`{ kty: 'OKP', crv: 'Ed25519', x }`). */
export interface Ed25519Jwk {
  kty: 'OKP';
  crv: 'Ed25519';
  x: string;
  [member: string]: unknown;
}

/** A `whpk_…` key, a PEM, a JWK or a KeyObject; or several (current and replaced). */
export type Ed25519PublicKeyInput = string | Ed25519Jwk | KeyObject | readonly (string | Ed25519Jwk | KeyObject)[];

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

function invalid(detail: string): WebhookVerificationError {
  return new WebhookVerificationError('invalid_public_key', `the v1a public key ${detail}`);
}

/** One key as a KeyObject; throws `invalid_public_key` (without quoting it) for anything that is not an Ed25519 public key. */
function toEd25519(given: unknown): KeyObject {
  let key: KeyObject;
  try {
    if (given instanceof KeyObject) key = given;
    else if (typeof given === 'string' && given.trim().startsWith(PUBLIC_KEY_PREFIX)) {
      const b64 = given.trim().slice(PUBLIC_KEY_PREFIX.length);
      const raw = BASE64.test(b64) ? Buffer.from(b64, 'base64') : Buffer.alloc(0);
      if (raw.length !== 32) throw invalid('is not whpk_ followed by base64 of 32 bytes');
      key = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: raw.toString('base64url') }, format: 'jwk' });
    } else if (typeof given === 'string' && given.trim() !== '') key = createPublicKey(given);
    else if (given !== null && typeof given === 'object') key = createPublicKey({ key: given as JsonWebKey, format: 'jwk' });
    else throw invalid('must be whpk_…, a PEM, a JWK or a KeyObject: none was given (an unset environment variable?)');
  } catch (err) {
    if (err instanceof WebhookVerificationError) throw err;
    throw invalid(`cannot be read (${(err as Error).message})`);
  }
  if (key.type !== 'public' || key.asymmetricKeyType !== 'ed25519') throw invalid('is not an Ed25519 public key');
  return key;
}

/** The keys as KeyObjects; throws `invalid_public_key` for one that cannot be read. */
export function ed25519Keys(keys: Ed25519PublicKeyInput | undefined): KeyObject[] {
  const list: readonly unknown[] = Array.isArray(keys) ? keys : [keys];
  return list.map(toEd25519);
}

const signedBytes = (id: string, timestamp: number | string, body: string | Buffer): Buffer =>
  Buffer.concat([Buffer.from(`${id}.${timestamp}.`), typeof body === 'string' ? Buffer.from(body) : body]);

/** The `v1a,<base64>` signature of one delivery with an Ed25519 private key. */
export function signatureV1a(privateKey: KeyObject, id: string, timestamp: number, body: string | Buffer): string {
  return `v1a,${sign(null, signedBytes(id, timestamp, body), privateKey).toString('base64')}`;
}

/** The `v1a` signatures of a `webhook-signature` header; entries of other versions are passed over. */
function v1aSignatures(header: string): Buffer[] {
  const given: Buffer[] = [];
  for (const part of header.trim().split(/\s+/)) {
    const comma = part.indexOf(',');
    if (comma <= 0) throw new WebhookVerificationError('malformed_signature', `${WEBHOOK_SIGNATURE_HEADER} entries are <version>,<base64>`);
    if (part.slice(0, comma) !== 'v1a') continue;
    const sig = part.slice(comma + 1);
    if (!BASE64.test(sig))
      throw new WebhookVerificationError('malformed_signature', `a v1a signature of ${WEBHOOK_SIGNATURE_HEADER} is not base64`);
    given.push(Buffer.from(sig, 'base64'));
  }
  return given;
}

/** Whether the delivery's `webhook-signature` carries a `v1a` entry. */
export const hasV1aSignature = (headers: HeaderBag): boolean => /(^|\s)v1a,/.test(headerValue(headers, WEBHOOK_SIGNATURE_HEADER) ?? '');

/**
 * Verifies a delivery's `v1a` signature with the organization's Ed25519 public key(s) and returns
 * its event. Throws WebhookVerificationError: invalid_public_key (checked first), missing_header,
 * invalid_timestamp, timestamp_too_old, timestamp_too_new, malformed_signature, no_key_matches (no
 * v1a entry, or none a key verifies), body_not_raw or invalid_json.
 */
export function verifyStandardWebhookV1a<E = AnyWebhookEvent>(
  rawBody: RawBody,
  headers: HeaderBag,
  publicKey: Ed25519PublicKeyInput,
  opts: StandardWebhookOptions = {},
): E {
  const keys = ed25519Keys(publicKey);
  const bytes = rawBytes(rawBody);
  const id = required(headers, WEBHOOK_ID_HEADER);
  const timestamp = required(headers, WEBHOOK_TIMESTAMP_HEADER);
  const signatures = v1aSignatures(required(headers, WEBHOOK_SIGNATURE_HEADER));
  checkTimestamp(timestamp, opts);
  if (signatures.length === 0) {
    throw new WebhookVerificationError(
      'no_key_matches',
      `${WEBHOOK_SIGNATURE_HEADER} has no v1a signature (is v1a enabled for this webhook?)`,
    );
  }
  const signed = signedBytes(id, timestamp.trim(), bytes);
  if (!signatures.some((sig) => keys.some((key) => verify(null, signed, key, sig)))) {
    throw new WebhookVerificationError('no_key_matches', `no Ed25519 public key verifies the v1a signature of ${WEBHOOK_SIGNATURE_HEADER}`);
  }
  return signedEvent<E>(bytes, id, 'no_key_matches');
}
