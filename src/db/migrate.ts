/**
 * Schema migrations: numbered SQL files (NNN_name.sql) applied in order, each in its own
 * transaction together with its row in schema_migrations, so a failed migration leaves nothing
 * behind and a second run is a no-op.
 *
 * @module db/migrate
 */
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Database, Db, Dialect } from './database.js';

/** Each engine's migrations: the same versions, each in its engine's dialect. */
const migrationsDir = (dialect: Dialect): string => fileURLToPath(new URL(`./migrations/${dialect}/`, import.meta.url));

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export function listMigrations(dialect: Dialect = 'sqlite', dir: string = migrationsDir(dialect)): Migration[] {
  return readdirSync(dir)
    .filter((f) => /^\d{3}_[a-z0-9_]+\.sql$/.test(f))
    .sort()
    .map((f) => ({ version: Number(f.slice(0, 3)), name: f.slice(4, -4), sql: readFileSync(dir + f, 'utf8') }));
}

/** The database was migrated by a newer borderd: start-up and CLI commands stop with this one line (exit code 2). */
export class SchemaTooNewError extends Error {}

/**
 * Serializes migrations across processes on PostgreSQL: every node that starts takes it, in each
 * migration's transaction, so two nodes starting at once apply each file once. SQLite's write lock
 * (BEGIN IMMEDIATE) does the same there.
 */
const MIGRATION_LOCK = { sqlite: 'SELECT 1', postgres: 'SELECT pg_advisory_xact_lock(7236844372584067685)' };

const SCHEMA_MIGRATIONS =
  'CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)';

export async function migrate(db: Db | Database, migrations: Migration[] = listMigrations(db.dialect)): Promise<Migration[]> {
  const location = 'location' in db ? db.location : 'the database';
  await db.transaction(async (tx) => {
    await tx.value(MIGRATION_LOCK);
    await tx.exec(SCHEMA_MIGRATIONS);
  });
  const applied = new Set(await db.column<number>('SELECT version FROM schema_migrations'));
  // This build's code cannot know what a later migration changed (a new NOT NULL column, a moved
  // table), so it must not read or write such a database: an older binary after a rollback stops here.
  const newest = Math.max(0, ...applied);
  const latest = migrations.at(-1)?.version ?? 0;
  if (newest > latest) {
    throw new SchemaTooNewError(
      `database ${location} is at schema version ${newest}, newer than this borderd knows (${latest}): ` +
        'run the release that migrated it, or restore the backup made before that upgrade',
    );
  }
  const done: Migration[] = [];
  for (const m of migrations) {
    if (applied.has(m.version)) continue;
    await db.transaction(async (tx) => {
      await tx.value(MIGRATION_LOCK);
      if ((await tx.value('SELECT 1 FROM schema_migrations WHERE version = ?', [m.version])) !== undefined) return;
      await tx.exec(m.sql);
      await tx.run('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)', [
        m.version,
        m.name,
        new Date().toISOString(),
      ]);
      done.push(m);
    });
  }
  return done;
}

/** The newest migration applied, 0 for a database with none. */
export async function schemaVersion(db: Db): Promise<number> {
  return (await db.value<number | null>('SELECT MAX(version) FROM schema_migrations')) ?? 0;
}

/** True when every migration this build knows has been applied (readiness); false also when the database cannot be asked. */
export async function isMigrated(db: Db, migrations: Migration[] = listMigrations(db.dialect)): Promise<boolean> {
  try {
    return (await schemaVersion(db)) >= (migrations.at(-1)?.version ?? 0);
  } catch {
    return false;
  }
}
