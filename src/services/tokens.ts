/**
 * Issues and verifies M2M access tokens. The signing key is an ES256 pair made on first use, its
 * private half sealed under the master key in token_keys; verification keys are cached by kid.
 *
 * @module services/tokens
 */
import { exportJWK, generateKeyPair, importJWK, SignJWT, jwtVerify, decodeProtectedHeader, errors, type CryptoKey, type JWK } from 'jose';
import { z } from 'zod';
import type { AppContext } from '../context.js';
import { isoAt } from '../domain/clock.js';
import { Admission } from '../domain/admission.js';
import { addressKey, FailureBudget } from '../domain/failure-budget.js';
import { remember } from '../domain/bounded-map.js';
import { BorderdError, forbidden, unauthorized } from '../domain/errors.js';
import { newId } from '../domain/ids.js';
import { DUMMY_HASH, verifySecret } from '../security/secret-hash.js';
import { getApiClientWithHash, getClientStanding, type ApiClient, type PiiAccess } from '../store/api-clients.js';
import { getActiveTokenKey, getTokenKey, insertTokenKey } from '../store/token-keys.js';

/** The one algorithm access tokens are signed with; anything else in a header is refused. */
export const TOKEN_ALG = 'ES256';

export interface AuthContext {
  orgId: string;
  clientId: string;
  piiAccess: PiiAccess;
}

export const piiAccessSchema = z.enum(['all', 'redacted']) satisfies z.ZodType<PiiAccess>;

/** An access token as the token endpoint answers it. */
export const issuedTokenSchema = z.object({
  accessToken: z.string(),
  tokenType: z.literal('Bearer'),
  expiresIn: z.number(),
  piiAccess: piiAccessSchema,
});
export type IssuedToken = z.infer<typeof issuedTokenSchema>;

interface Claims {
  org?: unknown;
  pii?: unknown;
}

/** The claims of a token whose signature and claims were verified, as the cache keeps them. */
export interface VerifiedClaims {
  sub: string | undefined;
  org: unknown;
  pii: PiiAccess;
  /** exp and nbf in epoch seconds, as in the token. */
  exp: number;
  nbf: number | undefined;
}

/** Verified tokens kept per process: enough for every client of a busy daemon, a few MB at most. */
const VERIFIED_TOKEN_CACHE_SIZE = 4096;

/**
 * Tokens whose ES256 signature and claims already verified, keyed by the exact token string, so a
 * client presenting the same token again skips the signature check, the costliest part of
 * authenticating a request. An entry is used only while the token is within nbf..exp by the
 * injected clock (the same rule jose applies: expired once exp <= now in whole seconds); any other
 * string, including a token altered by one character, is a miss and is verified in full. Bounded,
 * least recently used out. It holds no decision about the client: revocation is checked per
 * request.
 */
export class VerifiedTokenCache {
  readonly #entries = new Map<string, VerifiedClaims>();

  constructor(readonly maxEntries: number = VERIFIED_TOKEN_CACHE_SIZE) {}

  get size(): number {
    return this.#entries.size;
  }

  get(token: string, nowMs: number): VerifiedClaims | undefined {
    const hit = this.#entries.get(token);
    if (!hit) return undefined;
    const nowSec = Math.floor(nowMs / 1000);
    this.#entries.delete(token);
    if (hit.exp <= nowSec) return undefined; // expired: dropped, and the full check says why
    if (hit.nbf !== undefined && hit.nbf > nowSec) return undefined; // a clock moved back: verify again
    this.#entries.set(token, hit); // most recently used last
    return hit;
  }

  set(token: string, claims: VerifiedClaims): void {
    remember(this.#entries, token, claims, this.maxEntries);
  }
}

/** Token requests waiting for a secret check (auth.secretChecksAtOnce) before one more is a 503. */
const SECRET_CHECKS_WAITING = 100;

/** How long a client issued a token counts as known, and how long a wrong secret marks its address. */
const KNOWN_CLIENT_MS = 24 * 60 * 60 * 1000;
const RECENT_FAILURE_MS = 10 * 60 * 1000;
/** Clients and addresses remembered for that (least recent go first): memory stays bounded under a flood. */
const REMEMBERED = 10_000;

/**
 * The share of auth.secretChecksAtOnce kept for known clients (half, rounded down): a flood of wrong
 * secrets from many addresses fills the other checks and their queue, never these.
 */
export const reservedSecretChecks = (atOnce: number): number => Math.floor(atOnce / 2);

export class TokenService {
  #signing?: { kid: string; key: CryptoKey };
  readonly #verifying = new Map<string, CryptoKey>();
  readonly #verified: VerifiedTokenCache;
  readonly #secretChecks: Admission;
  /** Undefined when auth.secretChecksAtOnce is 1: nothing to keep in reserve. */
  readonly #reservedChecks: Admission | undefined;
  readonly #failures: FailureBudget;
  /** Client id -> when it was last issued a token; address -> when it last sent wrong credentials. */
  readonly #knownClients = new Map<string, number>();
  readonly #failedAddresses = new Map<string, number>();

