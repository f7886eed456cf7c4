/**
 * One decryption attempt per due row, from the stored raw body. Key-related failures (unknown kid,
 * wrong key) are retried on inbound.decryptRetrySeconds, since the operator may be importing the
 * key; a malformed or tampered token, or the last retry, ends in `failed` with its reason (the dead
 * letter), from where `borderd inbound retry` requeues it. A tampered or malformed copy gives way
 * to a redelivered copy held while it was queued, if there is one: that copy is queued instead. A
 * copy that fails for want of a key keeps its place, but each of its attempts also tries the held
 * copies: the first that decrypts takes its place (the stored copy may be a stranger's, posted first
 * under the eventId with a kid the organization never had).
 *
 * @module inbound/decryption
 */
import type { AppContext } from '../context.js';
import { isoAt } from '../domain/clock.js';
import {
  dueInboundEvents,
  listHeldCopies,
  promoteHeldCopy,
  recordAttempt,
  type HeldCopy,
  type InboundEvent,
} from '../store/inbound-events.js';
import { decryptJwe, JweDecryptError, type DecryptedJwe } from './jwe-decrypt.js';
import { privateKeyFor } from './keyring.js';
import { compactJweOf, inboundNotificationSchema, parseStoredBody } from './notification.js';
import type { Link, Span } from '@opentelemetry/api';
import { contextOf, linkToActive, startSpan } from '../tracing/spans.js';

export const payloadSealContext = (id: string) => `inbound_events.payload:${id}`;

/**
 * `replaced`: failed for its content, and a held redelivered copy was queued in its place.
 * `busy`: not recorded, another process held the write lock; the row stays due for a later pass.
 */
export type DecryptionOutcome = 'decrypted' | 'retry' | 'failed' | 'replaced' | 'skipped' | 'busy';

/** The delay before the retry that follows attempt number `attempt` (1-based), or undefined when none is left. */
export function retryDelayMs(schedule: number[], attempt: number): number | undefined {
  const seconds = schedule[attempt - 1];
  return seconds === undefined ? undefined : seconds * 1000;
}

/** A copy's token opened (or not), before anything about it is recorded. */
type OpenedCopy = ({ ok: true; payloadEnc: string } & Omit<DecryptedJwe, 'plaintext'>) | { ok: false; err: unknown };

/**
 * A row's attempt: its own copy opened, or, when that failed for want of a key, the held copy that
 * opened instead (`held`, with the stored copy's failure in `err`).
 */
type Opened = OpenedCopy | (Extract<OpenedCopy, { ok: true }> & { held: HeldCopy; err: JweDecryptError });

const keyRelated = (err: unknown): err is JweDecryptError => err instanceof JweDecryptError && err.retryable;

/** Parses and decrypts a row's stored copy, then its held copies after a key-related failure; writes nothing. */
async function open(ctx: AppContext, row: InboundEvent): Promise<Opened> {
  const own = await openCopy(ctx, row, row.rawBody);
  if (own.ok || !keyRelated(own.err)) return own;
  for (const held of await listHeldCopies(ctx.db, row.id)) {
    const opened = await openCopy(ctx, row, held.rawBody);
    if (opened.ok) return { ...opened, held, err: own.err };
  }
  return own;
}

/** Parses and decrypts one copy of a row's notification and seals the payload for the row. */
async function openCopy(ctx: AppContext, row: InboundEvent, rawBody: string): Promise<OpenedCopy> {
  try {
    const parsed = inboundNotificationSchema.safeParse(parseStoredBody(rawBody));
    if (!parsed.success) throw new JweDecryptError('malformed_jwe', 'the stored body no longer validates');
    const out = await decryptJwe(compactJweOf(parsed.data.data), (kid) => privateKeyFor(ctx, row.orgId!, kid));
    return {
      ok: true,
      kid: out.kid,
      enc: out.enc,
      tolerated: out.tolerated,
      payloadEnc: ctx.secrets.seal(out.plaintext, payloadSealContext(row.id)),
    };
  } catch (err) {
    return { ok: false, err };
  }
}

