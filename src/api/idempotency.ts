/**
 * Idempotency-Key on the API's POSTs (docs/api.md, "Idempotency-Key"): which requests take one,
 * what a well-formed key is, whose key it is, and the run of a keyed request, whose change and
 * kept answer commit in one transaction. The answer is replayed for the same key and the same
 * request until server.idempotencyKeyHours have passed. An answer no cache may keep
 * (`Cache-Control: no-store`: it carries a webhook secret) is kept with its body sealed under the
 * master key, bound to its caller and key, as the secrets table keeps the secret itself.
 *
 * @module api/idempotency
 */
import { createHash } from 'node:crypto';
import type { Request } from 'express';
import type { AppContext } from '../context.js';
import { tryHoldLock, type Db } from '../db/database.js';
import type { Commit } from '../db/group-commit.js';
import { HOUR_MS } from '../domain/clock.js';
import { BorderdError, badRequest } from '../domain/errors.js';
import { findKeptAnswer, keepAnswer, type KeptAnswer } from '../store/idempotency-keys.js';
import type { AuthContext } from '../services/tokens.js';

export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key';
export const REPLAYED_HEADER = 'Idempotent-Replayed';
export const IDEMPOTENCY_KEY_MAX = 255;
/** Letters, digits and `-_.:~+/=`: a UUID, a ULID or base64 text fits, and nothing a proxy or log could misread. */
const KEY = /^[A-Za-z0-9\-_.:~+/=]{1,255}$/;
export const IDEMPOTENCY_KEY_PATTERN = KEY.source;

/** Whether a route takes an Idempotency-Key: every POST a caller (a client or the operator) makes. */
export const takesIdempotencyKey = (spec: { method: string; auth: string }): boolean => spec.method === 'post' && spec.auth !== 'none';

/** An answer as it is kept and replayed: its body is JSON text. */
export interface Answer {
  status: number;
  headers: Record<string, string>;
  body: string | null;
}

export interface KeyedRequest {
  /** Whose key it is: the operator, or one client of one organization. */
  scope: string;
  key: string;
  /** What the key was sent with: the method, the path and the body (its JSON with keys in order). */
  fingerprint: string;
}

/** JSON text of a value with every object's keys sorted, so the same body spelled in another order is the same request. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * The request's key, its caller and its fingerprint; undefined without the header. A malformed key
 * is a 400. The key may come as a structured-field string (in double quotes), as the IETF draft
 * writes it.
 */
export function keyedRequest(req: Request, auth: AuthContext | undefined): KeyedRequest | undefined {
  const header = req.headers['idempotency-key'];
  if (header === undefined) return undefined;
  // Node joins repeated headers with ", ", which no key contains: two keys are refused like a bad one.
  const sent = Array.isArray(header) ? header.join(', ') : header;
  const key = /^".*"$/.test(sent) ? sent.slice(1, -1) : sent;
  if (!KEY.test(key)) {
    throw badRequest(
      'invalid_idempotency_key',
      `${IDEMPOTENCY_KEY_HEADER} must be 1 to ${IDEMPOTENCY_KEY_MAX} characters of letters, digits and -_.:~+/= (a UUID fits)`,
      [{ path: `headers.${IDEMPOTENCY_KEY_HEADER}`, message: `must match ${KEY.source}` }],
    );
  }
  const scope = auth ? `client:${auth.orgId}:${auth.clientId}` : 'operator';
  const fingerprint = createHash('sha256')
    .update(`${req.method} ${req.originalUrl}\n${canonicalJson(req.body)}`)
    .digest('hex');
  return { scope, key, fingerprint };
}

const inUse = (key: string): BorderdError =>
  new BorderdError(409, 'idempotency_key_in_use', `a request with ${IDEMPOTENCY_KEY_HEADER} ${key} is still running; retry it shortly`, {
    headers: { 'Retry-After': '1' },
  });

