/**
 * The `idempotency_keys` table: the answer kept for each caller's Idempotency-Key until it expires.
 *
 * @module store/idempotency-keys
 */
import type { Db } from '../db/database.js';

export interface KeptAnswer {
  scope: string;
  key: string;
  fingerprint: string;
  status: number;
  /** The answer's own headers, as a JSON object. */
  headers: string;
  /**
   * The answer's body as JSON text; null for an answer without one. An answer whose headers say
   * `Cache-Control: no-store` (it carries a secret) keeps it sealed under the master key (api/idempotency.ts).
   */
  body: string | null;
  createdAt: number;
  expiresAt: number;
}

const COLUMNS = 'scope, key, fingerprint, status, headers, body, created_at AS "createdAt", expires_at AS "expiresAt"';

/** The answer kept for this caller's key, unless it has expired by `now` (ms). */
export async function findKeptAnswer(db: Db, scope: string, key: string, now: number): Promise<KeptAnswer | undefined> {
  return await db.get<KeptAnswer>(`SELECT ${COLUMNS} FROM idempotency_keys WHERE scope = ? AND key = ? AND expires_at > ?`, [
    scope,
    key,
    now,
  ]);
}

/** Keeps an answer; an expired row of the same key (not pruned yet) is replaced. */
export async function keepAnswer(db: Db, row: KeptAnswer): Promise<void> {
  await db.run(
    `INSERT INTO idempotency_keys (scope, key, fingerprint, status, headers, body, created_at, expires_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (scope, key) DO UPDATE SET fingerprint = excluded.fingerprint, status = excluded.status,
       headers = excluded.headers, body = excluded.body, created_at = excluded.created_at, expires_at = excluded.expires_at`,
    [row.scope, row.key, row.fingerprint, row.status, row.headers, row.body, row.createdAt, row.expiresAt],
  );
}

/** Deletes at most `limit` keys expired before `before` (ms); says how many. */
export async function deleteExpiredKeys(db: Db, before: number, limit: number): Promise<number> {
  return await db.run(
    'DELETE FROM idempotency_keys WHERE (scope, key) IN (SELECT scope, key FROM idempotency_keys WHERE expires_at < ? LIMIT ?)',
    [before, limit],
  );
}
