/**
 * The `event_signatures` table: the signature of an event under one signing key, stored so that no
 * process signs the same (event, key) twice.
 *
 * @module store/event-signatures
 */
import { sql, type Db } from '../db/database.js';
import { JSON_LIST, jsonRecords } from '../db/dialect.js';

/** Stored signatures of `keyId` for the given events, by event id. */
export async function storedSignatures(db: Db, keyId: string, eventIds: readonly string[]): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  if (eventIds.length === 0) return out;
  const rows = (await db.all(
    sql`SELECT event_id AS "eventId", signature FROM event_signatures WHERE key_id = ? AND event_id IN (${JSON_LIST})`,
    [keyId, JSON.stringify(eventIds)],
  )) as { eventId: string; signature: string }[];
  for (const r of rows) out.set(r.eventId, r.signature);
  return out;
}

/** An event's body as a dispatcher's pass reads it, with its stored signature by one key when that was asked for and exists. */
export interface EventBodyRow {
  id: string;
  type: string;
  body: string;
  traceContext: string | null;
  signature?: string | null;
}

/**
 * Type, body and trace context of each event id given (unknown ids are left out), each with its
 * stored signature by `keyId` if it has one: what a dispatcher's pass needs of its claimed events,
 * in one statement.
 */
export async function bodiesWithSignatures(db: Db, keyId: string, eventIds: readonly string[]): Promise<EventBodyRow[]> {
  if (eventIds.length === 0) return [];
  return await db.all<EventBodyRow>(
    sql`SELECT e.id, e.type, e.body, e.trace_context AS "traceContext", s.signature FROM events e
          LEFT JOIN event_signatures s ON s.event_id = e.id AND s.key_id = ?
         WHERE e.id IN (${JSON_LIST})`,
    [keyId, JSON.stringify(eventIds)],
  );
}

/** Every stored signature of the given events, whatever its key, in (event, key) order. */
export async function signaturesOf(db: Db, eventIds: readonly string[]): Promise<{ eventId: string; keyId: string; signature: string }[]> {
  return (await db.all(
    sql`SELECT event_id AS "eventId", key_id AS "keyId", signature FROM event_signatures WHERE event_id IN (${JSON_LIST}) ORDER BY event_id, key_id`,
    [JSON.stringify(eventIds)],
  )) as { eventId: string; keyId: string; signature: string }[];
}

/** Many signatures in one statement (one JSON parameter), each kept only while its event exists. */
const STORE_SIGNATURES = sql`INSERT INTO event_signatures (event_id, key_id, signature)
    SELECT r."eventId", r."keyId", r.signature FROM ${jsonRecords('r', [
      ['eventId', 'text'],
      ['keyId', 'text'],
      ['signature', 'text'],
    ])}
     WHERE EXISTS (SELECT 1 FROM events WHERE id = r."eventId") ON CONFLICT DO NOTHING`;

export async function storeSignatures(db: Db, signatures: readonly { eventId: string; keyId: string; signature: string }[]): Promise<void> {
  if (signatures.length)
    await db.run(STORE_SIGNATURES, [JSON.stringify(signatures.map(({ eventId, keyId, signature }) => ({ eventId, keyId, signature })))]);
}

/**
 * Stores a signature unless one is stored for (event, key). An event deleted since it was signed
 * (retention) is skipped rather than failing the foreign key: signatures are stored in batches,
 * well after they were made, and one gone event must not cost the others their write.
 */
export async function storeSignature(db: Db, eventId: string, keyId: string, signature: string): Promise<void> {
  await db.run(
    'INSERT INTO event_signatures (event_id, key_id, signature) SELECT ?, ?, ? WHERE EXISTS (SELECT 1 FROM events WHERE id = ?) ON CONFLICT DO NOTHING',
    [eventId, keyId, signature, eventId],
  );
}
