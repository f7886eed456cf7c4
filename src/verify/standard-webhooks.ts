/**
 * Standard Webhooks (standardwebhooks.com): `webhook-id`, `webhook-timestamp` (unix seconds) and
 * `webhook-signature`, a space-separated list of `v1,<base64 HMAC-SHA256>` over
 * `<webhook-id>.<webhook-timestamp>.<body>` under the webhook's secret (`whsec_` + base64 of the key
 * bytes). Several signatures are there during a secret rotation; any one that matches is enough.
 * The timestamp is signed, so a delivery replayed later than the tolerance is refused. Only
 * node:crypto is used.
 *
 * @module verify/standard-webhooks
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { WebhookVerificationError } from './errors.js';
import type { AnyWebhookEvent } from './events.js';
import { headerValue, rawBytes, type HeaderBag, type RawBody } from './signature.js';

export const WEBHOOK_ID_HEADER = 'webhook-id';
export const WEBHOOK_TIMESTAMP_HEADER = 'webhook-timestamp';
export const WEBHOOK_SIGNATURE_HEADER = 'webhook-signature';
/** The prefix of a Standard Webhooks symmetric secret. */
export const SECRET_PREFIX = 'whsec_';
/** How far a `webhook-timestamp` may be from the receiver's clock, either way, by default: 5 minutes. */
export const DEFAULT_TOLERANCE_SECONDS = 300;

/** A `whsec_…` secret (or its base64 without the prefix), or several during a rotation. */
export type WebhookSecretInput = string | readonly string[];

export interface StandardWebhookOptions {
  /** Largest distance in seconds between `webhook-timestamp` and now, either way (default 300). */
  toleranceSeconds?: number;
  /** The receiver's clock in ms (default Date.now); injected by tests. */
  now?: () => number;
}

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/**
 * The key bytes of a `whsec_…` secret. Throws WebhookVerificationError `invalid_secret` for a
 * value that is not one (the receiver's setup), without quoting it.
 */
export function secretKey(secret: unknown): Buffer {
  if (typeof secret !== 'string' || secret.trim() === '') {
    throw new WebhookVerificationError(
      'invalid_secret',
      `the webhook secret must be a whsec_… string: ${secret === undefined || typeof secret === 'string' ? 'none was given (an unset environment variable?)' : `got ${typeof secret}`}`,
    );
  }
  const b64 = secret.trim().startsWith(SECRET_PREFIX) ? secret.trim().slice(SECRET_PREFIX.length) : secret.trim();
  const key = BASE64.test(b64) ? Buffer.from(b64, 'base64') : Buffer.alloc(0);
  if (key.length < 16)
    throw new WebhookVerificationError('invalid_secret', 'the webhook secret is not whsec_ followed by base64 of its key');
  return key;
}

/** The keys of one secret or several; throws `invalid_secret` for one that cannot be read. */
export function secretKeys(secrets: WebhookSecretInput | undefined): Buffer[] {
  const list: readonly unknown[] = Array.isArray(secrets) ? secrets : [secrets];
  return list.map(secretKey);
}

/** The `v1,<base64>` signature of one delivery under one key: HMAC-SHA256 of `id.timestamp.body`. */
export function signatureV1(key: Buffer, id: string, timestamp: number, body: string | Buffer): string {
  return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.`).update(body).digest('base64')}`;
}

/**
 * The three headers of a delivery signed with each of `keys` (the current secret first, then one
 * a rotation replaced): what borderd sends and what a test sender can make.
 */
export function standardWebhookHeaders(
  keys: readonly Buffer[],
  id: string,
  timestamp: number,
  body: string | Buffer,
): Record<'webhook-id' | 'webhook-timestamp' | 'webhook-signature', string> {
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': keys.map((key) => signatureV1(key, id, timestamp, body)).join(' '),
  };
}

/** Whether the delivery carries the Standard Webhooks headers (any of them). */
export const hasStandardWebhookHeaders = (headers: HeaderBag): boolean =>
  [WEBHOOK_ID_HEADER, WEBHOOK_TIMESTAMP_HEADER, WEBHOOK_SIGNATURE_HEADER].some((h) => headerValue(headers, h) !== undefined);

/**
 * Whether a receiver that holds the webhook's secret checks a delivery by Standard Webhooks: always,
 * so stripping the headers cannot skip the replay window, but for a delivery with none of them when
 * x-signature alone is explicitly allowed (a sender not yet migrated).
 */
export const needsStandardWebhooks = (headers: HeaderBag, allowXSignatureOnly: boolean | undefined): boolean =>
  !(allowXSignatureOnly && !hasStandardWebhookHeaders(headers));

/**
 * The tolerance in seconds, checked: anything but a finite number ≥ 0 (NaN, Infinity, a string from
 * an unparsed environment variable) throws `invalid_tolerance`, since NaN would compare false with
 * every distance and switch the replay window off.
 */
export function toleranceOf(opts: StandardWebhookOptions): number {
  const tolerance: unknown = opts.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  if (typeof tolerance !== 'number' || !Number.isFinite(tolerance) || tolerance < 0) {
    throw new WebhookVerificationError(
      'invalid_tolerance',
      `toleranceSeconds must be a finite number of seconds ≥ 0, not ${typeof tolerance === 'number' ? String(tolerance) : typeof tolerance}`,
    );
  }
  return tolerance;
}

