/**
 * Schema migrations: numbered SQL files (NNN_name.sql) applied in order, each in its own
 * transaction together with its row in schema_migrations, so a failed migration leaves nothing
 * behind and a second run is a no-op.
 *
 * @module db/migrate
 */
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Db } from './open.js';

const MIGRATIONS_DIR = fileURLToPath(new URL('./migrations/', import.meta.url));

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export function listMigrations(dir: string = MIGRATIONS_DIR): Migration[] {
  return readdirSync(dir)
    .filter((f) => /^\d{3}_[a-z0-9_]+\.sql$/.test(f))
    .sort()
    .map((f) => ({ version: Number(f.slice(0, 3)), name: f.slice(4, -4), sql: readFileSync(dir + f, 'utf8') }));
}

/** The database was migrated by a newer borderd: start-up and CLI commands stop with this one line (exit code 2). */
export class SchemaTooNewError extends Error {}

export function migrate(db: Db, migrations: Migration[] = listMigrations()): Migration[] {
  db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)`);
  const applied = new Set(
    db
      .prepare('SELECT version FROM schema_migrations')
      .all()
      .map((r) => (r as { version: number }).version),
  );
  // This build's code cannot know what a later migration changed (a new NOT NULL column, a moved
  // table), so it must not read or write such a database: an older binary after a rollback stops here.
  const newest = Math.max(0, ...applied);
  const latest = migrations.at(-1)?.version ?? 0;
  if (newest > latest) {
    throw new SchemaTooNewError(
      `database ${db.name} is at schema version ${newest}, newer than this borderd knows (${latest}): ` +
        'run the release that migrated it, or restore the backup made before that upgrade',
    );
  }
  const done: Migration[] = [];
  for (const m of migrations) {
    if (applied.has(m.version)) continue;
    // IMMEDIATE takes the write lock up front, so two processes starting at once apply each file once.
    db.transaction(() => {
      const again = db.prepare('SELECT 1 FROM schema_migrations WHERE version = ?').get(m.version);
      if (again) return;
      db.exec(m.sql);
      db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)').run(
        m.version,
        m.name,
        new Date().toISOString(),
      );
      done.push(m);
    }).immediate();
  }
  return done;
}

/** The newest migration applied, 0 for a database with none. */
export function schemaVersion(db: Db): number {
  return (db.prepare('SELECT MAX(version) FROM schema_migrations').pluck().get() as number | null) ?? 0;
}

/** True when every migration this build knows has been applied (readiness). */
export function isMigrated(db: Db, migrations: Migration[] = listMigrations()): boolean {
  try {
    const row = db.prepare('SELECT MAX(version) AS v FROM schema_migrations').get() as { v: number | null };
    const latest = migrations.at(-1)?.version ?? 0;
    return (row.v ?? 0) >= latest;
  } catch {
    return false;
  }
}
