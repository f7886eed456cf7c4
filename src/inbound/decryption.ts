import { bookkeeping } from '../db/open.js';
import type { AppContext } from '../context.js';
import { isoAt } from '../domain/clock.js';
import { dueInboundEvents, promoteHeldCopy, recordAttempt, type InboundEvent } from '../store/inbound-events.js';
import { decryptJwe, JweDecryptError } from './jwe-decrypt.js';
import { privateKeyFor } from './keyring.js';
import { compactJweOf, inboundNotificationSchema, parseStoredBody } from './notification.js';
import { INBOUND_SIGNAL } from './signals.js';

/**
 * One decryption attempt per due row, from the stored raw body. Key-related failures (unknown kid,
 * wrong key) are retried on inbound.decryptRetrySeconds, since the operator may be importing the key;
 * a malformed or tampered token, or the last retry, ends in `failed` with its reason (the dead
 * letter), from where `borderd inbound retry` requeues it. A tampered or malformed copy gives way
 * to a redelivered copy held while it was queued, if there is one: that copy is queued instead.
 */
export const payloadSealContext = (id: string) => `inbound_events.payload:${id}`;

/** `replaced`: failed for its content, and a held redelivered copy was queued in its place. */
export type AttemptOutcome = 'decrypted' | 'retry' | 'failed' | 'replaced' | 'skipped';

/** The delay before the retry that follows attempt number `attempt` (1-based), or undefined when none is left. */
export function retryDelayMs(schedule: number[], attempt: number): number | undefined {
  const seconds = schedule[attempt - 1];
  return seconds === undefined ? undefined : seconds * 1000;
}

async function attempt(ctx: AppContext, row: InboundEvent): Promise<AttemptOutcome> {
  const now = ctx.clock.now();
  const at = isoAt(now);
  const orgId = row.orgId!;
  // The outcome is recorded only against the copy and organization it was made with: meanwhile
  // another process may have decrypted this row or replaced its copy with a held one, and an ica
  // mapping (between two rows of this batch, or elsewhere) may have moved it to another organization.
  const seen = { attempts: row.attempts, rawBody: row.rawBody, orgId };
  try {
    const parsed = inboundNotificationSchema.safeParse(parseStoredBody(row.rawBody));
    if (!parsed.success) throw new JweDecryptError('malformed_jwe', 'the stored body no longer validates');
    const out = await decryptJwe(compactJweOf(parsed.data.data), (kid) => privateKeyFor(ctx, orgId, kid));
    const payloadEnc = ctx.secrets.seal(out.plaintext, payloadSealContext(row.id));
    // A lost outcome is redone from the stored raw body: no fsync needed (see bookkeeping).
    const done = bookkeeping(ctx.db, () => ctx.db.transaction(() => recordAttempt(ctx.db, row.id, seen, { state: 'decrypted', kid: out.kid, payloadEnc, at }))());
    if (done) ctx.log.info({ inboundId: row.id, eventId: row.eventId, orgId, kid: out.kid, enc: out.enc, tolerated: out.tolerated }, 'card-network notification decrypted');
    return done ? 'decrypted' : 'skipped';
  } catch (err) {
    const known = err instanceof JweDecryptError ? err : undefined;
    const code = known?.code ?? 'internal_error';
    const reason = known?.message ?? `unexpected error: ${(err as Error).message}`;
    const attemptNo = row.attempts + 1;
    const delay = known && !known.retryable ? undefined : retryDelayMs(ctx.config.inbound.decryptRetrySeconds, attemptNo);
    const next = delay === undefined ? null : isoAt(now + delay);
    const contentFailure = known !== undefined && !known.retryable;
    const { done, promoted } = bookkeeping(ctx.db, () =>
      ctx.db.transaction(() => {
        const recorded = recordAttempt(ctx.db, row.id, seen, {
          state: next ? 'received' : 'failed',
          kid: known?.kid ?? null,
          failureCode: code,
          failureReason: reason,
          nextAttemptAt: next,
          at,
        });
        // An altered copy: a redelivery held meanwhile may be the genuine one.
        return { done: recorded, promoted: recorded && contentFailure && promoteHeldCopy(ctx.db, row.id, at) };
      })(),
    );
    const log = { inboundId: row.id, eventId: row.eventId, orgId, attempt: attemptNo, code, reason, nextAttemptAt: next };
    if (promoted) {
      ctx.log.warn(log, 'card-network notification decryption failed for its content; a redelivered copy held meanwhile takes its place');
      ctx.signals.emit(INBOUND_SIGNAL);
    } else if (next) ctx.log.warn(log, 'card-network notification decryption failed; will retry');
    else ctx.log.error(log, 'card-network notification decryption failed; moved to the failed (dead-letter) state');
    if (!done) return 'skipped';
    if (promoted) return 'replaced';
    return next ? 'retry' : 'failed';
  }
}

/**
 * Attempts every due row (up to batchSize); returns what happened to each. The event loop gets a
 * turn after each row: requests and sends run between two decryptions, however long the queue
 * (the RSA unwrap itself runs on the thread pool, see jwe-decrypt.ts).
 */
export async function decryptDue(ctx: AppContext): Promise<Record<AttemptOutcome, number>> {
  const counts: Record<AttemptOutcome, number> = { decrypted: 0, retry: 0, failed: 0, replaced: 0, skipped: 0 };
  for (const row of dueInboundEvents(ctx.db, isoAt(ctx.clock.now()), ctx.config.inbound.batchSize)) {
    counts[await attempt(ctx, row)]++;
    await new Promise((resolve) => setImmediate(resolve));
  }
  return counts;
}
