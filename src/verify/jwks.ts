/**
 * An organization's public keys from its JWKS URL (`/v1/organizations/{orgId}/jwks.json`, no
 * credentials): the set is fetched once and cached; a delivery that names a key id the cached set
 * lacks (a rotation since) fetches it again, at most once per `minRefreshIntervalMs`, so forged key
 * ids cannot turn into a stream of requests to borderd.
 *
 * @module verify/jwks
 */
import { createPublicKey, type JsonWebKey, type KeyObject } from 'node:crypto';
import { WebhookVerificationError } from './errors.js';
import type { AnyWebhookEvent } from './events.js';
import { DEFAULT_MIN_REFRESH_INTERVAL_MS, fromBorderd, type FetchPublicKeyOptions } from './public-key.js';
import { headerValue, KEY_ID_HEADER, verifyWebhook, type HeaderBag, type RawBody } from './signature.js';
import type { StandardWebhookOptions } from './standard-webhooks.js';
import { verifyStandardWebhookV1a } from './standard-webhooks-v1a.js';

/** The JWKS path of an organization, below borderd's base URL. */
export const jwksPath = (orgId: string): string => `/v1/organizations/${encodeURIComponent(orgId)}/jwks.json`;

/** One key of the set, as borderd publishes it. */
interface PublishedKey {
  kid: string;
  alg: string;
  key: KeyObject;
}

export interface JwksSource {
  /** The key of `kid`, fetching the set again (within the refresh bound) when the cached one lacks it; undefined if unknown. */
  key(kid: string): Promise<KeyObject | undefined>;
  /** Fetches the set again now (one fetch in flight at most), outside the bound. */
  refresh(): Promise<void>;
  /** Verifies `x-signature` with the RSA key named by `x-signature-key-id`. */
  verify<E = AnyWebhookEvent>(rawBody: RawBody, headers: HeaderBag): Promise<E>;
  /** Verifies the `v1a` signature of `webhook-signature` with the organization's Ed25519 keys. */
  verifyV1a<E = AnyWebhookEvent>(rawBody: RawBody, headers: HeaderBag, opts?: StandardWebhookOptions): Promise<E>;
}

/** The keys of a JWKS document that this library can use (RSA RS256, Ed25519 EdDSA); others are passed over. */
function readSet(body: unknown): PublishedKey[] {
  const keys = (body as { keys?: unknown } | null)?.keys;
  if (!Array.isArray(keys)) throw new WebhookVerificationError('no_public_key', 'the JWKS response has no keys array');
  const out: PublishedKey[] = [];
  for (const jwk of keys as Record<string, unknown>[]) {
    if (typeof jwk?.kid !== 'string' || (jwk.alg !== 'RS256' && jwk.alg !== 'EdDSA')) continue;
    try {
      out.push({ kid: jwk.kid, alg: jwk.alg, key: createPublicKey({ key: jwk as JsonWebKey, format: 'jwk' }) });
    } catch (err) {
      throw new WebhookVerificationError(
        'no_public_key',
        `the JWKS key ${jwk.kid} is not a readable public key: ${(err as Error).message}`,
      );
    }
  }
  return out;
}

/**
 * A JWKS source for `url`: borderd's base URL joined with `jwksPath(orgId)`, or the full URL.
 * Fetch failures are `no_public_key` (the middleware's 503, retried by borderd).
 */
export function fetchJwks(url: string, opts: Omit<FetchPublicKeyOptions, 'signal'> = {}): JwksSource {
  const f = opts.fetch ?? fetch;
  const minInterval = opts.minRefreshIntervalMs ?? DEFAULT_MIN_REFRESH_INTERVAL_MS;
  const now = opts.now ?? Date.now;
  let cached: PublishedKey[] | undefined;
  let inFlight: Promise<void> | undefined;
  let lastFetchAt = Number.NEGATIVE_INFINITY;

  const load = () =>
    fromBorderd('JWKS request', url, async (u) => {
      const res = await f(u, { headers: { accept: 'application/json' } });
      if (!res.ok) throw new WebhookVerificationError('no_public_key', `JWKS request failed with ${res.status}`, res.status);
      return readSet(await res.json());
    });

  const refresh = (): Promise<void> => {
    lastFetchAt = now();
    inFlight ??= load()
      .then((keys) => void (cached = keys))
      .finally(() => (inFlight = undefined));
    return inFlight;
  };

  /** Fetches again unless one was made less than the bound ago; the first fetch is never held back. */
  const refreshIfDue = async (): Promise<boolean> => {
    if (cached && now() - lastFetchAt < minInterval) return false;
    await refresh();
    return true;
  };

  const find = (kid: string) => cached?.find((k) => k.kid === kid)?.key;

  const key = async (kid: string): Promise<KeyObject | undefined> => {
    if (!cached) await refresh();
    return find(kid) ?? ((await refreshIfDue()) ? find(kid) : undefined);
  };

  const ed25519 = () => (cached ?? []).filter((k) => k.alg === 'EdDSA').map((k) => k.key);

  return {
    key,
    refresh,
    async verify<E = AnyWebhookEvent>(rawBody: RawBody, headers: HeaderBag): Promise<E> {
      const kid = headerValue(headers, KEY_ID_HEADER);
      if (!kid) throw new WebhookVerificationError('missing_header', `the ${KEY_ID_HEADER} header is missing`);
      const found = await key(kid);
      if (!found) throw new WebhookVerificationError('no_key_matches', `key ${kid} is not in the organization's JWKS`);
      return verifyWebhook<E>(rawBody, headers, found);
    },
    async verifyV1a<E = AnyWebhookEvent>(rawBody: RawBody, headers: HeaderBag, swOptions: StandardWebhookOptions = {}): Promise<E> {
      if (!cached) await refresh();
      const verifyWith = (keys: KeyObject[]) => {
        if (keys.length === 0) throw new WebhookVerificationError('no_key_matches', "the organization's JWKS has no Ed25519 key");
        return verifyStandardWebhookV1a<E>(rawBody, headers, keys, swOptions);
      };
      try {
        return verifyWith(ed25519());
      } catch (err) {
        // v1a names no key: a signature no cached key verifies may come from a key made since.
        if (!(err instanceof WebhookVerificationError) || err.code !== 'no_key_matches' || !(await refreshIfDue())) throw err;
        return verifyWith(ed25519());
      }
    },
  };
}