/** Records what opening the row gave: decrypted, or a failure to retry or to dead-letter. */
async function record(ctx: AppContext, row: InboundEvent, opened: Opened): Promise<DecryptionOutcome> {
  const now = ctx.clock.now();
  const at = isoAt(now);
  const orgId = row.orgId!;
  // The outcome is recorded only against the copy and organization it was made with: meanwhile
  // another process may have decrypted this row or replaced its copy with a held one, and an ica
  // mapping (between two rows of this batch, or elsewhere) may have moved it to another organization.
  const seen = { attempts: row.attempts, rawBody: row.rawBody, orgId };
  if (opened.ok && 'held' in opened) return recordHeldOpened(ctx, row, seen, opened, at);
  if (opened.ok) {
    // A lost outcome is redone from the stored raw body: no fsync needed (bookkeeping).
    const written = await ctx.db.tryTransaction(
      (tx) => recordAttempt(tx, row.id, seen, { state: 'decrypted', kid: opened.kid, payloadEnc: opened.payloadEnc, at }),
      { durability: 'bookkeeping' },
    );
    if (!written.ok) return 'busy';
    const done = written.value;
    if (done)
      ctx.log.info(
        { inboundId: row.id, eventId: row.eventId, orgId, kid: opened.kid, enc: opened.enc, tolerated: opened.tolerated },
        'card-network notification decrypted',
      );
    return done ? 'decrypted' : 'skipped';
  }
  const { err } = opened;
  const known = err instanceof JweDecryptError ? err : undefined;
  const code = known?.code ?? 'internal_error';
  const reason = known?.message ?? `unexpected error: ${(err as Error).message}`;
  const attemptNo = row.attempts + 1;
  const delay = known && !known.retryable ? undefined : retryDelayMs(ctx.config.inbound.decryptRetrySeconds, attemptNo);
  const next = delay === undefined ? null : isoAt(now + delay);
  const contentFailure = known !== undefined && !known.retryable;
  const written = await ctx.db.tryTransaction(
    async (tx) => {
      const recorded = await recordAttempt(tx, row.id, seen, {
        state: next ? 'received' : 'failed',
        kid: known?.kid ?? null,
        failureCode: code,
        failureReason: reason,
        nextAttemptAt: next,
        at,
      });
      // An altered copy: a redelivery held meanwhile may be the genuine one.
      return { done: recorded, promoted: recorded && contentFailure && (await promoteHeldCopy(tx, row.id, at)) };
    },
    { durability: 'bookkeeping' },
  );
  if (!written.ok) return 'busy';
  const { done, promoted } = written.value;
  const log = { inboundId: row.id, eventId: row.eventId, orgId, attempt: attemptNo, code, reason, nextAttemptAt: next };
  if (promoted) {
    ctx.log.warn(log, 'card-network notification decryption failed for its content; a redelivered copy held meanwhile takes its place');
    ctx.signals.inbound.emit();
  } else if (next) ctx.log.warn(log, 'card-network notification decryption failed; will retry');
  else ctx.log.error(log, 'card-network notification decryption failed; moved to the failed (dead-letter) state');
  if (!done) return 'skipped';
  if (promoted) return 'replaced';
  return next ? 'retry' : 'failed';
}

/**
 * The stored copy failed for want of a key and a held copy opened: the failure is recorded against
 * the stored copy, which moves to the replaced copies, and the held copy takes its place decrypted.
 * All in one transaction, guarded like any outcome by the copy and organization seen.
 */
