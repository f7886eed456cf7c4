import type { Db } from '../../src/db/database.js';

/*
 * A database at another schema version than this build's: written in the migration table itself,
 * which only the migration runner owns, so these statements are the one place tests name it.
 */

/** Forgets the newest migration applied, as if the database were one migration behind. */
export async function forgetNewestMigration(db: Db): Promise<void> {
  await db.run('DELETE FROM schema_migrations WHERE version = (SELECT MAX(version) FROM schema_migrations)');
}

/** Records a migration after the newest applied, as a newer release would; answers its version. */
export async function recordMigrationOfNewerRelease(db: Db): Promise<number> {
  return (await db.value<number>(
    "INSERT INTO schema_migrations (version, name, applied_at) SELECT MAX(version) + 1, 'from_a_newer_release', 'x' FROM schema_migrations RETURNING version",
  ))!;
}