export function required(headers: HeaderBag, name: string): string {
  const value = headerValue(headers, name);
  if (!value) throw new WebhookVerificationError('missing_header', `the ${name} header is missing`);
  return value;
}

/**
 * Checks the timestamp against the receiver's clock. The message says by how much it is off, so a
 * clock skew between two machines reads as such and not only as a replay.
 */
export function checkTimestamp(raw: string, opts: StandardWebhookOptions): void {
  if (!/^\d{1,12}$/.test(raw.trim())) {
    throw new WebhookVerificationError('invalid_timestamp', `${WEBHOOK_TIMESTAMP_HEADER} must be whole unix seconds`);
  }
  const tolerance = toleranceOf(opts);
  const nowSeconds = Math.floor((opts.now ?? Date.now)() / 1000);
  const off = nowSeconds - Number(raw.trim());
  const advice = 'if deliveries are fresh, the two clocks disagree: synchronize them (NTP) or raise the tolerance';
  if (off > tolerance) {
    throw new WebhookVerificationError(
      'timestamp_too_old',
      `${WEBHOOK_TIMESTAMP_HEADER} is ${off} s behind this machine's clock, more than the ${tolerance} s tolerance: a replayed delivery is refused; ${advice}`,
    );
  }
  if (-off > tolerance) {
    throw new WebhookVerificationError(
      'timestamp_too_new',
      `${WEBHOOK_TIMESTAMP_HEADER} is ${-off} s ahead of this machine's clock, more than the ${tolerance} s tolerance; ${advice}`,
    );
  }
}

/**
 * True when one of the `v1` signatures of the delivery matches one of the keys (constant-time).
 * Signatures of other versions (`v1a`) are passed over.
 */
function anyMatches(keys: readonly Buffer[], id: string, timestamp: string, bytes: Buffer, header: string): boolean {
  const given: Buffer[] = [];
  for (const part of header.trim().split(/\s+/)) {
    const comma = part.indexOf(',');
    if (comma <= 0) throw new WebhookVerificationError('malformed_signature', `${WEBHOOK_SIGNATURE_HEADER} entries are <version>,<base64>`);
    if (part.slice(0, comma) !== 'v1') continue;
    const sig = part.slice(comma + 1);
    if (!BASE64.test(sig))
      throw new WebhookVerificationError('malformed_signature', `a v1 signature of ${WEBHOOK_SIGNATURE_HEADER} is not base64`);
    given.push(Buffer.from(sig, 'base64'));
  }
  let matched = false;
  for (const key of keys) {
    const expected = createHmac('sha256', key).update(`${id}.${timestamp}.`).update(bytes).digest();
    // Every pair is compared, so the time taken does not tell which one matched.
    for (const sig of given) if (sig.length === expected.length && timingSafeEqual(sig, expected)) matched = true;
  }
  return matched;
}

/**
 * Verifies a Standard Webhooks delivery and returns its event. Throws WebhookVerificationError:
 * invalid_secret and invalid_tolerance (checked first), missing_header, invalid_timestamp, timestamp_too_old,
 * timestamp_too_new, malformed_signature, no_secret_matches, body_not_raw or invalid_json.
 */
export function verifyStandardWebhook<E = AnyWebhookEvent>(
  rawBody: RawBody,
  headers: HeaderBag,
  secret: WebhookSecretInput,
  opts: StandardWebhookOptions = {},
): E {
  const keys = secretKeys(secret);
  toleranceOf(opts);
  const bytes = rawBytes(rawBody);
  const id = required(headers, WEBHOOK_ID_HEADER);
  const timestamp = required(headers, WEBHOOK_TIMESTAMP_HEADER);
  const signature = required(headers, WEBHOOK_SIGNATURE_HEADER);
  checkTimestamp(timestamp, opts);
  if (!anyMatches(keys, id, timestamp.trim(), bytes, signature)) {
    throw new WebhookVerificationError('no_secret_matches', `no webhook secret verifies ${WEBHOOK_SIGNATURE_HEADER}`);
  }
  return signedEvent<E>(bytes, id, 'no_secret_matches');
}

/**
 * The event of a verified delivery. webhook-id is signed apart from the body: an id that is not the
 * event's would let a valid signature vouch for one event under another's id (and its
 * deduplication), so that is refused with `mismatch`, the code of a signature that does not verify.
 */
export function signedEvent<E>(bytes: Buffer, id: string, mismatch: 'no_secret_matches' | 'no_key_matches'): E {
  let event: E;
  try {
    event = JSON.parse(bytes.toString('utf8')) as E;
  } catch {
    throw new WebhookVerificationError('invalid_json', 'the signed body is not JSON');
  }
  const eventId = (event as { id?: unknown } | null)?.id;
  if (typeof eventId === 'string' && eventId !== id) {
    throw new WebhookVerificationError(mismatch, `${WEBHOOK_ID_HEADER} ${id} is not the id of the signed event`);
  }
  return event;
}
