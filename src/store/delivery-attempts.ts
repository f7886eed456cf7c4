/**
 * The `delivery_attempts` table: one row per HTTP attempt of a delivery, whatever its outcome.
 *
 * @module store/delivery-attempts
 */
import { sql, type Db } from '../db/database.js';
import { indexedBy, jsonRecords, type JsonColumn } from '../db/dialect.js';
import { succeededSql } from '../domain/delivery-rules.js';

export interface AttemptRecord {
  id: string;
  deliveryId: string;
  attempt: number;
  startedAt: string;
  durationMs: number;
  statusCode: number | null;
  error: string | null;
  responseBody: string | null;
  keyId: string | null;
  /**
   * What the attempt stored of the headers its request went out with, as compact JSON: the values
   * made at its send (domain/delivery-headers.ts storedHeaders; an older borderd stored every
   * header), `{}` when nothing went out; null for attempts recorded before headers were kept.
   */
  requestHeaders: string | null;
}

/**
 * Each field of an attempt, its column and its type: the one list the inserts (one row, or a batch
 * from one JSON parameter) and the reads of the table are built from.
 */
const ATTEMPT_COLUMNS: { readonly [F in keyof AttemptRecord]-?: readonly [column: string, type: JsonColumn[1]] } = {
  id: ['id', 'text'],
  deliveryId: ['delivery_id', 'text'],
  attempt: ['attempt', 'integer'],
  startedAt: ['started_at', 'text'],
  durationMs: ['duration_ms', 'integer'],
  statusCode: ['status_code', 'integer'],
  error: ['error', 'text'],
  responseBody: ['response_body', 'text'],
  keyId: ['key_id', 'text'],
  requestHeaders: ['request_headers', 'text'],
};
const FIELDS = Object.keys(ATTEMPT_COLUMNS) as (keyof AttemptRecord)[];
const COLUMNS = FIELDS.map((f) => ATTEMPT_COLUMNS[f][0]).join(', ');

const INSERT_ATTEMPT = `INSERT INTO delivery_attempts (${COLUMNS}) VALUES (${FIELDS.map(() => '?').join(', ')})`;

export async function insertAttempt(db: Db, a: AttemptRecord): Promise<void> {
  await db.run(
    INSERT_ATTEMPT,
    FIELDS.map((f) => a[f]),
  );
}

/** Many attempts in one statement, from one JSON parameter: what a batch of results writes. */
const INSERT_ATTEMPTS = sql`INSERT INTO delivery_attempts (${COLUMNS})
    SELECT ${FIELDS.map((f) => `r."${f}"`).join(', ')} FROM ${jsonRecords(
      'r',
      FIELDS.map((f): JsonColumn => [f, ATTEMPT_COLUMNS[f][1]]),
    )}`;

export async function insertAttempts(db: Db, attempts: readonly AttemptRecord[]): Promise<void> {
  if (attempts.length) await db.run(INSERT_ATTEMPTS, [JSON.stringify(attempts)]);
}

/**
 * How many of a delivery's latest attempts in a row failed with an error starting with `prefix`
 * (borderd's own signing failures): their count sets their backoff, apart from the endpoint's step.
 */
export async function trailingAttemptsFailedWith(db: Db, deliveryId: string, prefix: string): Promise<number> {
  return (await db.value(
    `SELECT COUNT(*) FROM delivery_attempts WHERE delivery_id = ? AND attempt > COALESCE(
         (SELECT MAX(attempt) FROM delivery_attempts
           WHERE delivery_id = ? AND (error IS NULL OR substr(error, 1, length(CAST(? AS TEXT))) <> CAST(? AS TEXT))), 0)`,
    [deliveryId, deliveryId, prefix, prefix],
  )) as number;
}

const SELECT_ATTEMPTS = `SELECT ${FIELDS.map((f) => `${ATTEMPT_COLUMNS[f][0]} AS "${f}"`).join(', ')} FROM delivery_attempts`;

