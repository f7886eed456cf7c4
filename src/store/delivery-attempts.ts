/**
 * The `delivery_attempts` table: one row per HTTP attempt of a delivery, whatever its outcome.
 *
 * @module store/delivery-attempts
 */
import type { Db } from '../db/database.js';

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
}

export async function insertAttempt(db: Db, a: AttemptRecord): Promise<void> {
  await db.run(
    `INSERT INTO delivery_attempts (id, delivery_id, attempt, started_at, duration_ms, status_code, error, response_body, key_id)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    [a.id, a.deliveryId, a.attempt, a.startedAt, a.durationMs, a.statusCode, a.error, a.responseBody, a.keyId],
  );
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

export async function listAttempts(db: Db, deliveryId: string): Promise<AttemptRecord[]> {
  return (await db.all(
    `SELECT id, delivery_id AS "deliveryId", attempt, started_at AS "startedAt", duration_ms AS "durationMs", status_code AS "statusCode",
              error, response_body AS "responseBody", key_id AS "keyId"
       FROM delivery_attempts WHERE delivery_id = ? ORDER BY attempt, id`,
    [deliveryId],
  )) as AttemptRecord[];
}
