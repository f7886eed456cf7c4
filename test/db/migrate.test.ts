import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/open.js';
import { isMigrated, listMigrations, migrate, SchemaTooNewError } from '../../src/db/migrate.js';
import { databaseBefore, tempDir } from '../support/context.js';

describe('migrations', () => {
  it('apply once, and a second run changes nothing', async () => {
    const db = openDatabase(join(tempDir(), 'm.db'));
    const first = await migrate(db);
    expect(first.map((m) => m.version)).toEqual(listMigrations().map((m) => m.version));
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all();
    expect(await migrate(db)).toEqual([]);
    expect(db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all()).toEqual(tables);
    expect(await isMigrated(db)).toBe(true);
    await db.close();
  });

  it('uses WAL, foreign keys and a busy timeout', async () => {
    const db = openDatabase(join(tempDir(), 'p.db'), { busyTimeoutMs: 1234 });
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.pragma('foreign_keys', { simple: true })).toBe(1);
    expect(db.pragma('busy_timeout', { simple: true })).toBe(1234);
    await db.close();
  });

  it('rolls a failing migration back whole', async () => {
    const db = openDatabase(join(tempDir(), 'f.db'));
    const bad = [{ version: 1, name: 'broken', sql: 'CREATE TABLE a (x INTEGER); INSERT INTO nowhere VALUES (1);' }];
    expect(() => migrate(db, bad)).toThrow();
    expect(db.prepare("SELECT name FROM sqlite_master WHERE name = 'a'").get()).toBeUndefined();
    expect(db.prepare('SELECT COUNT(*) AS n FROM schema_migrations').get()).toEqual({ n: 0 });
    await db.close();
  });

  it('refuses a database a newer borderd migrated, and changes nothing in it', async () => {
    const db = openDatabase(join(tempDir(), 'n.db'));
    const known = listMigrations();
    await migrate(db, known.slice(0, -1));
    const latest = known.at(-1)!.version;
    db.prepare("INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, 'from_a_newer_release', 'x')").run(latest + 1);
    expect(() => migrate(db)).toThrow(SchemaTooNewError);
    expect(() => migrate(db)).toThrow(`is at schema version ${latest + 1}, newer than this borderd knows (${latest})`);
    // The migration it does know and lacks was not applied either: nothing is written to a schema it does not know.
    expect(db.prepare('SELECT 1 FROM schema_migrations WHERE version = ?').get(latest)).toBeUndefined();
    await db.close();
  });

  it('a fresh database is not ready until migrated', async () => {
    const db = openDatabase(join(tempDir(), 'r.db'));
    expect(await isMigrated(db)).toBe(false);
    await migrate(db);
    expect(await isMigrated(db)).toBe(true);
    await db.close();
  });
});

describe('migration 011', () => {
  it('rewrites the stored full names to "first last", or empty when a name is missing, and no other row', async () => {
    const db = await databaseBefore(11);
    const at = '2026-01-01T00:00:00.000Z';
    db.prepare('INSERT INTO organizations (id, name, created_at) VALUES (?, ?, ?)').run('org_1', 'Acme', at);
    // Full names as they were stored before: "first last", trimmed.
    const rows: [string, string, string, string][] = [
      ['idn_both', 'ana', 'garcía', 'ana garcía'],
      ['idn_lead', ' ana', 'garcía', 'ana garcía'],
      ['idn_first', 'ann', '', 'ann'],
      ['idn_last', '', 'annan', 'annan'],
      ['idn_none', '', '', ''],
    ];
    for (const [id, first, last, full] of rows) {
      db.prepare(
        `INSERT INTO identities (id, org_id, type, data, first_name_lc, last_name_lc, full_name_lc, created_at) VALUES (?, 'org_1', 'Personal', '{}', ?, ?, ?, ?)`,
      ).run(id, first, last, full, at);
    }
    const changes = db.prepare('SELECT total_changes() AS n').pluck();
    const before = changes.get() as number;
    await migrate(
      db,
      listMigrations().filter((m) => m.version === 11),
    );
    expect(db.prepare('SELECT id, full_name_lc AS full FROM identities ORDER BY id').all()).toEqual([
      { id: 'idn_both', full: 'ana garcía' },
      { id: 'idn_first', full: '' },
      { id: 'idn_last', full: '' },
      { id: 'idn_lead', full: ' ana garcía' },
      { id: 'idn_none', full: '' },
    ]);
    // Three identity rows rewritten, plus the schema_migrations row: the unchanged ones were not written.
    expect((changes.get() as number) - before).toBe(4);
    db.close();
  });
});

describe('migration 012', () => {
  it('records when a copy that replaced another arrived: when it replaced it', async () => {
    const db = await databaseBefore(12);
    const insert = db.prepare(
      `INSERT INTO inbound_events (id, event_id, event_type, event_created_date, ica, org_id, raw_body, state, attempts, received_at, updated_at)
       VALUES (?, ?, 'T', '2026-01-01T00:00:00.000Z', '1', NULL, '{}', 'unmatched', 0, '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z')`,
    );
    insert.run('inb_replaced', 'ev-r');
    insert.run('inb_plain', 'ev-p');
    const copy = db.prepare(
      `INSERT INTO inbound_event_replaced_copies (inbound_id, seq, raw_body, event_type, event_created_date, failure_code, attempts, received_at, replaced_at)
       VALUES ('inb_replaced', ?, '{}', 'T', '2026-01-01T00:00:00.000Z', 'decryption_failed', 1, ?, ?)`,
    );
    copy.run(1, '2026-01-01T00:00:00.000Z', '2026-01-02T00:00:00.000Z');
    copy.run(2, '2026-01-02T00:00:00.000Z', '2026-01-03T00:00:00.000Z');
    await migrate(db);
    expect(db.prepare('SELECT id, copy_received_at AS at FROM inbound_events ORDER BY id').all()).toEqual([
      { id: 'inb_plain', at: null },
      { id: 'inb_replaced', at: '2026-01-03T00:00:00.000Z' },
    ]);
    expect(db.prepare("SELECT name FROM sqlite_master WHERE name = 'inbound_event_held_copies'").get()).toEqual({
      name: 'inbound_event_held_copies',
    });
    db.close();
  });
});
