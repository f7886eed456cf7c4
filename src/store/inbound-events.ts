/**
 * The `inbound_events` table and its companions: card-network notifications as received, their
 * decryption queue and outcomes, the redelivered copies held or replaced, and the ica to
 * organization mappings.
 *
 * @module store/inbound-events
 */
import type { Db } from '../db/open.js';

export const INBOUND_STATES = ['received', 'decrypted', 'failed', 'unmatched'] as const;
export type InboundState = (typeof INBOUND_STATES)[number];

export interface InboundEvent {
  id: string;
  eventId: string;
  eventType: string;
  eventCreatedDate: string;
  ica: string;
  orgId: string | null;
  rawBody: string;
  state: InboundState;
  attempts: number;
  nextAttemptAt: string | null;
  failureCode: string | null;
  failureReason: string | null;
  kid: string | null;
  payloadEnc: string | null;
  receivedAt: string;
  decryptedAt: string | null;
  updatedAt: string;
}

interface Row {
  id: string;
  event_id: string;
  event_type: string;
  event_created_date: string;
  ica: string;
  org_id: string | null;
  raw_body: string;
  state: InboundState;
  attempts: number;
  next_attempt_at: string | null;
  failure_code: string | null;
  failure_reason: string | null;
  kid: string | null;
  payload_enc: string | null;
  received_at: string;
  decrypted_at: string | null;
  updated_at: string;
}

const toEvent = (r: Row): InboundEvent => ({
  id: r.id,
  eventId: r.event_id,
  eventType: r.event_type,
  eventCreatedDate: r.event_created_date,
  ica: r.ica,
  orgId: r.org_id,
  rawBody: r.raw_body,
  state: r.state,
  attempts: r.attempts,
  nextAttemptAt: r.next_attempt_at,
  failureCode: r.failure_code,
  failureReason: r.failure_reason,
  kid: r.kid,
  payloadEnc: r.payload_enc,
  receivedAt: r.received_at,
  decryptedAt: r.decrypted_at,
  updatedAt: r.updated_at,
});

export type NewInboundEvent = Pick<
  InboundEvent,
  'id' | 'eventId' | 'eventType' | 'eventCreatedDate' | 'ica' | 'orgId' | 'rawBody' | 'receivedAt'
> & {
  state: 'received' | 'unmatched';
};

/** Inserts unless the eventId is already stored; true when this call stored it. */
export function insertInboundEvent(db: Db, e: NewInboundEvent): boolean {
  const result = db
    .prepare(
      `INSERT INTO inbound_events (id, event_id, event_type, event_created_date, ica, org_id, raw_body, state, attempts,
         next_attempt_at, received_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, 0, ?, ?, ?)
       ON CONFLICT (event_id) DO NOTHING`,
    )
    .run(
      e.id,
      e.eventId,
      e.eventType,
      e.eventCreatedDate,
      e.ica,
      e.orgId,
      e.rawBody,
      e.state,
      e.state === 'received' ? e.receivedAt : null,
      e.receivedAt,
      e.receivedAt,
    );
  return result.changes === 1;
}

/** The bytes of one copy of a notification, and when that copy arrived. */
export type NotificationCopy = Pick<InboundEvent, 'eventType' | 'eventCreatedDate' | 'rawBody'> & { receivedAt: string };

/**
 * Moves the copy a row holds to inbound_event_replaced_copies (its bytes kept for forensics) and
 * queues `copy` in its place, due now. Call inside a transaction.
 */
export function replaceCopy(db: Db, id: string, copy: NotificationCopy, nowIso: string): void {
  db.prepare(
    `INSERT INTO inbound_event_replaced_copies (inbound_id, seq, raw_body, event_type, event_created_date, failure_code, failure_reason, kid,
       attempts, received_at, replaced_at)
     SELECT e.id, COALESCE((SELECT MAX(seq) FROM inbound_event_replaced_copies WHERE inbound_id = e.id), 0) + 1, e.raw_body, e.event_type,
       e.event_created_date, e.failure_code, e.failure_reason, e.kid, e.attempts, COALESCE(e.copy_received_at, e.received_at), ?
     FROM inbound_events e WHERE e.id = ?`,
  ).run(nowIso, id);
  db.prepare(
    `UPDATE inbound_events SET raw_body = ?, event_type = ?, event_created_date = ?, copy_received_at = ?, state = 'received', attempts = 0,
       next_attempt_at = ?, failure_code = NULL, failure_reason = NULL, kid = NULL, updated_at = ?
     WHERE id = ?`,
  ).run(copy.rawBody, copy.eventType, copy.eventCreatedDate, copy.receivedAt, nowIso, nowIso, id);
}

