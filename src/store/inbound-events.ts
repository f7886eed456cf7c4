/**
 * The `inbound_events` table and its companions: card-network notifications as received, their
 * decryption queue and outcomes, the redelivered copies held or replaced, and the ica to
 * organization mappings.
 *
 * @module store/inbound-events
 */
import { columnsAs, sql, type Db } from '../db/database.js';
import { indexedBy, JSON_LIST } from '../db/dialect.js';

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
  /** The W3C traceparent of the intake span that stored the current copy (tracing on), which decryption continues. */
  traceContext: string | null;
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
  trace_context: string | null;
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
  traceContext: r.trace_context,
});

export type NewInboundEvent = Pick<
  InboundEvent,
  'id' | 'eventId' | 'eventType' | 'eventCreatedDate' | 'ica' | 'orgId' | 'rawBody' | 'receivedAt' | 'traceContext'
> & {
  state: 'received' | 'unmatched';
  /** The source address (addressKey), for the cap on what one unmatched sender stores. */
  sender: string | null;
};

/** Inserts unless the eventId is already stored for this ica; true when this call stored it. */
export async function insertInboundEvent(db: Db, e: NewInboundEvent): Promise<boolean> {
  const result = await db.run(
    `INSERT INTO inbound_events (id, event_id, event_type, event_created_date, ica, org_id, raw_body, state, attempts,
         next_attempt_at, received_at, updated_at, sender, trace_context)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, 0, ?, ?, ?, ?, ?)
       ON CONFLICT (event_id, ica) DO NOTHING`,
    [
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
      e.sender,
      e.traceContext,
    ],
  );
  return result === 1;
}

/** How many notifications for unmapped icas this sender has stored, counting up to `atMost`. */
export async function countUnmatchedFrom(db: Db, sender: string, atMost: number): Promise<number> {
  return Number(
    await db.value("SELECT COUNT(*) FROM (SELECT 1 FROM inbound_events WHERE sender = ? AND state = 'unmatched' LIMIT ?) AS capped", [
      sender,
      atMost,
    ]),
  );
}

/** How many notifications this sender has stored in any state, mapped or not, counting up to `atMost`. */
export async function countStoredFrom(db: Db, sender: string, atMost: number): Promise<number> {
  return Number(await db.value('SELECT COUNT(*) FROM (SELECT 1 FROM inbound_events WHERE sender = ? LIMIT ?) AS capped', [sender, atMost]));
}

/** The bytes of one copy of a notification, and when that copy arrived. */
export type NotificationCopy = Pick<InboundEvent, 'eventType' | 'eventCreatedDate' | 'rawBody'> & { receivedAt: string };

/**
 * Moves the copy a row holds to inbound_event_replaced_copies (its bytes kept for forensics) and
 * queues `copy` in its place, due now, with the trace context of the intake that took it. Call
 * inside a transaction.
 */
export async function replaceCopy(
  db: Db,
  id: string,
  copy: NotificationCopy,
  nowIso: string,
  traceContext: string | null = null,
): Promise<void> {
  await db.run(
    `INSERT INTO inbound_event_replaced_copies (inbound_id, seq, raw_body, event_type, event_created_date, failure_code, failure_reason, kid,
       attempts, received_at, replaced_at)
     SELECT e.id, COALESCE((SELECT MAX(seq) FROM inbound_event_replaced_copies WHERE inbound_id = e.id), 0) + 1, e.raw_body, e.event_type,
       e.event_created_date, e.failure_code, e.failure_reason, e.kid, e.attempts, COALESCE(e.copy_received_at, e.received_at), ?
     FROM inbound_events e WHERE e.id = ?`,
    [nowIso, id],
  );
  await db.run(
    `UPDATE inbound_events SET raw_body = ?, event_type = ?, event_created_date = ?, copy_received_at = ?, state = 'received', attempts = 0,
       next_attempt_at = ?, failure_code = NULL, failure_reason = NULL, kid = NULL, updated_at = ?, trace_context = ?
     WHERE id = ?`,
    [copy.rawBody, copy.eventType, copy.eventCreatedDate, copy.receivedAt, nowIso, nowIso, traceContext, id],
  );
}

/** Each field of a held copy and its column in inbound_event_held_copies: its insert and its read. */
const HELD_COPY_COLUMNS = {
  seq: 'seq',
  rawBody: 'raw_body',
  eventType: 'event_type',
  eventCreatedDate: 'event_created_date',
  receivedAt: 'received_at',
} as const satisfies Record<keyof HeldCopy, string>;
const HELD_COPY_FIELDS = Object.keys(HELD_COPY_COLUMNS) as (keyof HeldCopy)[];

