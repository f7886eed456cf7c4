import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/open.js';
import { isMigrated, listMigrations, migrate } from '../../src/db/migrate.js';
import { tempDir } from '../support/context.js';

describe('migrations', () => {
  it('apply once, and a second run changes nothing', () => {
    const db = openDatabase(join(tempDir(), 'm.db'));
    const first = migrate(db);
    expect(first.map((m) => m.version)).toEqual(listMigrations().map((m) => m.version));
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all();
    expect(migrate(db)).toEqual([]);
    expect(db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all()).toEqual(tables);
    expect(isMigrated(db)).toBe(true);
    db.close();
  });

  it('uses WAL, foreign keys and a busy timeout', () => {
    const db = openDatabase(join(tempDir(), 'p.db'), { busyTimeoutMs: 1234 });
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.pragma('foreign_keys', { simple: true })).toBe(1);
    expect(db.pragma('busy_timeout', { simple: true })).toBe(1234);
    db.close();
  });

  it('rolls a failing migration back whole', () => {
    const db = openDatabase(join(tempDir(), 'f.db'));
    const bad = [{ version: 1, name: 'broken', sql: 'CREATE TABLE a (x INTEGER); INSERT INTO nowhere VALUES (1);' }];
    expect(() => migrate(db, bad)).toThrow();
    expect(db.prepare("SELECT name FROM sqlite_master WHERE name = 'a'").get()).toBeUndefined();
    expect(db.prepare('SELECT COUNT(*) AS n FROM schema_migrations').get()).toEqual({ n: 0 });
    db.close();
  });

  it('a fresh database is not ready until migrated', () => {
    const db = openDatabase(join(tempDir(), 'r.db'));
    expect(isMigrated(db)).toBe(false);
    migrate(db);
    expect(isMigrated(db)).toBe(true);
    db.close();
  });
});