  constructor(
    private readonly ctx: AppContext,
    opts: { verifiedTokenCacheSize?: number } = {},
  ) {
    this.#verified = new VerifiedTokenCache(opts.verifiedTokenCacheSize);
    const atOnce = ctx.config.auth.secretChecksAtOnce;
    const reserved = reservedSecretChecks(atOnce);
    this.#secretChecks = new Admission(atOnce - reserved, SECRET_CHECKS_WAITING);
    this.#reservedChecks = reserved > 0 ? new Admission(reserved, SECRET_CHECKS_WAITING) : undefined;
    this.#failures = new FailureBudget(ctx.config.auth.failedTokenRequestsPerMinute);
  }

  async #signingKey(): Promise<{ kid: string; key: CryptoKey }> {
    if (this.#signing) return this.#signing;
    let row = await getActiveTokenKey(this.ctx.db);
    if (!row) {
      const { publicKey, privateKey } = await generateKeyPair(TOKEN_ALG, { extractable: true });
      const kid = newId('key', this.ctx.clock.now());
      const candidate = {
        kid,
        alg: TOKEN_ALG,
        public_jwk: JSON.stringify(await exportJWK(publicKey)),
        private_enc: this.ctx.secrets.seal(JSON.stringify(await exportJWK(privateKey)), `token_keys.private:${kid}`),
        created_at: isoAt(this.ctx.clock.now()),
        retired_at: null,
      };
      // Another process may have created one meanwhile; keep whichever is active after our write.
      await this.ctx.db.transaction(async (tx) => {
        if (!(await getActiveTokenKey(tx))) await insertTokenKey(tx, candidate);
      });
      row = (await getActiveTokenKey(this.ctx.db))!;
    }
    const jwk = JSON.parse(this.ctx.secrets.open(row.private_enc, `token_keys.private:${row.kid}`)) as JWK;
    this.#signing = { kid: row.kid, key: (await importJWK(jwk, row.alg)) as CryptoKey };
    return this.#signing;
  }

  async #verificationKey(kid: string): Promise<CryptoKey | undefined> {
    const cached = this.#verifying.get(kid);
    if (cached) return cached;
    const row = await getTokenKey(this.ctx.db, kid);
    if (!row || row.retired_at) return undefined;
    const key = (await importJWK(JSON.parse(row.public_jwk) as JWK, row.alg)) as CryptoKey;
    this.#verifying.set(kid, key);
    return key;
  }

  /** Makes sure a signing key exists (at start-up, so the first token request is not slower). */
  async warmUp(): Promise<void> {
    await this.#signingKey();
  }

