/**
 * The `service_meta` table: facts about the database itself, such as the master-key canary. Read
 * before migrations run (a database from before the table exists answers undefined).
 *
 * @module store/service-meta
 */
import { randomBytes } from 'node:crypto';
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

/** The size of the storage probe's value: several pages, so it needs space the database must find or grow. */
const PROBE_BYTES = 16 * 1024;

/**
 * A write that needs free space, removed at once: it throws the engine's own disk-full error while
 * the database or its disk is full, and succeeds once space returns.
 */
export async function probeStorage(db: Db): Promise<void> {
  await db.run(
    "INSERT INTO service_meta (key, value) VALUES ('storage_probe', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
    // Random text: PostgreSQL compresses a long value, and a repeated character would take no space.
    [randomBytes((PROBE_BYTES * 3) / 4).toString('base64')],
  );
  await db.run("DELETE FROM service_meta WHERE key = 'storage_probe'");
}