export async function listAttempts(db: Db, deliveryId: string): Promise<AttemptRecord[]> {
  return await db.all<AttemptRecord>(`${SELECT_ATTEMPTS} WHERE delivery_id = ? ORDER BY attempt, id`, [deliveryId]);
}

/** An attempt that got a 2xx, in the statements below. */
const SUCCEEDED = succeededSql('a.status_code');

/** A webhook's attempts in one hour (UTC), for its health: how many, how many got a 2xx, their total duration. */
export interface HourOfAttempts {
  /** The hour as `YYYY-MM-DDTHH`. */
  hour: string;
  attempts: number;
  succeeded: number;
  totalMs: number;
}

/**
 * A webhook's attempts started at or after `sinceIso`, by hour. An attempt updates its delivery's
 * row when it is recorded, so only rows updated since then are read (on (webhook_id, updated_at)),
 * and their attempts by (delivery_id, attempt): the read follows the period, not the history.
 */
export async function attemptsByHour(db: Db, webhookId: string, sinceIso: string): Promise<HourOfAttempts[]> {
  const rows = await db.all<{
    hour: string;
    attempts: number | string;
    succeeded: number | string | null;
    totalMs: number | string | null;
  }>(
    sql`SELECT substr(a.started_at, 1, 13) AS hour, COUNT(*) AS attempts,
               SUM(CASE WHEN ${SUCCEEDED} THEN 1 ELSE 0 END) AS succeeded,
               SUM(a.duration_ms) AS "totalMs"
          FROM deliveries d ${indexedBy('deliveries_webhook_updated')} JOIN delivery_attempts a ON a.delivery_id = d.id
         WHERE d.webhook_id = ? AND d.updated_at >= ? AND a.started_at >= ?
         GROUP BY substr(a.started_at, 1, 13) ORDER BY hour`,
    [webhookId, sinceIso, sinceIso],
  );
  return rows.map((r) => ({
    hour: r.hour,
    attempts: Number(r.attempts),
    succeeded: Number(r.succeeded ?? 0),
    totalMs: Number(r.totalMs ?? 0),
  }));
}

/**
 * How long the webhook's newest attempt started at or after `sinceIso` took; undefined without one.
 * Read like attemptTotals: the rows updated since then, on (webhook_id, updated_at).
 */
export async function lastAttemptDurationMs(db: Db, webhookId: string, sinceIso: string): Promise<number | undefined> {
  const ms = await db.value<number | string>(
    sql`SELECT a.duration_ms FROM deliveries d ${indexedBy('deliveries_webhook_updated')} JOIN delivery_attempts a ON a.delivery_id = d.id
         WHERE d.webhook_id = ? AND d.updated_at >= ? AND a.started_at >= ?
         ORDER BY a.started_at DESC, a.id DESC LIMIT 1`,
    [webhookId, sinceIso, sinceIso],
  );
  return ms === undefined || ms === null ? undefined : Number(ms);
}

/** Attempts of a webhook started at or after `sinceIso`: how many, how many got a 2xx, their total duration. */
export async function attemptTotals(db: Db, webhookId: string, sinceIso: string): Promise<Omit<HourOfAttempts, 'hour'>> {
  const r = (await db.get(
    sql`SELECT COUNT(*) AS attempts, SUM(CASE WHEN ${SUCCEEDED} THEN 1 ELSE 0 END) AS succeeded,
               SUM(a.duration_ms) AS "totalMs"
          FROM deliveries d ${indexedBy('deliveries_webhook_updated')} JOIN delivery_attempts a ON a.delivery_id = d.id
         WHERE d.webhook_id = ? AND d.updated_at >= ? AND a.started_at >= ?`,
    [webhookId, sinceIso, sinceIso],
  )) as { attempts: number | string; succeeded: number | string | null; totalMs: number | string | null };
  return { attempts: Number(r.attempts), succeeded: Number(r.succeeded ?? 0), totalMs: Number(r.totalMs ?? 0) };
}
