/**
 * Card-network notification intake: each notification stored with its exact bytes, once per
 * eventId, before it is acknowledged, and what a second copy of an eventId does to the stored one.
 *
 * @module inbound/intake
 */
import type { AppContext } from '../context.js';
import { isoAt } from '../domain/clock.js';
import { newId } from '../domain/ids.js';
import { BorderdError } from '../domain/errors.js';
import {
  countStoredFrom,
  countUnmatchedFrom,
  getInboundEventByEventId,
  holdCopy,
  insertInboundEvent,
  replaceCopy,
  type HoldOutcome,
  type InboundEvent,
  type InboundState,
} from '../store/inbound-events.js';
import { getOrganization } from '../store/organizations.js';
import { organizationForIca } from './ica-mapping.js';
import { inboundExposure } from './sender-check.js';
import { CONTENT_FAILURES } from './jwe-decrypt.js';
import type { InboundNotification } from './notification.js';
import { announce } from '../cluster/wakeups.js';
import { withTransaction } from '../db/database.js';
import { activeTraceparent, inSpan } from '../tracing/spans.js';

export interface IntakeResult {
  id: string;
  eventId: string;
  duplicate: boolean;
  state: string;
}

/**
 * Redelivered copies held per notification while its stored copy is undecided. The card network
 * redelivers a few times at most; the bound keeps a sender that repeats one eventId from growing a
 * row without limit.
 */
export const MAX_HELD_COPIES = 5;

/**
 * What a second copy of an eventId for the same ica does to the stored one (docs/inbound.md has the
 * table; a copy for another ica is another notification, stored in its own row). It is never
 * processed twice, and not lost either:
 * - a copy of a notification already decrypted: ignored;
 * - the stored copy failed for its content (an altered token): the new copy replaces it, since the
 *   stored one was never processed;
 * - the stored copy is not decided yet (queued, unmatched, waiting for a key) and the bytes differ:
 *   the new copy is held, to take the stored copy's place if that one turns out altered;
 * - the same bytes: ignored.
 */
export function redeliveryAction(
  stored: Pick<InboundEvent, 'state' | 'orgId' | 'failureCode' | 'rawBody'>,
  copy: Pick<InboundEvent, 'rawBody'>,
): 'replace' | 'hold' | 'ignore' {
  if (stored.state === 'decrypted') return 'ignore';
  const failedForContent =
    stored.state === 'failed' &&
    stored.orgId !== null &&
    stored.failureCode !== null &&
    (CONTENT_FAILURES as readonly string[]).includes(stored.failureCode);
  if (failedForContent) return 'replace';
  return stored.rawBody === copy.rawBody ? 'ignore' : 'hold';
}

type IntakeOutcome = 'stored' | 'replaced' | HoldOutcome | 'duplicate';

/** The answer past inbound.maxUnmatchedPerSender: 429, so a genuine sender retries once its ica is mapped. */
const unmatchedLimitReached = (max: number): BorderdError =>
  new BorderdError(
    429,
    'unmatched_limit_reached',
    `this address has ${max} notifications stored for icas that map to no organization; more are accepted once those are mapped or purged`,
    { headers: { 'Retry-After': '300' } },
  );

/**
 * The answer past inbound.maxUnmatchedPerSender on an endpoint open to any sender, where every
 * notification a sender stored counts: 429, as for unmatched ones.
 */
const senderLimitReached = (max: number): BorderdError =>
  new BorderdError(
    429,
    'sender_limit_reached',
    `this address has ${max} notifications stored; more are accepted once retention or a purge removes some`,
    { headers: { 'Retry-After': '300' } },
  );

/**
 * Stores a validated notification with its exact bytes, once per eventId and ica (one
 * organization's eventId says nothing about another's). The caller answers 200 only after this
 * returns, so an acknowledged notification is on disk; decryption happens later from the stored
 * row. An ica that maps to no organization is kept as `unmatched`, never dropped, up to
 * inbound.maxUnmatchedPerSender rows per `sender` (the source address). On an endpoint open to
 * any sender (inbound.allowAnySender) the same cap counts every row a sender stored, mapped or
 * not: a stranger naming a mapped ica would otherwise store without bound. A second copy goes
 * where redeliveryAction says.
 */
