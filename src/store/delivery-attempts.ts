/**
 * The `delivery_attempts` table: one row per HTTP attempt of a delivery, whatever its outcome.
 *
 * @module store/delivery-attempts
 */
import type { Db } from '../db/open.js';

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

export function insertAttempt(db: Db, a: AttemptRecord): void {
  db.prepare(
    `INSERT INTO delivery_attempts (id, delivery_id, attempt, started_at, duration_ms, status_code, error, response_body, key_id)
     VALUES (@id, @deliveryId, @attempt, @startedAt, @durationMs, @statusCode, @error, @responseBody, @keyId)`,
  ).run(a);
}

/**
 * How many of a delivery's latest attempts in a row failed with an error starting with `prefix`
 * (borderd's own signing failures): their count sets their backoff, apart from the endpoint's step.
 */
export function trailingAttemptsFailedWith(db: Db, deliveryId: string, prefix: string): number {
  return db
    .prepare(
      `SELECT COUNT(*) FROM delivery_attempts WHERE delivery_id = @deliveryId AND attempt > COALESCE(
         (SELECT MAX(attempt) FROM delivery_attempts WHERE delivery_id = @deliveryId AND (error IS NULL OR substr(error, 1, length(@prefix)) <> @prefix)), 0)`,
    )
    .pluck()
    .get({ deliveryId, prefix }) as number;
}

export function listAttempts(db: Db, deliveryId: string): AttemptRecord[] {
  return db
    .prepare(
      `SELECT id, delivery_id AS deliveryId, attempt, started_at AS startedAt, duration_ms AS durationMs, status_code AS statusCode,
              error, response_body AS responseBody, key_id AS keyId
       FROM delivery_attempts WHERE delivery_id = ? ORDER BY attempt, id`,
    )
    .all(deliveryId) as AttemptRecord[];
}
