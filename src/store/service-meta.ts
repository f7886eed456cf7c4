/**
 * The `service_meta` table: facts about the database itself, such as the master-key canary. Read
 * before migrations run (a database from before the table exists answers undefined).
 *
 * @module store/service-meta
 */
import { hasTable, type Db } from '../db/open.js';

export function readServiceMeta(db: Db, key: string): string | undefined {
  if (!hasTable(db, 'service_meta')) return undefined;
  return db.prepare('SELECT value FROM service_meta WHERE key = ?').pluck().get(key) as string | undefined;
}

/** Records a value unless one is recorded: two processes starting together agree on the first. */
export function recordServiceMetaOnce(db: Db, key: string, value: string): void {
  db.prepare('INSERT OR IGNORE INTO service_meta (key, value) VALUES (?, ?)').run(key, value);
}

/** Forgets a recorded value, leaving the database as one from before it was recorded. */
export function deleteServiceMeta(db: Db, key: string): void {
  db.prepare('DELETE FROM service_meta WHERE key = ?').run(key);
}

/** Where values sealed under the master key live. */
const SEALED = [
  ['token_keys', 'private_enc'],
  ['webhook_keys', 'private_enc'],
  ['card_network_keys', 'private_enc'],
  ['integrations', 'credentials_enc'],
  ['inbound_events', 'payload_enc'],
] as const;

/** Whether any table holds a value sealed under the master key: such a database depends on its key. */
export function holdsSealedValues(db: Db): boolean {
  return SEALED.some(
    ([table, column]) =>
      hasTable(db, table) && db.prepare(`SELECT 1 FROM ${table} WHERE ${column} IS NOT NULL LIMIT 1`).get() !== undefined,
  );
}