export async function receiveNotification(
  ctx: AppContext,
  n: InboundNotification,
  rawBody: string,
  sender: string | null = null,
): Promise<IntakeResult> {
  return inSpan('inbound intake', { attributes: { 'borderd.inbound_event_type': n.eventType } }, () => intake(ctx, n, rawBody, sender));
}

async function intake(ctx: AppContext, n: InboundNotification, rawBody: string, sender: string | null): Promise<IntakeResult> {
  const now = ctx.clock.now();
  const at = isoAt(now);
  const id = newId('inb', now);
  // This intake's span, stored with the copy it queues: the decryption attempts are its children.
  const traceContext = activeTraceparent() ?? null;
  const open = inboundExposure(ctx.config) === 'open';
  // One transaction: the organization lookup, the insert, and on a duplicate what becomes of it.
  const result = await withTransaction(
    ctx,
    async (ctx): Promise<{ outcome: IntakeOutcome; id: string; state: InboundState; orgId: string | null }> => {
      const mapped = await organizationForIca(ctx, n.ica);
      const orgId = mapped && (await getOrganization(ctx.db, mapped)) ? mapped : null;
      const copy = { eventType: n.eventType, eventCreatedDate: n.eventCreatedDate, rawBody, receivedAt: at };
      const state = orgId ? 'received' : 'unmatched';
      let stored = await getInboundEventByEventId(ctx.db, n.eventId, n.ica);
      if (!stored) {
        const max = ctx.config.inbound.maxUnmatchedPerSender;
        if (sender !== null && open && (await countStoredFrom(ctx.db, sender, max)) >= max) throw senderLimitReached(max);
        if (!orgId && sender !== null && (await countUnmatchedFrom(ctx.db, sender, max)) >= max) throw unmatchedLimitReached(max);
        if (await insertInboundEvent(ctx.db, { ...copy, eventId: n.eventId, ica: n.ica, id, orgId, state, sender, traceContext })) {
          if (orgId) await announce(ctx.db, 'inbound');
          return { outcome: 'stored', id, state, orgId };
        }
        stored = (await getInboundEventByEventId(ctx.db, n.eventId, n.ica))!;
      }
      const action = redeliveryAction(stored, { rawBody });
      if (action === 'replace') {
        await replaceCopy(ctx.db, stored.id, copy, at, traceContext);
        await announce(ctx.db, 'inbound');
        return { outcome: 'replaced', id: stored.id, state: 'received', orgId: stored.orgId };
      }
      const outcome = action === 'hold' ? await holdCopy(ctx.db, stored.id, copy, MAX_HELD_COPIES) : 'duplicate';
      return { outcome, id: stored.id, state: stored.state, orgId: stored.orgId };
    },
  );

  const log = { eventId: n.eventId, inboundId: result.id };
  const told = result.outcome === 'stored' && !result.orgId ? 'unmatched' : result.outcome === 'known' ? 'duplicate' : result.outcome;
  ctx.signals.inboundReceived.emit(told);
  switch (result.outcome) {
    case 'stored':
      if (result.orgId) ctx.signals.inbound.emit();
      else ctx.log.warn({ ...log, ica: n.ica }, 'card-network notification for an unmapped ica stored as unmatched');
      return { id: result.id, eventId: n.eventId, duplicate: false, state: result.state };
    case 'replaced':
      ctx.log.warn(log, 'redelivered card-network notification replaces a copy that failed decryption');
      ctx.signals.inbound.emit();
      break;
    case 'held':
      ctx.log.info(log, 'redelivered card-network notification with other bytes held until the stored copy is decrypted');
      break;
    case 'full':
      ctx.log.warn(
        { ...log, held: MAX_HELD_COPIES },
        'redelivered card-network notification ignored: as many copies as are kept are already held',
      );
      break;
    default:
      ctx.log.info(log, 'duplicate card-network notification ignored');
  }
  return { id: result.id, eventId: n.eventId, duplicate: true, state: result.state };
}