/** What became of a copy offered to holdCopy. */
export type HoldOutcome = 'held' | 'known' | 'full';

/**
 * Holds a redelivered copy of row `id`'s notification: `held`, unless these bytes are already held
 * (`known`) or `maxHeld` copies are (`full`). Which copies are held at all is the caller's rule.
 * Call inside a transaction.
 */
export function holdCopy(db: Db, id: string, copy: NotificationCopy, maxHeld: number): HoldOutcome {
  const held = db
    .prepare('SELECT COUNT(*) AS n, MAX(seq) AS last, SUM(raw_body = ?) AS same FROM inbound_event_held_copies WHERE inbound_id = ?')
    .get(copy.rawBody, id) as {
    n: number;
    last: number | null;
    same: number | null;
  };
  if (held.same) return 'known';
  if (held.n >= maxHeld) return 'full';
  db.prepare(
    'INSERT INTO inbound_event_held_copies (inbound_id, seq, raw_body, event_type, event_created_date, received_at) VALUES (?, ?, ?, ?, ?, ?)',
  ).run(id, (held.last ?? 0) + 1, copy.rawBody, copy.eventType, copy.eventCreatedDate, copy.receivedAt);
  return 'held';
}

/**
 * After the row's copy failed for its content: the oldest held copy takes its place and is queued,
 * the failed copy moving to the replaced copies. True when there was one. Call inside a transaction.
 */
export function promoteHeldCopy(db: Db, id: string, nowIso: string): boolean {
  // At most a few are held (MAX_HELD_COPIES): reading them all keeps one query and one row mapping.
  const [oldest] = listHeldCopies(db, id);
  if (!oldest) return false;
  const { seq, ...copy } = oldest;
  replaceCopy(db, id, copy, nowIso);
  db.prepare('DELETE FROM inbound_event_held_copies WHERE inbound_id = ? AND seq = ?').run(id, seq);
  return true;
}

/** A redelivered copy waiting for the stored copy to be decided. */
export type HeldCopy = { seq: number } & NotificationCopy;

/** The copies held for a notification, oldest first. */
export function listHeldCopies(db: Db, inboundId: string): HeldCopy[] {
  const rows = db
    .prepare(
      'SELECT seq, raw_body, event_type, event_created_date, received_at FROM inbound_event_held_copies WHERE inbound_id = ? ORDER BY seq',
    )
    .all(inboundId) as { seq: number; raw_body: string; event_type: string; event_created_date: string; received_at: string }[];
  return rows.map((r) => ({
    seq: r.seq,
    rawBody: r.raw_body,
    eventType: r.event_type,
    eventCreatedDate: r.event_created_date,
    receivedAt: r.received_at,
  }));
}

export interface ReplacedCopy {
  seq: number;
  rawBody: string;
  eventType: string;
  eventCreatedDate: string;
  failureCode: string;
  failureReason: string | null;
  kid: string | null;
  attempts: number;
  receivedAt: string;
  replacedAt: string;
}

/** The copies a redelivery replaced, oldest first. */
export function listReplacedCopies(db: Db, inboundId: string): ReplacedCopy[] {
  const rows = db
    .prepare(
      `SELECT seq, raw_body, event_type, event_created_date, failure_code, failure_reason, kid, attempts, received_at, replaced_at
       FROM inbound_event_replaced_copies WHERE inbound_id = ? ORDER BY seq`,
    )
    .all(inboundId) as {
    seq: number;
    raw_body: string;
    event_type: string;
    event_created_date: string;
    failure_code: string;
    failure_reason: string | null;
    kid: string | null;
    attempts: number;
    received_at: string;
    replaced_at: string;
  }[];
  return rows.map((r) => ({
    seq: r.seq,
    rawBody: r.raw_body,
    eventType: r.event_type,
    eventCreatedDate: r.event_created_date,
    failureCode: r.failure_code,
    failureReason: r.failure_reason,
    kid: r.kid,
    attempts: r.attempts,
    receivedAt: r.received_at,
    replacedAt: r.replaced_at,
  }));
}

