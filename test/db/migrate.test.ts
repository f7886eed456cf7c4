import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Db } from '../../src/db/database.js';
import { isMigrated, listMigrations, migrate, schemaVersion, SchemaTooNewError } from '../../src/db/migrate.js';
import { databaseBefore, openSqlite, tempDir } from '../support/context.js';
import { openConfigured } from './fixtures/configured-database.js';

const tables = (db: Db) => db.column<string>("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name");

describe('migrations', () => {
  it('apply once, and a second run changes nothing', async () => {
    const db = openSqlite(join(tempDir(), 'm.db'));
    const first = await migrate(db);
    expect(first.map((m) => m.version)).toEqual(listMigrations('sqlite').map((m) => m.version));
    expect(await schemaVersion(db)).toBe(listMigrations('sqlite').at(-1)!.version);
    const before = await tables(db);
    expect(await migrate(db)).toEqual([]);
    expect(await tables(db)).toEqual(before);
    expect(await isMigrated(db)).toBe(true);
  });

  it('uses WAL, foreign keys and a busy timeout', async () => {
    const db = openConfigured(join(tempDir(), 'p.db'), { busyTimeoutMs: 1234 });
    expect(await db.value('PRAGMA journal_mode')).toBe('wal');
    expect(await db.value('PRAGMA foreign_keys')).toBe(1);
    expect(await db.value('PRAGMA busy_timeout')).toBe(1234);
  });

  it('rolls a failing migration back whole', async () => {
    const db = openSqlite(join(tempDir(), 'f.db'));
    const bad = [{ version: 1, name: 'broken', sql: 'CREATE TABLE a (x INTEGER); INSERT INTO nowhere VALUES (1);' }];
    await expect(migrate(db, bad)).rejects.toThrow(/no such table: nowhere/);
    expect(await db.get("SELECT name FROM sqlite_master WHERE name = 'a'")).toBeUndefined();
    expect(await db.get('SELECT COUNT(*) AS n FROM schema_migrations')).toEqual({ n: 0 });
  });

  it('refuses a database a newer borderd migrated, and changes nothing in it', async () => {
    const db = openSqlite(join(tempDir(), 'n.db'));
    const known = listMigrations();
    await migrate(db, known.slice(0, -1));
    const latest = known.at(-1)!.version;
    await db.run("INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, 'from_a_newer_release', 'x')", [latest + 1]);
    await expect(migrate(db)).rejects.toThrow(SchemaTooNewError);
    await expect(migrate(db)).rejects.toThrow(`is at schema version ${latest + 1}, newer than this borderd knows (${latest})`);
    // The migration it does know and lacks was not applied either: nothing is written to a schema it does not know.
    expect(await db.get('SELECT 1 FROM schema_migrations WHERE version = ?', [latest])).toBeUndefined();
  });

  it('a fresh database is not ready until migrated', async () => {
    const db = openSqlite(join(tempDir(), 'r.db'));
    expect(await isMigrated(db)).toBe(false);
    await expect(schemaVersion(db)).rejects.toThrow(/no such table: schema_migrations/);
    await migrate(db);
    expect(await isMigrated(db)).toBe(true);
  });
});

describe('migration 011', () => {
  it('rewrites the stored full names to "first last", or empty when a name is missing, and no other row', async () => {
    const db = await databaseBefore(11);
    const at = '2026-01-01T00:00:00.000Z';
    await db.run('INSERT INTO organizations (id, name, created_at) VALUES (?, ?, ?)', ['org_1', 'Acme', at]);
    // Full names as they were stored before: "first last", trimmed.
    const rows: [string, string, string, string][] = [
      ['idn_both', 'ana', 'garcía', 'ana garcía'],
      ['idn_lead', ' ana', 'garcía', 'ana garcía'],
      ['idn_first', 'ann', '', 'ann'],
      ['idn_last', '', 'annan', 'annan'],
      ['idn_none', '', '', ''],
    ];
    for (const [id, first, last, full] of rows) {
      await db.run(
        `INSERT INTO identities (id, org_id, type, data, first_name_lc, last_name_lc, full_name_lc, created_at) VALUES (?, 'org_1', 'Personal', '{}', ?, ?, ?, ?)`,
        [id, first, last, full, at],
      );
    }
    // total_changes() counts the rows written on this connection: the database's only one.
    const changes = async () => (await db.value<number>('SELECT total_changes()'))!;
    const before = await changes();
    await migrate(
      db,
      listMigrations().filter((m) => m.version === 11),
    );
    expect(await db.all('SELECT id, full_name_lc AS full FROM identities ORDER BY id')).toEqual([
      { id: 'idn_both', full: 'ana garcía' },
      { id: 'idn_first', full: '' },
      { id: 'idn_last', full: '' },
      { id: 'idn_lead', full: ' ana garcía' },
      { id: 'idn_none', full: '' },
    ]);
    // Three identity rows rewritten, plus the schema_migrations row: the unchanged ones were not written.
    expect((await changes()) - before).toBe(4);
  });
});

describe('migration 012', () => {
  it('records when a copy that replaced another arrived: when it replaced it', async () => {
    const db = await databaseBefore(12);
    const insert = (id: string, eventId: string) =>
      db.run(
        `INSERT INTO inbound_events (id, event_id, event_type, event_created_date, ica, org_id, raw_body, state, attempts, received_at, updated_at)
         VALUES (?, ?, 'T', '2026-01-01T00:00:00.000Z', '1', NULL, '{}', 'unmatched', 0, '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z')`,
        [id, eventId],
      );
    await insert('inb_replaced', 'ev-r');
    await insert('inb_plain', 'ev-p');
    const copy = (seq: number, receivedAt: string, replacedAt: string) =>
      db.run(
        `INSERT INTO inbound_event_replaced_copies (inbound_id, seq, raw_body, event_type, event_created_date, failure_code, attempts, received_at, replaced_at)
         VALUES ('inb_replaced', ?, '{}', 'T', '2026-01-01T00:00:00.000Z', 'decryption_failed', 1, ?, ?)`,
        [seq, receivedAt, replacedAt],
      );
    await copy(1, '2026-01-01T00:00:00.000Z', '2026-01-02T00:00:00.000Z');
    await copy(2, '2026-01-02T00:00:00.000Z', '2026-01-03T00:00:00.000Z');
    await migrate(db);
    expect(await db.all('SELECT id, copy_received_at AS at FROM inbound_events ORDER BY id')).toEqual([
      { id: 'inb_plain', at: null },
      { id: 'inb_replaced', at: '2026-01-03T00:00:00.000Z' },
    ]);
    expect(await db.get("SELECT name FROM sqlite_master WHERE name = 'inbound_event_held_copies'")).toEqual({
      name: 'inbound_event_held_copies',
    });
  });
});
