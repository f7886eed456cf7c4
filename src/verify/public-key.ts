/**
 * An organization's public key from borderd: the token exchange, the key request, and a cached
 * source that fetches again once when a signature does not verify, so a key rotation heals by
 * itself.
 *
 * @module verify/public-key
 */
import { WebhookVerificationError } from './errors.js';
import { fetchFailure } from './fetch-failure.js';
import { headerValue, KEY_ID_HEADER, toKeyList, verifyWebhook, type HeaderBag, type RawBody } from './signature.js';
import type { AnyWebhookEvent } from './events.js';

/** The answer of GET /v1/notifications/webhooks/settings/public-key. */
export interface OrgPublicKey {
  keyId: string;
  publicKey: string;
  algorithm: 'RSA-SHA256';
  createdAt: string;
  /** Only on a replaced key asked for by its id: when a rotation replaced it. */
  retiredAt?: string;
}

export interface ClientCredentials {
  clientId: string;
  clientSecret: string;
}

export const PUBLIC_KEY_PATH = '/v1/notifications/webhooks/settings/public-key';
export const TOKEN_PATH = '/v1/auth/m2m/token';

/**
 * The org's public key, fetched once and cached. `verify` refreshes once when a signature does not
 * verify with the cached key, so a key rotation heals by itself; a second failure is an error.
 */
export interface PublicKeySource {
  get(): Promise<OrgPublicKey>;
  /** Drops the cache and fetches again (at most one fetch in flight). */
  refresh(): Promise<OrgPublicKey>;
  verify<E = AnyWebhookEvent>(rawBody: RawBody, headers: HeaderBag): Promise<E>;
}

export interface FetchPublicKeyOptions {
  /** Injected for tests; defaults to the global fetch. */
  fetch?: typeof fetch;
  /**
   * Least time between two refreshes caused by failed signatures (default 3 s; the first one is
   * never held back), so a stream of forged deliveries cannot turn into a stream of key fetches.
   * A real rotation that lands inside this window after a forgery fails once and heals on the
   * sender's next attempt: borderd's first retry comes 5 s (±20%) later, above the default.
   */
  minRefreshIntervalMs?: number;
  /** Clock in ms (injected for tests); defaults to Date.now. */
  now?: () => number;
  /** Aborts the token request (a caller's timeout or shutdown). */
  signal?: AbortSignal;
}

/** Below borderd's first retry delay (5 s minus its 20% jitter), so a rotation heals on that retry. */
export const DEFAULT_MIN_REFRESH_INTERVAL_MS = 3_000;

/** Keys kept by id: the current one and those of the rotation overlap, with room for a few rotations. */
const KEPT_BY_ID = 8;

const trimSlash = (url: string) => url.replace(/\/+$/, '');

/**
 * Runs one request to borderd: a failure to reach it (fetch rejects with a TypeError) or to read its
 * answer (not JSON) is `no_public_key`, the documented code, so callers and the middleware (503)
 * can tell "no key to verify with" from a bad delivery.
 */
export async function fromBorderd<T>(what: string, url: string, fn: (url: string) => Promise<T>): Promise<T> {
  try {
    return await fn(url);
  } catch (err) {
    if (err instanceof WebhookVerificationError) throw err;
    throw new WebhookVerificationError('no_public_key', `${what} failed: ${fetchFailure(err, url)}`);
  }
}

/**
 * Requests carrying credentials (the client secret, a bearer token) are sent only to the URL given:
 * a redirect is refused, never followed to another address (as borderd's own outbound calls).
 */
function refuseRedirect(what: string, res: Response): void {
  if (res.status >= 300 && res.status < 400) {
    throw new WebhookVerificationError(
      'no_public_key',
      `${what} answered ${res.status} (a redirect): not followed, credentials go only to the URL given`,
      res.status,
    );
  }
}

/** Exchanges client credentials for a bearer token (POST /v1/auth/m2m/token). */
export async function fetchAccessToken(baseUrl: string, credentials: ClientCredentials, opts: FetchPublicKeyOptions = {}): Promise<string> {
  const f = opts.fetch ?? fetch;
  return fromBorderd('token request', trimSlash(baseUrl) + TOKEN_PATH, async (url) => {
    const res = await f(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ clientId: credentials.clientId, clientSecret: credentials.clientSecret }),
      // Never followed: a 307 or 308 would send the client secret on to whatever address it names.
      redirect: 'manual',
      ...(opts.signal ? { signal: opts.signal } : {}),
    });
    refuseRedirect('token request', res);
    if (!res.ok) throw new WebhookVerificationError('no_public_key', `token request failed with ${res.status}`, res.status);
    const body = (await res.json()) as { accessToken?: unknown };
    if (typeof body.accessToken !== 'string') throw new WebhookVerificationError('no_public_key', 'token response has no accessToken');
    return body.accessToken;
  });
}