async function recordHeldOpened(
  ctx: AppContext,
  row: InboundEvent,
  seen: { attempts: number; rawBody: string; orgId: string },
  opened: Extract<Opened, { held: HeldCopy }>,
  at: string,
): Promise<DecryptionOutcome> {
  const { err, held } = opened;
  const written = await ctx.db.tryTransaction(
    async (tx) => {
      const failure = { state: 'received' as const, kid: err.kid ?? null, failureCode: err.code, failureReason: err.message };
      if (!(await recordAttempt(tx, row.id, seen, { ...failure, nextAttemptAt: at, at }))) return false;
      if (!(await promoteHeldCopy(tx, row.id, at, held.seq))) return false;
      const promoted = { attempts: 0, rawBody: held.rawBody, orgId: seen.orgId };
      return recordAttempt(tx, row.id, promoted, { state: 'decrypted', kid: opened.kid, payloadEnc: opened.payloadEnc, at });
    },
    { durability: 'bookkeeping' },
  );
  if (!written.ok) return 'busy';
  if (!written.value) return 'skipped';
  ctx.log.warn(
    { inboundId: row.id, eventId: row.eventId, orgId: seen.orgId, kid: opened.kid, code: err.code, heldSeq: held.seq },
    'card-network notification decrypted from a held copy; the stored copy, which failed for want of a key, is kept as replaced',
  );
  return 'decrypted';
}

/**
 * Tokens being opened at once. The RSA unwrap runs on libuv's thread pool (jwe-decrypt.ts); one at
 * a time would leave every core but one idle while a queue waits. Two of the pool's four threads:
 * webhook signatures keep the others.
 */
export const OPENS_IN_FLIGHT = 2;

/**
 * Attempts every due row (up to batchSize); returns what happened to each. Up to OPENS_IN_FLIGHT
 * rows are being decrypted ahead, and outcomes are recorded one row at a time in queue order. The
 * event loop gets a turn after each row: requests and sends run between two decryptions, however
 * long the queue. A stop waits for the pass; rows opened ahead and not yet recorded leave no trace,
 * and so do rows a held write lock kept from being recorded: they stay due.
 */
export async function decryptDue(ctx: AppContext): Promise<Record<DecryptionOutcome, number>> {
  const counts: Record<DecryptionOutcome, number> = { decrypted: 0, retry: 0, failed: 0, replaced: 0, skipped: 0, busy: 0 };
  const rows = await dueInboundEvents(ctx.db, isoAt(ctx.clock.now()), ctx.config.inbound.batchSize);
  const pass = linkToActive();
  const begin = (row: InboundEvent) => ({ span: attemptSpan(row, pass), opened: open(ctx, row) });
  const opening = rows.slice(0, OPENS_IN_FLIGHT).map(begin);
  let i = 0;
  try {
    for (; i < rows.length; i++) {
      const { span, opened } = opening[i]!;
      const result = await opened;
      // Only now the next one: at most OPENS_IN_FLIGHT opening at once.
      const ahead = rows[i + OPENS_IN_FLIGHT];
      if (ahead) opening.push(begin(ahead));
      const outcome = await record(ctx, rows[i]!, result);
      counts[outcome]++;
      span?.setAttribute('borderd.outcome', outcome);
      span?.end();
      // Another process holds the write lock: the rest of the batch waits for the next pass (the
      // worker's poll), rather than this thread waiting in SQLite's busy wait with every request.
      if (outcome === 'busy') {
        i++;
        break;
      }
      await new Promise((resolve) => setImmediate(resolve));
    }
  } finally {
    // Opened ahead and not recorded (the write lock was held, or recording threw): they leave no outcome.
    for (const { span } of opening.slice(i)) span?.end();
  }
  return counts;
}

/**
 * A row's decryption attempt: a child of the intake span that stored its copy (the notification's
 * trace goes on from the card network's request to its decryption), linked to the pass that ran it.
 * A row stored without tracing is a child of the pass.
 */
function attemptSpan(row: InboundEvent, pass: Link | undefined): Span | undefined {
  const attributes = { 'borderd.inbound_id': row.id, 'borderd.inbound_event_type': row.eventType, 'borderd.attempt': row.attempts + 1 };
  if (row.traceContext === null) return startSpan('inbound decryption attempt', { attributes });
  return startSpan('inbound decryption attempt', {
    attributes,
    parent: contextOf({ traceparent: row.traceContext }),
    ...(pass && { links: [pass] }),
  });
}
