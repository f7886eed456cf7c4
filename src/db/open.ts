/**
 * Opens the database a configuration names: PostgreSQL when `database.url` is set, else the SQLite
 * file at `database.path`. The rest of borderd sees only the Database interface (src/db/database.ts).
 *
 * @module db/open
 */
import { readFileSync } from 'node:fs';
import type { ConnectionOptions } from 'node:tls';
import type { DatabaseConfig } from '../config/schema.js';
import { DatabaseOpenError, type Database } from './database.js';
import { PostgresDatabase, redactedUrl } from './postgres.js';
import { SqliteDatabase } from './sqlite.js';
import { openConnection } from './sqlite-connection.js';

export interface OpenDatabaseOptions {
  /** An idle PostgreSQL connection failed (the server restarted): the pool drops it; the caller logs it. */
  onIdleError?: (err: Error) => void;
}

export function openDatabase(config: DatabaseConfig, opts: OpenDatabaseOptions = {}): Database {
  if (config.url !== undefined) {
    return new PostgresDatabase(redactedUrl(config.url), {
      connectionString: config.url,
      max: config.pool.max,
      idleTimeoutMillis: config.pool.idleTimeoutMs,
      connectionTimeoutMillis: config.pool.connectTimeoutMs,
      ...tlsOptions(config),
      ...(opts.onIdleError && { onIdleError: opts.onIdleError }),
    });
  }
  const conn = openConnection(config.path, { busyTimeoutMs: config.busyTimeoutMs, synchronous: config.synchronous });
  return new SqliteDatabase(conn, {
    busyTimeoutMs: config.busyTimeoutMs,
    fsynced: config.synchronous === 'full' && config.path !== ':memory:',
  });
}

/**
 * TLS to PostgreSQL from database.tls: `mode` as libpq's sslmode (disable, require, verify-ca,
 * verify-full) and a CA file for a managed database's private certificate authority. Without it,
 * the URL's own sslmode parameter decides.
 */
function tlsOptions(config: DatabaseConfig): { ssl?: boolean | ConnectionOptions } {
  const { mode, caFile } = config.tls;
  if (mode === undefined && caFile === undefined) return {};
  if (mode === 'disable') return { ssl: false };
  let ca: string | undefined;
  if (caFile !== undefined) {
    try {
      ca = readFileSync(caFile, 'utf8');
    } catch (err) {
      throw new DatabaseOpenError(`cannot read database.tls.caFile ${caFile}: ${(err as Error).message}`);
    }
  }
  const verify = mode === undefined || mode === 'verify-ca' || mode === 'verify-full';
  return {
    ssl: {
      rejectUnauthorized: verify,
      ...(ca !== undefined && { ca }),
      // verify-ca checks the chain but not the host name, as libpq does.
      ...(mode === 'verify-ca' && { checkServerIdentity: () => undefined }),
    },
  };
}