/** What became of a copy offered to holdCopy. */
export type HoldOutcome = 'held' | 'known' | 'full';

/**
 * Holds a redelivered copy of row `id`'s notification: `held`, unless these bytes are already held
 * (`known`) or `maxHeld` copies are (`full`). Which copies are held at all is the caller's rule.
 * Call inside a transaction.
 */
export async function holdCopy(db: Db, id: string, copy: NotificationCopy, maxHeld: number): Promise<HoldOutcome> {
  const held = (await db.get(
    'SELECT COUNT(*) AS n, MAX(seq) AS last, SUM(CASE WHEN raw_body = ? THEN 1 ELSE 0 END) AS same FROM inbound_event_held_copies WHERE inbound_id = ?',
    [copy.rawBody, id],
  )) as {
    n: number;
    last: number | null;
    same: number | null;
  };
  if (held.same) return 'known';
  if (held.n >= maxHeld) return 'full';
  const row: HeldCopy = { seq: (held.last ?? 0) + 1, ...copy };
  await db.run(
    `INSERT INTO inbound_event_held_copies (inbound_id, ${Object.values(HELD_COPY_COLUMNS).join(', ')})
     VALUES (?, ${HELD_COPY_FIELDS.map(() => '?').join(', ')})`,
    [id, ...HELD_COPY_FIELDS.map((f) => row[f])],
  );
  return 'held';
}

/**
 * After the row's copy failed: a held copy (the oldest, or the one numbered `seq`) takes its place
 * and is queued, the failed copy moving to the replaced copies. True when there was one. Call
 * inside a transaction.
 */
export async function promoteHeldCopy(db: Db, id: string, nowIso: string, seq?: number): Promise<boolean> {
  // At most a few are held (MAX_HELD_COPIES): reading them all keeps one query and one row mapping.
  const held = await listHeldCopies(db, id);
  const chosen = seq === undefined ? held[0] : held.find((c) => c.seq === seq);
  if (!chosen) return false;
  const { seq: chosenSeq, ...copy } = chosen;
  await replaceCopy(db, id, copy, nowIso);
  await db.run('DELETE FROM inbound_event_held_copies WHERE inbound_id = ? AND seq = ?', [id, chosenSeq]);
  return true;
}

/** A redelivered copy waiting for the stored copy to be decided. */
export type HeldCopy = { seq: number } & NotificationCopy;