export function getInboundEventByEventId(db: Db, eventId: string): InboundEvent | undefined {
  const row = db.prepare('SELECT * FROM inbound_events WHERE event_id = ?').get(eventId) as Row | undefined;
  return row && toEvent(row);
}

export function getInboundEvent(db: Db, id: string): InboundEvent | undefined {
  const row = db.prepare('SELECT * FROM inbound_events WHERE id = ?').get(id) as Row | undefined;
  return row && toEvent(row);
}

/** When the copy a row holds arrived, if a redelivery put it there (null for the first copy; undefined for an unknown id). */
export function copyReceivedAt(db: Db, id: string): string | null | undefined {
  return db.prepare('SELECT copy_received_at FROM inbound_events WHERE id = ?').pluck().get(id) as string | null | undefined;
}

export interface InboundFilter {
  state?: InboundState | undefined;
  eventType?: string | undefined;
  startingAfter?: string | undefined;
  limit?: number | undefined;
}

export function listInboundEvents(db: Db, f: InboundFilter = {}): InboundEvent[] {
  const where: string[] = [];
  const args: unknown[] = [];
  if (f.state) {
    where.push('state = ?');
    args.push(f.state);
  }
  if (f.eventType) {
    where.push('event_type = ?');
    args.push(f.eventType);
  }
  if (f.startingAfter) {
    where.push('id > ?');
    args.push(f.startingAfter);
  }
  const sql = `SELECT * FROM inbound_events ${where.length ? 'WHERE ' + where.join(' AND ') : ''} ORDER BY id LIMIT ?`;
  return (db.prepare(sql).all(...args, f.limit ?? 1000) as Row[]).map(toEvent);
}

/** Rows due for a decryption attempt, oldest first. */
export function dueInboundEvents(db: Db, nowIso: string, limit: number): InboundEvent[] {
  return (
    db
      .prepare("SELECT * FROM inbound_events WHERE state = 'received' AND next_attempt_at <= ? ORDER BY next_attempt_at, id LIMIT ?")
      .all(nowIso, limit) as Row[]
  ).map(toEvent);
}

/** The earliest next_attempt_at among queued rows, so the worker can sleep until then. */
export function nextDueAt(db: Db): string | undefined {
  const row = db.prepare("SELECT MIN(next_attempt_at) AS at FROM inbound_events WHERE state = 'received'").get() as { at: string | null };
  return row.at ?? undefined;
}

/**
 * The outcome of one attempt. Guarded by the attempt count, the copy (its bytes) and the
 * organization the worker read, so a row requeued, finished or moved by another process meanwhile
 * is left alone (returns false). The attempt count alone is not enough: a held copy put in place of
 * a failed one, and a row moved to another organization by an ica mapping, start again at 0
 * attempts, and an outcome made for the old copy or with the old organization's keys would pass.
 */
export function recordAttempt(
  db: Db,
  id: string,
  seen: { attempts: number; rawBody: string; orgId: string },
  outcome:
    | { state: 'decrypted'; kid: string; payloadEnc: string; at: string }
    | {
        state: 'received' | 'failed';
        kid: string | null;
        failureCode: string;
        failureReason: string;
        nextAttemptAt: string | null;
        at: string;
      },
): boolean {
  if (outcome.state === 'decrypted') {
    const done =
      db
        .prepare(
          `UPDATE inbound_events SET state = 'decrypted', attempts = attempts + 1, kid = ?, payload_enc = ?, decrypted_at = ?,
             next_attempt_at = NULL, failure_code = NULL, failure_reason = NULL, updated_at = ?
           WHERE id = ? AND state = 'received' AND attempts = ? AND raw_body = ? AND org_id = ?`,
        )
        .run(outcome.kid, outcome.payloadEnc, outcome.at, outcome.at, id, seen.attempts, seen.rawBody, seen.orgId).changes === 1;
    // The event is processed: copies held in case this one failed are not needed any more.
    if (done) db.prepare('DELETE FROM inbound_event_held_copies WHERE inbound_id = ?').run(id);
    return done;
  }
  return (
    db
      .prepare(
        `UPDATE inbound_events SET state = ?, attempts = attempts + 1, kid = ?, failure_code = ?, failure_reason = ?,
           next_attempt_at = ?, updated_at = ?
         WHERE id = ? AND state = 'received' AND attempts = ? AND raw_body = ? AND org_id = ?`,
      )
      .run(
        outcome.state,
        outcome.kid,
        outcome.failureCode,
        outcome.failureReason,
        outcome.nextAttemptAt,
        outcome.at,
        id,
        seen.attempts,
        seen.rawBody,
        seen.orgId,
      ).changes === 1
  );
}