export function fetchPublicKey(baseUrl: string, credentials: ClientCredentials, opts: FetchPublicKeyOptions = {}): PublicKeySource {
  const f = opts.fetch ?? fetch;
  let cached: OrgPublicKey | undefined;
  let inFlight: Promise<OrgPublicKey> | undefined;
  let forcedAt = Number.NEGATIVE_INFINITY;
  const minInterval = opts.minRefreshIntervalMs ?? DEFAULT_MIN_REFRESH_INTERVAL_MS;
  const now = opts.now ?? Date.now;

  /** The current key, or with `keyId` that key (404: undefined, a key borderd does not publish). */
  async function load(): Promise<OrgPublicKey>;
  async function load(keyId: string): Promise<OrgPublicKey | undefined>;
  async function load(keyId?: string): Promise<OrgPublicKey | undefined> {
    const token = await fetchAccessToken(baseUrl, credentials, { fetch: f });
    const query = keyId === undefined ? '' : `?keyId=${encodeURIComponent(keyId)}`;
    return fromBorderd('public key request', trimSlash(baseUrl) + PUBLIC_KEY_PATH + query, async (url) => {
      const res = await f(url, {
        headers: { authorization: `Bearer ${token}`, accept: 'application/json' },
        redirect: 'manual',
      });
      refuseRedirect('public key request', res);
      if (keyId !== undefined && res.status === 404) return undefined;
      if (!res.ok) throw new WebhookVerificationError('no_public_key', `public key request failed with ${res.status}`, res.status);
      const body = (await res.json()) as Partial<OrgPublicKey>;
      if (typeof body.publicKey !== 'string' || typeof body.keyId !== 'string') {
        throw new WebhookVerificationError('no_public_key', 'public key response lacks keyId or publicKey');
      }
      // An answer that is not a key is borderd's (or a proxy's) trouble, not the integrator's setup:
      // no_public_key (the middleware's 503, retried), not invalid_public_key, and it is not cached.
      try {
        toKeyList(body.publicKey);
      } catch (err) {
        throw new WebhookVerificationError('no_public_key', `public key response holds no readable public key: ${(err as Error).message}`);
      }
      const key: OrgPublicKey = {
        keyId: body.keyId,
        publicKey: body.publicKey,
        algorithm: 'RSA-SHA256',
        createdAt: String(body.createdAt ?? ''),
      };
      return typeof body.retiredAt === 'string' ? { ...key, retiredAt: body.retiredAt } : key;
    });
  }
  /** Keys asked for by id (a delivery signed before a rotation, or after one this cache has not seen): a few, newest last. */
  const byId = new Map<string, OrgPublicKey>();

  const refresh = (): Promise<OrgPublicKey> => {
    inFlight ??= load()
      .then((key) => (cached = key))
      .finally(() => (inFlight = undefined));
    return inFlight;
  };

  const get = async (): Promise<OrgPublicKey> => cached ?? refresh();

  return {
    get,
    refresh,
    async verify<E = AnyWebhookEvent>(rawBody: RawBody, headers: HeaderBag): Promise<E> {
      const key = await get();
      // A delivery that names another key than the cached one: that key, asked for by its id, within
      // the same bound on requests as a refresh, so forged key ids cannot make one request each.
      const kid = headerValue(headers, KEY_ID_HEADER);
      if (kid && kid !== key.keyId) {
        let named = byId.get(kid);
        if (!named && now() - forcedAt >= minInterval) {
          forcedAt = now();
          named = await load(kid);
          // borderd's answer settles it: a key it does not publish signed nothing it sent.
          if (!named)
            throw new WebhookVerificationError('no_key_matches', `borderd publishes no key ${kid} (unknown, or replaced too long ago)`);
          // The current key, newer than the cached one, replaces it (a replaced key comes with retiredAt).
          if (!named.retiredAt) cached = named;
          if (byId.size >= KEPT_BY_ID) byId.delete(byId.keys().next().value!);
          byId.set(kid, named);
        }
        if (named) return verifyWebhook<E>(rawBody, headers, named.publicKey);
      }
      try {
        return verifyWebhook<E>(rawBody, headers, key.publicKey);
      } catch (err) {
        if (!(err instanceof WebhookVerificationError) || err.code !== 'no_key_matches') throw err;
        if (now() - forcedAt < minInterval) throw err;
        forcedAt = now();
        const fresh = await refresh();
        if (fresh.publicKey === key.publicKey) throw err;
        return verifyWebhook<E>(rawBody, headers, fresh.publicKey);
      }
    },
  };
}