/** The copies held for a notification, oldest first. */
export async function listHeldCopies(db: Db, inboundId: string): Promise<HeldCopy[]> {
  return await db.all<HeldCopy>(`SELECT ${columnsAs(HELD_COPY_COLUMNS)} FROM inbound_event_held_copies WHERE inbound_id = ? ORDER BY seq`, [
    inboundId,
  ]);
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

/** Each field of a replaced copy and its column in inbound_event_replaced_copies. */
const REPLACED_COPY_COLUMNS = {
  seq: 'seq',
  rawBody: 'raw_body',
  eventType: 'event_type',
  eventCreatedDate: 'event_created_date',
  failureCode: 'failure_code',
  failureReason: 'failure_reason',
  kid: 'kid',
  attempts: 'attempts',
  receivedAt: 'received_at',
  replacedAt: 'replaced_at',
} as const satisfies Record<keyof ReplacedCopy, string>;

/** The copies a redelivery replaced, oldest first. */
export async function listReplacedCopies(db: Db, inboundId: string): Promise<ReplacedCopy[]> {
  return await db.all<ReplacedCopy>(
    `SELECT ${columnsAs(REPLACED_COPY_COLUMNS)} FROM inbound_event_replaced_copies WHERE inbound_id = ? ORDER BY seq`,
    [inboundId],
  );
}

/**
 * A notification by its eventId and ica; without the ica, the first stored of that eventId (another
 * ica's copy of the same eventId is another notification, listInboundEventsByEventId has them all).
 */
export async function getInboundEventByEventId(db: Db, eventId: string, ica?: string): Promise<InboundEvent | undefined> {
  const row = (
    ica === undefined
      ? await db.get('SELECT * FROM inbound_events WHERE event_id = ? ORDER BY id LIMIT 1', [eventId])
      : await db.get('SELECT * FROM inbound_events WHERE event_id = ? AND ica = ?', [eventId, ica])
  ) as Row | undefined;
  return row && toEvent(row);
}

/** Every notification stored with this eventId, one per ica, oldest first. */
export async function listInboundEventsByEventId(db: Db, eventId: string): Promise<InboundEvent[]> {
  return ((await db.all('SELECT * FROM inbound_events WHERE event_id = ? ORDER BY id', [eventId])) as Row[]).map(toEvent);
}

export async function getInboundEvent(db: Db, id: string): Promise<InboundEvent | undefined> {
  const row = (await db.get('SELECT * FROM inbound_events WHERE id = ?', [id])) as Row | undefined;
  return row && toEvent(row);
}

/** When the copy a row holds arrived, if a redelivery put it there (null for the first copy; undefined for an unknown id). */
export async function copyReceivedAt(db: Db, id: string): Promise<string | null | undefined> {
  return (await db.value('SELECT copy_received_at FROM inbound_events WHERE id = ?', [id])) as string | null | undefined;
}

export interface InboundFilter {
  state?: InboundState | undefined;
  eventType?: string | undefined;
  startingAfter?: string | undefined;
  limit?: number | undefined;
}

export async function listInboundEvents(db: Db, f: InboundFilter = {}): Promise<InboundEvent[]> {
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
  return ((await db.all(sql, [...args, f.limit ?? 1000])) as Row[]).map(toEvent);
}

/** Rows due for a decryption attempt, oldest first. */
export async function dueInboundEvents(db: Db, nowIso: string, limit: number): Promise<InboundEvent[]> {
  return (
    (await db.all("SELECT * FROM inbound_events WHERE state = 'received' AND next_attempt_at <= ? ORDER BY next_attempt_at, id LIMIT ?", [
      nowIso,
      limit,
    ])) as Row[]
  ).map(toEvent);
}

/** The earliest next_attempt_at among queued rows, so the worker can sleep until then. */
export async function nextDueAt(db: Db): Promise<string | undefined> {
  const row = (await db.get("SELECT MIN(next_attempt_at) AS at FROM inbound_events WHERE state = 'received'")) as { at: string | null };
  return row.at ?? undefined;
}

/**
 * The outcome of one attempt. Guarded by the attempt count, the copy (its bytes) and the
 * organization the worker read, so a row requeued, finished or moved by another process meanwhile
 * is left alone (returns false). The attempt count alone is not enough: a held copy put in place of
 * a failed one, and a row moved to another organization by an ica mapping, start again at 0
 * attempts, and an outcome made for the old copy or with the old organization's keys would pass.
 */
export async function recordAttempt(
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
): Promise<boolean> {
  if (outcome.state === 'decrypted') {
    const done =
      (await db.run(
        `UPDATE inbound_events SET state = 'decrypted', attempts = attempts + 1, kid = ?, payload_enc = ?, decrypted_at = ?,
             next_attempt_at = NULL, failure_code = NULL, failure_reason = NULL, updated_at = ?
           WHERE id = ? AND state = 'received' AND attempts = ? AND raw_body = ? AND org_id = ?`,
        [outcome.kid, outcome.payloadEnc, outcome.at, outcome.at, id, seen.attempts, seen.rawBody, seen.orgId],
      )) === 1;
    // The event is processed: copies held in case this one failed are not needed any more.
    if (done) await db.run('DELETE FROM inbound_event_held_copies WHERE inbound_id = ?', [id]);
    return done;
  }
  return (
    (await db.run(
      `UPDATE inbound_events SET state = ?, attempts = attempts + 1, kid = ?, failure_code = ?, failure_reason = ?,
           next_attempt_at = ?, updated_at = ?
         WHERE id = ? AND state = 'received' AND attempts = ? AND raw_body = ? AND org_id = ?`,
      [
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
      ],
    )) === 1
  );
}

/** Puts a failed (or queued) row back in the queue, due now, with a fresh attempt count. */
export async function requeueInboundEvent(db: Db, id: string, nowIso: string): Promise<boolean> {
  return (
    (await db.run(
      `UPDATE inbound_events SET state = 'received', attempts = 0, next_attempt_at = ?, updated_at = ?
         WHERE id = ? AND state IN ('failed', 'received') AND org_id IS NOT NULL`,
      [nowIso, nowIso, id],
    )) === 1
  );
}

export async function requeueAllFailed(db: Db, nowIso: string): Promise<number> {
  return await db.run(
    `UPDATE inbound_events SET state = 'received', attempts = 0, next_attempt_at = ?, updated_at = ?
       WHERE state = 'failed' AND org_id IS NOT NULL`,
    [nowIso, nowIso],
  );
}

/** Assigns the organization to unmatched rows of an ica and queues them; returns how many. */
export async function matchUnmatched(db: Db, ica: string, orgId: string, nowIso: string): Promise<number> {
  return await db.run(
    `UPDATE inbound_events SET org_id = ?, state = 'received', attempts = 0, next_attempt_at = ?, updated_at = ?
       WHERE ica = ? AND state = 'unmatched'`,
    [orgId, nowIso, nowIso, ica],
  );
}

/**
 * Moves an ica's notifications that are not decrypted yet (waiting or failed) from another
 * organization to `orgId` and queues them afresh (the old organization's failure says nothing of the
 * new one); returns how many. After a remap they are attributed to
 * the wrong organization, whose keys cannot open them. Decrypted ones stay: a key of their
 * organization opened them.
 */
export async function reassignUndecrypted(db: Db, ica: string, orgId: string, nowIso: string): Promise<number> {
  return await db.run(
    `UPDATE inbound_events SET org_id = ?, state = 'received', attempts = 0, next_attempt_at = ?,
       failure_code = NULL, failure_reason = NULL, updated_at = ?
       WHERE ica = ? AND state IN ('received', 'failed') AND org_id IS NOT NULL AND org_id <> ?`,
    [orgId, nowIso, nowIso, ica, orgId],
  );
}

export async function unmatchedIcas(db: Db): Promise<string[]> {
  return ((await db.all("SELECT DISTINCT ica FROM inbound_events WHERE state = 'unmatched'")) as { ica: string }[]).map((r) => r.ica);
}

export interface IcaMapping {
  ica: string;
  orgId: string;
  createdAt: string;
}

export async function upsertIcaMapping(db: Db, m: IcaMapping): Promise<void> {
  await db.run(
    'INSERT INTO inbound_ica_organizations (ica, org_id, created_at) VALUES (?, ?, ?) ON CONFLICT (ica) DO UPDATE SET org_id = excluded.org_id',
    [m.ica, m.orgId, m.createdAt],
  );
}

/** Each field of an ica mapping and its column in inbound_ica_organizations. */
const ICA_MAPPING_COLUMNS = { ica: 'ica', orgId: 'org_id', createdAt: 'created_at' } as const satisfies Record<keyof IcaMapping, string>;

export async function getIcaMapping(db: Db, ica: string): Promise<IcaMapping | undefined> {
  return await db.get<IcaMapping>(`SELECT ${columnsAs(ICA_MAPPING_COLUMNS)} FROM inbound_ica_organizations WHERE ica = ?`, [ica]);
}

export async function listIcaMappings(db: Db): Promise<IcaMapping[]> {
  return await db.all<IcaMapping>(`SELECT ${columnsAs(ICA_MAPPING_COLUMNS)} FROM inbound_ica_organizations ORDER BY ica`);
}

export async function deleteIcaMapping(db: Db, ica: string): Promise<boolean> {
  return (await db.run('DELETE FROM inbound_ica_organizations WHERE ica = ?', [ica])) === 1;
}

/** The inbound states a backlog counts: queued for decryption, failed for good (dead letters), and waiting for an ica mapping. */
export const BACKLOG_STATES = ['received', 'failed', 'unmatched'] as const satisfies readonly InboundState[];

/** Rows in each backlog state from the (state, id) index, each count stopped at `cap` entries. */
export async function inboundBacklog(db: Db, cap: number): Promise<Record<(typeof BACKLOG_STATES)[number], number>> {
  const counts = { received: 0, failed: 0, unmatched: 0 };
  for (const state of BACKLOG_STATES) {
    const n = await db.value<number>(
      sql`SELECT COUNT(*) FROM (SELECT 1 FROM inbound_events ${indexedBy('inbound_events_state_id')} WHERE state = ? LIMIT ?) capped`,
      [state, cap],
    );
    counts[state] = Number(n ?? 0);
  }
  return counts;
}

/** Which notifications a deletion takes: one state, received before a time, of one ica. */
export interface InboundDeletion {
  state: Exclude<InboundState, 'received'>;
  receivedBefore?: string | undefined;
  ica?: string | undefined;
}

/**
 * Deletes up to `limit` notifications of a state received before a time (their held and replaced
 * copies go with them, ON DELETE CASCADE); returns how many. Called until it deletes none, so each
 * call is one short transaction. The walk follows (state, received_at).
 */
export async function deleteInboundEvents(db: Db, d: InboundDeletion, limit: number): Promise<number> {
  const where = ['state = ?'];
  const args: unknown[] = [d.state];
  if (d.receivedBefore !== undefined) {
    where.push('received_at < ?');
    args.push(d.receivedBefore);
  }
  if (d.ica !== undefined) {
    where.push('ica = ?');
    args.push(d.ica);
  }
  const ids = (await db.column(`SELECT id FROM inbound_events WHERE ${where.join(' AND ')} LIMIT ?`, [...args, limit])) as string[];
  if (ids.length === 0) return 0;
  return await db.run(sql`DELETE FROM inbound_events WHERE id IN (${JSON_LIST})`, [JSON.stringify(ids)]);
}
