/**
 * The `service_meta` table: facts about the database itself, such as the master-key canary. Read
 * before migrations run (a database from before the table exists answers undefined).
 *
 * @module store/service-meta
 */
import { hasTable, type Db } from '../db/database.js';

export async function readServiceMeta(db: Db, key: string): Promise<string | undefined> {
  if (!(await hasTable(db, 'service_meta'))) return undefined;
  return (await db.value('SELECT value FROM service_meta WHERE key = ?', [key])) as string | undefined;
}

/** Records a value unless one is recorded: two processes starting together agree on the first. */
export async function recordServiceMetaOnce(db: Db, key: string, value: string): Promise<void> {
  await db.run('INSERT INTO service_meta (key, value) VALUES (?, ?) ON CONFLICT DO NOTHING', [key, value]);
}

/** Forgets a recorded value, leaving the database as one from before it was recorded. */
export async function deleteServiceMeta(db: Db, key: string): Promise<void> {
  await db.run('DELETE FROM service_meta WHERE key = ?', [key]);
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
export async function holdsSealedValues(db: Db): Promise<boolean> {
  for (const [table, column] of SEALED) {
    if ((await hasTable(db, table)) && (await db.get(`SELECT 1 FROM ${table} WHERE ${column} IS NOT NULL LIMIT 1`)) !== undefined)
      return true;
  }
  return false;
}
