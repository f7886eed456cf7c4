import type { AppContext } from '../context.js';
import { isoAt } from '../domain/clock.js';
import { newId } from '../domain/ids.js';
import { getInboundEventByEventId, holdCopy, insertInboundEvent, replaceFailedCopy } from '../store/inbound-events.js';
import { getOrganization } from '../store/organizations.js';
import { organizationForIca } from './ica-mapping.js';
import { INBOUND_SIGNAL } from './signals.js';
import { CONTENT_FAILURES } from './jwe-decrypt.js';
import type { InboundNotification } from './notification.js';

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
 * Stores a validated notification with its exact bytes, once per eventId. The caller answers 200
 * only after this returns, so an acknowledged notification is on disk; decryption happens later
 * from the stored row. An ica that maps to no organization is kept as `unmatched`, never dropped.
 * A second copy of an eventId (same ica) is not processed twice, and not lost either:
 * - the stored copy failed for its content (an altered token): the new copy replaces it, since that
 *   copy was never processed;
 * - the stored copy is not decided yet (queued, unmatched, waiting for a key) and the new bytes
 *   differ: the new copy is held, to take the stored copy's place if that one turns out altered;
 * - otherwise (decrypted, the same bytes): ignored.
 */
export function receiveNotification(ctx: AppContext, n: InboundNotification, rawBody: string): IntakeResult {
  const now = ctx.clock.now();
  const at = isoAt(now);
  const id = newId('inb', now);
  // One transaction: the organization lookup, the insert, and on a duplicate what becomes of it.
  const { outcome, orgId } = ctx.db
    .transaction(() => {
      const mapped = organizationForIca(ctx, n.ica);
      const orgId = mapped && getOrganization(ctx.db, mapped) ? mapped : null;
      const copy = { eventId: n.eventId, eventType: n.eventType, eventCreatedDate: n.eventCreatedDate, ica: n.ica, rawBody, receivedAt: at };
      if (insertInboundEvent(ctx.db, { ...copy, id, orgId, state: orgId ? 'received' : 'unmatched' })) return { outcome: 'stored' as const, orgId };
      if (replaceFailedCopy(ctx.db, copy, CONTENT_FAILURES)) return { outcome: 'replaced' as const, orgId };
      return { outcome: holdCopy(ctx.db, copy, MAX_HELD_COPIES), orgId };
    })
    .immediate();

  if (outcome === 'stored') {
    if (orgId) ctx.signals.emit(INBOUND_SIGNAL);
    else ctx.log.warn({ eventId: n.eventId, inboundId: id, ica: n.ica }, 'card-network notification for an unmapped ica stored as unmatched');
    return { id, eventId: n.eventId, duplicate: false, state: orgId ? 'received' : 'unmatched' };
  }
  const existing = getInboundEventByEventId(ctx.db, n.eventId)!;
  const log = { eventId: n.eventId, inboundId: existing.id };
  if (outcome === 'replaced') {
    ctx.log.warn(log, 'redelivered card-network notification replaces a copy that failed decryption');
    ctx.signals.emit(INBOUND_SIGNAL);
  } else if (outcome === 'held') {
    ctx.log.info(log, 'redelivered card-network notification with other bytes held until the stored copy is decrypted');
  } else if (outcome === 'full') {
    ctx.log.warn({ ...log, held: MAX_HELD_COPIES }, 'redelivered card-network notification ignored: as many copies as are kept are already held');
  } else {
    ctx.log.info(log, 'duplicate card-network notification ignored');
  }
  return { id: existing.id, eventId: n.eventId, duplicate: true, state: existing.state };
}