/** Puts a failed (or queued) row back in the queue, due now, with a fresh attempt count. */
export function requeueInboundEvent(db: Db, id: string, nowIso: string): boolean {
  return (
    db
      .prepare(
        `UPDATE inbound_events SET state = 'received', attempts = 0, next_attempt_at = ?, updated_at = ?
         WHERE id = ? AND state IN ('failed', 'received') AND org_id IS NOT NULL`,
      )
      .run(nowIso, nowIso, id).changes === 1
  );
}

export function requeueAllFailed(db: Db, nowIso: string): number {
  return db
    .prepare(
      `UPDATE inbound_events SET state = 'received', attempts = 0, next_attempt_at = ?, updated_at = ?
       WHERE state = 'failed' AND org_id IS NOT NULL`,
    )
    .run(nowIso, nowIso).changes;
}

/** Assigns the organization to unmatched rows of an ica and queues them; returns how many. */
export function matchUnmatched(db: Db, ica: string, orgId: string, nowIso: string): number {
  return db
    .prepare(
      `UPDATE inbound_events SET org_id = ?, state = 'received', attempts = 0, next_attempt_at = ?, updated_at = ?
       WHERE ica = ? AND state = 'unmatched'`,
    )
    .run(orgId, nowIso, nowIso, ica).changes;
}

/**
 * Moves an ica's notifications that are not decrypted yet (waiting or failed) from another
 * organization to `orgId` and queues them; returns how many. After a remap they are attributed to
 * the wrong organization, whose keys cannot open them. Decrypted ones stay: a key of their
 * organization opened them.
 */
export function reassignUndecrypted(db: Db, ica: string, orgId: string, nowIso: string): number {
  return db
    .prepare(
      `UPDATE inbound_events SET org_id = ?, state = 'received', attempts = 0, next_attempt_at = ?, updated_at = ?
       WHERE ica = ? AND state IN ('received', 'failed') AND org_id IS NOT NULL AND org_id <> ?`,
    )
    .run(orgId, nowIso, nowIso, ica, orgId).changes;
}

export function unmatchedIcas(db: Db): string[] {
  return (db.prepare("SELECT DISTINCT ica FROM inbound_events WHERE state = 'unmatched'").all() as { ica: string }[]).map((r) => r.ica);
}

export interface IcaMapping {
  ica: string;
  orgId: string;
  createdAt: string;
}

export function upsertIcaMapping(db: Db, m: IcaMapping): void {
  db.prepare(
    'INSERT INTO inbound_ica_organizations (ica, org_id, created_at) VALUES (?, ?, ?) ON CONFLICT (ica) DO UPDATE SET org_id = excluded.org_id',
  ).run(m.ica, m.orgId, m.createdAt);
}

export function getIcaMapping(db: Db, ica: string): IcaMapping | undefined {
  const row = db.prepare('SELECT ica, org_id, created_at FROM inbound_ica_organizations WHERE ica = ?').get(ica) as
    { ica: string; org_id: string; created_at: string } | undefined;
  return row && { ica: row.ica, orgId: row.org_id, createdAt: row.created_at };
}

export function listIcaMappings(db: Db): IcaMapping[] {
  return (
    db.prepare('SELECT ica, org_id, created_at FROM inbound_ica_organizations ORDER BY ica').all() as {
      ica: string;
      org_id: string;
      created_at: string;
    }[]
  ).map((r) => ({ ica: r.ica, orgId: r.org_id, createdAt: r.created_at }));
}

export function deleteIcaMapping(db: Db, ica: string): boolean {
  return db.prepare('DELETE FROM inbound_ica_organizations WHERE ica = ?').run(ica).changes === 1;
}