  /**
   * A known client (issued a token in the last day, by this process) asking from an address with no
   * wrong credentials in the last minutes: it may use the checks kept in reserve. Anyone can claim a
   * client id, so the address condition keeps a flood that names a known id out of the reserve
   * after its first wrong secret per address.
   */
  #known(clientId: string, from: string): boolean {
    const now = this.ctx.clock.now();
    const issuedAt = this.#knownClients.get(clientId);
    const failedAt = this.#failedAddresses.get(from);
    return issuedAt !== undefined && now - issuedAt < KNOWN_CLIENT_MS && (failedAt === undefined || now - failedAt >= RECENT_FAILURE_MS);
  }

  /**
   * A place to check a secret: one of the shared checks, or for a known client (#known) a free
   * shared one else one of the reserve. Undefined when the queue it would join is full.
   */
  async #secretCheck(clientId: string, from: string): Promise<(() => void) | undefined> {
    if (!this.#reservedChecks || !this.#known(clientId, from)) return this.#secretChecks.enter();
    return this.#secretChecks.tryEnter() ?? (await this.#reservedChecks.enter());
  }

  /**
   * The active client these credentials name, or undefined (unknown id, wrong secret or revoked,
   * which the caller answers alike). At most auth.secretChecksAtOnce checks run at once, a share of
   * them kept for known clients; a request that finds its queue full is a 503, and its try is given
   * back (it was not a wrong secret).
   */
  async #activeClient(clientId: string, clientSecret: string, from: string): Promise<ApiClient | undefined> {
    const release = await this.#secretCheck(clientId, from);
    if (!release) {
      throw new BorderdError(503, 'too_many_token_requests', 'too many token requests are being checked at once; retry in a moment', {
        headers: { 'Retry-After': '1' },
      });
    }
    try {
      // Read once admitted: a client revoked while this request waited its turn is seen as revoked.
      const found = await getApiClientWithHash(this.ctx.db, clientId);
      // The same scrypt work runs for an unknown id as for a wrong secret: the two are indistinguishable.
      const ok = await verifySecret(clientSecret, found?.secretHash ?? DUMMY_HASH);
      return found && ok && !found.client.revokedAt ? found.client : undefined;
    } finally {
      // Whatever happened (a read that failed too), the place goes back.
      release();
    }
  }

  /**
   * `address` is the client's address (the socket's, or the one a trusted proxy reports): its failed
   * requests are counted, and one that used up auth.failedTokenRequestsPerMinute is answered 429
   * before its secret is checked, whatever it sends.
   */
  async issue(input: { clientId: string; clientSecret: string; piiAccess?: PiiAccess | undefined }, address = ''): Promise<IssuedToken> {
    const from = addressKey(address);
    const waitMs = this.#failures.waitMs(from, this.ctx.clock.now());
    if (waitMs > 0) {
      throw new BorderdError(
        429,
        'too_many_failed_token_requests',
        'too many token requests with wrong credentials came from this address; retry later',
        {
          headers: { 'Retry-After': String(Math.ceil(waitMs / 1000)) },
        },
      );
    }
    // A try is spent before the secret is checked and given back unless the credentials are wrong:
    // counted only after the check, every request of a concurrent burst would pass the test above
    // before the first failure was counted.
    this.#failures.spend(from, this.ctx.clock.now());
    // Only wrong credentials keep the try spent: a 503 or a failed read did not fail a secret.
    let client: ApiClient | undefined;
    try {
      client = await this.#activeClient(input.clientId, input.clientSecret, from);
    } catch (err) {
      this.#failures.refund(from, this.ctx.clock.now());
      throw err;
    }
    if (!client) {
      remember(this.#failedAddresses, from, this.ctx.clock.now(), REMEMBERED);
      throw unauthorized('invalid_client', 'clientId and clientSecret do not match an active client');
    }
    this.#failures.refund(from, this.ctx.clock.now());
    remember(this.#knownClients, client.id, this.ctx.clock.now(), REMEMBERED);
    let piiAccess: PiiAccess = input.piiAccess ?? client.piiAccess;
    if (client.piiAccess === 'redacted' && piiAccess === 'all') {
      throw forbidden('pii_access_denied', 'this client may only request piiAccess "redacted"');
    }
    const { kid, key } = await this.#signingKey();
    const ttl = this.ctx.config.auth.tokenTtlSeconds;
    const nowSec = Math.floor(this.ctx.clock.now() / 1000);
    const accessToken = await new SignJWT({ org: client.orgId, pii: piiAccess })
      .setProtectedHeader({ alg: TOKEN_ALG, kid, typ: 'JWT' })
      .setIssuer(this.ctx.config.auth.issuer)
      .setSubject(client.id)
      .setIssuedAt(nowSec)
      .setExpirationTime(nowSec + ttl)
      .setJti(newId('req', this.ctx.clock.now()))
      .sign(key);
    piiAccess = piiAccess === 'redacted' ? 'redacted' : 'all';
    return { accessToken, tokenType: 'Bearer', expiresIn: ttl, piiAccess };
  }

  async verify(token: string): Promise<AuthContext> {
    const claims = this.#verified.get(token, this.ctx.clock.now()) ?? (await this.#verifyToken(token));
    // Per request, cached or not: a revoked client's tokens stop working at once (one primary-key read).
    const client = claims.sub ? await getClientStanding(this.ctx.db, claims.sub) : undefined;
    if (!client || client.orgId !== claims.org) throw unauthorized('unknown_client', 'the token names no known client');
    if (client.revoked) throw unauthorized('client_revoked', 'the client of this token has been revoked');
    return { orgId: client.orgId, clientId: client.id, piiAccess: claims.pii };
  }

  /** The full check (header, key, ES256 signature, issuer, exp), remembered when it passes. */
  async #verifyToken(token: string): Promise<VerifiedClaims> {
    let header: ReturnType<typeof decodeProtectedHeader>;
    try {
      header = decodeProtectedHeader(token);
    } catch {
      throw unauthorized('malformed_token', 'the bearer token is not a JWT');
    }
    if (header.alg !== TOKEN_ALG) {
      throw unauthorized('unsupported_token_algorithm', `token algorithm ${String(header.alg)} is not accepted`);
    }
    const key = typeof header.kid === 'string' ? await this.#verificationKey(header.kid) : undefined;
    if (!key) throw unauthorized('unknown_token_key', 'the token was not signed by a key of this service');
    let payload: Claims & { sub?: string; exp?: number; nbf?: number };
    try {
      ({ payload } = await jwtVerify(token, key, {
        algorithms: [TOKEN_ALG],
        issuer: this.ctx.config.auth.issuer,
        currentDate: new Date(this.ctx.clock.now()),
        requiredClaims: ['exp', 'sub'],
      }));
    } catch (err) {
      if (err instanceof errors.JWTExpired) throw unauthorized('token_expired', 'the access token has expired');
      if (err instanceof errors.JWSSignatureVerificationFailed)
        throw unauthorized('bad_token_signature', 'the token signature does not verify');
      if (err instanceof errors.JWTClaimValidationFailed) throw unauthorized('invalid_token_claims', `token claim ${err.claim} is invalid`);
      throw unauthorized('malformed_token', 'the bearer token could not be verified');
    }
    const claims: VerifiedClaims = {
      sub: payload.sub,
      org: payload.org,
      pii: payload.pii === 'redacted' ? 'redacted' : 'all',
      exp: payload.exp!, // required above
      nbf: payload.nbf,
    };
    this.#verified.set(token, claims);
    return claims;
  }
}
