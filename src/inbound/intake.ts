import type { AppContext } from '../context.js';
import { isoAt } from '../domain/clock.js';
import { newId } from '../domain/ids.js';
import { getInboundEventByEventId, insertInboundEvent, replaceFailedCopy } from '../store/inbound-events.js';
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
 * Stores a validated notification with its exact bytes, once per eventId. The caller answers 200
 * only after this returns, so an acknowledged notification is on disk; decryption happens later
 * from the stored row. An ica that maps to no organization is kept as `unmatched`, never dropped.
 * A second copy of an eventId is ignored, except when the stored copy failed for its content (an
 * altered token): then the new copy replaces it, since that copy was never processed.
 */
export function receiveNotification(ctx: AppContext, n: InboundNotification, rawBody: string): IntakeResult {
  const now = ctx.clock.now();
  const at = isoAt(now);
  const id = newId('inb', now);
  // One transaction: the organization lookup, the insert, and on a duplicate the replacement check.
  const { outcome, orgId } = ctx.db
    .transaction(() => {
      const mapped = organizationForIca(ctx, n.ica);
      const orgId = mapped && getOrganization(ctx.db, mapped) ? mapped : null;
      const fields = { eventId: n.eventId, eventType: n.eventType, eventCreatedDate: n.eventCreatedDate, ica: n.ica, rawBody };
      if (insertInboundEvent(ctx.db, { ...fields, id, orgId, state: orgId ? 'received' : 'unmatched', receivedAt: at })) return { outcome: 'stored' as const, orgId };
      return { outcome: replaceFailedCopy(ctx.db, fields, CONTENT_FAILURES, at) ? ('replaced' as const) : ('duplicate' as const), orgId };
    })
    .immediate();

  if (outcome === 'stored') {
    if (orgId) ctx.signals.emit(INBOUND_SIGNAL);
    else ctx.log.warn({ eventId: n.eventId, inboundId: id, ica: n.ica }, 'card-network notification for an unmapped ica stored as unmatched');
    return { id, eventId: n.eventId, duplicate: false, state: orgId ? 'received' : 'unmatched' };
  }
  const existing = getInboundEventByEventId(ctx.db, n.eventId)!;
  if (outcome === 'replaced') {
    ctx.log.warn({ eventId: n.eventId, inboundId: existing.id }, 'redelivered card-network notification replaces a copy that failed decryption');
    ctx.signals.emit(INBOUND_SIGNAL);
  } else {
    ctx.log.info({ eventId: n.eventId, inboundId: existing.id }, 'duplicate card-network notification ignored');
  }
  return { id: existing.id, eventId: n.eventId, duplicate: true, state: existing.state };
}
