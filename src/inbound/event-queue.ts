/**
 * What operators see of stored card-network notifications (never the sealed payload or the raw
 * JWE), and the requeueing of failed ones for decryption.
 *
 * @module inbound/event-queue
 */
import type { AppContext } from '../context.js';
import { isoAt } from '../domain/clock.js';
import { badRequest, conflict, notFound } from '../domain/errors.js';
import {
  deleteInboundEvents,
  getInboundEventByEventId,
  listInboundEvents,
  listHeldCopies,
  listReplacedCopies,
  requeueAllFailed,
  requeueInboundEvent,
  type InboundEvent,
  type HeldCopy,
  type InboundDeletion,
  type InboundFilter,
  type ReplacedCopy,
} from '../store/inbound-events.js';
import { payloadSealContext } from './decryption.js';

/** What operators see of a stored notification: never the sealed payload or the raw JWE. */
export interface InboundEventView {
  id: string;
  eventId: string;
  eventType: string;
  eventCreatedDate: string;
  ica: string;
  organizationId: string | null;
  state: InboundEvent['state'];
  attempts: number;
  nextAttemptAt: string | null;
  failureCode: string | null;
  failureReason: string | null;
  kid: string | null;
  receivedAt: string;
  decryptedAt: string | null;
}

export function toView(e: InboundEvent): InboundEventView {
  return {
    id: e.id,
    eventId: e.eventId,
    eventType: e.eventType,
    eventCreatedDate: e.eventCreatedDate,
    ica: e.ica,
    organizationId: e.orgId,
    state: e.state,
    attempts: e.attempts,
    nextAttemptAt: e.nextAttemptAt,
    failureCode: e.failureCode,
    failureReason: e.failureReason,
    kid: e.kid,
    receivedAt: e.receivedAt,
    decryptedAt: e.decryptedAt,
  };
}

export async function listInbound(ctx: AppContext, filter: InboundFilter): Promise<InboundEventView[]> {
  return (await listInboundEvents(ctx.db, filter)).map(toView);
}

/** A copy replaced by a redelivery: its failure, not its bytes (those stay in the database). */
export type ReplacedCopyView = Omit<ReplacedCopy, 'rawBody'>;

/** A redelivered copy held while the stored one is undecided: when it came, not its bytes. */
export type HeldCopyView = Omit<HeldCopy, 'rawBody'>;

/**
 * One notification with its decrypted payload (parsed JSON when it is JSON), the copies it replaced
 * and the redelivered copies held in case the stored one fails for its content.
 */
export async function showInbound(
  ctx: AppContext,
  eventId: string,
  ica?: string,
): Promise<InboundEventView & { payload: unknown; replacedCopies: ReplacedCopyView[]; heldCopies: HeldCopyView[] }> {
  const row = await getInboundEventByEventId(ctx.db, eventId, ica);
  if (!row) throw notFound(`inbound event ${eventId}`);
  let payload: unknown = null;
  if (row.payloadEnc) {
    const text = ctx.secrets.open(row.payloadEnc, payloadSealContext(row.id));
    try {
      payload = JSON.parse(text);
    } catch {
      payload = text;
    }
  }
  const replacedCopies = (await listReplacedCopies(ctx.db, row.id)).map(({ rawBody: _raw, ...copy }) => copy);
  const heldCopies = (await listHeldCopies(ctx.db, row.id)).map(({ rawBody: _raw, ...copy }) => copy);
  return { ...toView(row), payload, replacedCopies, heldCopies };
}

/** Requeues one failed notification (or all of them) for decryption now. */
export async function retryInbound(
  ctx: AppContext,
  target: { eventId: string; ica?: string | undefined } | { allFailed: true },
): Promise<{ requeued: number }> {
  const nowIso = isoAt(ctx.clock.now());
  let requeued: number;
  if ('eventId' in target) {
    const row = await getInboundEventByEventId(ctx.db, target.eventId, target.ica);
    if (!row) throw notFound(`inbound event ${target.eventId}`);
    if (row.state === 'decrypted') throw conflict('already_decrypted', `inbound event ${target.eventId} is already decrypted`);
    if (row.state === 'unmatched')
      throw conflict('unmatched_ica', `inbound event ${target.eventId} has ica ${row.ica}, which maps to no organization; map it first`);
    requeued = (await requeueInboundEvent(ctx.db, row.id, nowIso)) ? 1 : 0;
  } else {
    requeued = await requeueAllFailed(ctx.db, nowIso);
  }
  if (requeued > 0) ctx.signals.inbound.emit();
  return { requeued };
}

/** The states a purge may name: every one but `received`, whose rows are still being decrypted. */
export const PURGEABLE_STATES = ['unmatched', 'failed', 'decrypted'] as const;

/**
 * Deletes the notifications of one state (received before `before`, of one ica), with their held
 * and replaced copies, in batches of retention.batchSize; `borderd inbound purge`. Queued rows are
 * never purged: a notification acknowledged with 200 is decrypted or dead-lettered first.
 */
export async function purgeInbound(
  ctx: AppContext,
  target: { state: InboundDeletion['state']; before?: string | undefined; ica?: string | undefined },
): Promise<{ deleted: number }> {
  if (!(PURGEABLE_STATES as readonly string[]).includes(target.state))
    throw badRequest('invalid_state', `state must be one of ${PURGEABLE_STATES.join(', ')}: queued notifications are never purged`);
  const deletion: InboundDeletion = { state: target.state, receivedBefore: target.before, ica: target.ica };
  let deleted = 0;
  for (;;) {
    // Deleting again after a power cut is harmless: no fsync per batch.
    const n = await ctx.db.transaction((tx) => deleteInboundEvents(tx, deletion, ctx.config.retention.batchSize), {
      durability: 'bookkeeping',
    });
    deleted += n;
    if (n === 0) return { deleted };
  }
}