/** Whether an answer carries a secret (it says no cache may keep it): its kept body is sealed. */
const carriesSecret = (headers: Record<string, string>): boolean =>
  Object.entries(headers).some(([name, value]) => name.toLowerCase() === 'cache-control' && /\bno-store\b/i.test(value));

/** What a sealed body is bound to: a body copied to another caller's or another key's row does not open. */
const sealContext = ({ scope, key }: KeyedRequest): string => `idempotency_keys.body:${scope}\n${key}`;

/** The kept answer for a repeat of its request; a 422 for another request with the same key. */
function replay(ctx: AppContext, kept: KeptAnswer, request: KeyedRequest): { answer: Answer; replayed: true } {
  const { key, fingerprint } = request;
  if (kept.fingerprint !== fingerprint) {
    throw new BorderdError(
      422,
      'idempotency_key_reused',
      `${IDEMPOTENCY_KEY_HEADER} ${key} was used with another request (method, path or body); send a new key for a new request`,
    );
  }
  const headers = JSON.parse(kept.headers) as Record<string, string>;
  const body = kept.body !== null && carriesSecret(headers) ? ctx.secrets.open(kept.body, sealContext(request)) : kept.body;
  return { answer: { status: kept.status, headers, body }, replayed: true };
}

/** The keys whose first request is running in this process, per database. */
const running = new WeakMap<Db, Set<string>>();

/**
 * Runs a keyed request: the answer kept for its key (`replayed`), or `prepare` and then `work` and
 * the keeping of its answer in one transaction of `commit`. `prepare` runs outside the transaction
 * (what would hold it while awaited, a key pair made off the main thread), only when the request
 * does run; `work` gets its result, that transaction, and a commit that runs its writes there (as
 * savepoints). A request whose key is running, in this process or (PostgreSQL) on another node, is
 * a 409 with Retry-After; one whose key was used with another request is a 422. An error rolls back
 * the whole transaction: nothing is kept, and the key stays free.
 */
export async function runKeyed<X>(
  ctx: AppContext,
  commit: Commit,
  request: KeyedRequest,
  prepare: () => Promise<X>,
  work: (tx: Db, commit: Commit, prepared: X) => Promise<Answer | undefined>,
): Promise<{ answer: Answer | undefined; replayed: boolean }> {
  const { scope, key, fingerprint } = request;
  const id = `${scope}\n${key}`;
  let mine = running.get(ctx.db);
  if (!mine) running.set(ctx.db, (mine = new Set()));
  // Running here: on SQLite even a read would wait for its transaction.
  if (mine.has(id)) throw inUse(key);
  // A key already answered is replayed without a write transaction, however many repeats arrive at once.
  const answered = await findKeptAnswer(ctx.db, scope, key, ctx.clock.now());
  if (answered) return replay(ctx, answered, request);
  if (mine.has(id)) throw inUse(key);
  mine.add(id);
  try {
    const prepared = await prepare();
    return await commit(async (tx) => {
      if (!(await tryHoldLock(tx, `idempotency:${id}`))) throw inUse(key);
      const now = ctx.clock.now();
      // Answered since the look above: by another node, or by a request with this key that ended meanwhile.
      const kept = await findKeptAnswer(tx, scope, key, now);
      if (kept) return replay(ctx, kept, request);
      const answer = await work(tx, (fn) => tx.transaction(fn), prepared);
      if (answer) {
        const expiresAt = now + ctx.config.server.idempotencyKeyHours * HOUR_MS;
        const body =
          answer.body !== null && carriesSecret(answer.headers) ? ctx.secrets.seal(answer.body, sealContext(request)) : answer.body;
        await keepAnswer(tx, {
          scope,
          key,
          fingerprint,
          status: answer.status,
          headers: JSON.stringify(answer.headers),
          body,
          createdAt: now,
          expiresAt,
        });
      }
      return { answer, replayed: false };
    });
  } finally {
    mine.delete(id);
  }
}
