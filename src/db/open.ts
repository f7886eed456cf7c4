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
import { PostgresDatabase } from './postgres.js';
import { redactedUrl } from '../domain/url-redaction.js';
import { SqliteDatabase } from './sqlite.js';
import { openConnection } from './sqlite-connection.js';

export interface OpenDatabaseOptions {
  /** An idle PostgreSQL connection failed (the server restarted): the pool drops it; the caller logs it. */
  onIdleError?: (err: Error) => void;
}

export function openDatabase(config: DatabaseConfig, opts: OpenDatabaseOptions = {}): Database {
  if (config.url !== undefined) {
    return new PostgresDatabase(redactedUrl(config.url), {
      ...postgresConnection({ ...config, url: config.url }),
      max: config.pool.max,
      idleTimeoutMillis: config.pool.idleTimeoutMs,
      connectionTimeoutMillis: config.pool.connectTimeoutMs,
      ...(opts.onIdleError && { onIdleError: opts.onIdleError }),
    });
  }
  const conn = openConnection(config.path, { busyTimeoutMs: config.busyTimeoutMs, synchronous: config.synchronous });
  return new SqliteDatabase(conn, {
    busyTimeoutMs: config.busyTimeoutMs,
    fsynced: config.synchronous === 'full' && config.path !== ':memory:',
  });
}

/** The URL's TLS parameters, which borderd reads itself (below) instead of handing them to the driver. */
const URL_TLS_PARAMS = ['sslmode', 'sslrootcert', 'sslcert', 'sslkey', 'sslpassword', 'sslnegotiation', 'uselibpqcompat'];

type TlsMode = NonNullable<DatabaseConfig['tls']['mode']>;

/**
 * The driver's connection settings for a PostgreSQL URL: TLS as libpq means it, from `database.tls`
 * or else the URL's own `sslmode` and `sslrootcert` (the configuration key wins). The driver reads
 * `sslmode=require` as verify-full and prints a warning; managed databases hand out URLs with
 * `sslmode=require` meaning "encrypted, any certificate", so the URL's TLS parameters are taken out
 * and applied here with libpq's meaning: require encrypts; verify-ca also checks the chain (and
 * `require` with a CA file does too, as in libpq); verify-full also checks the host name.
 */
export function postgresConnection(config: DatabaseConfig & { url: string }): {
  connectionString: string;
  ssl?: boolean | ConnectionOptions;
} {
  const url = new URL(config.url);
  const fromUrl = (name: string) => url.searchParams.get(name) ?? undefined;
  const mode = config.tls.mode ?? (fromUrl('sslmode') as TlsMode | undefined);
  const caFile = config.tls.caFile ?? fromUrl('sslrootcert');
  const certFile = fromUrl('sslcert');
  const keyFile = fromUrl('sslkey');
  for (const name of URL_TLS_PARAMS) url.searchParams.delete(name);
  const connectionString = url.toString();
  if (mode === undefined && caFile === undefined) return { connectionString };
  if (mode === 'disable') return { connectionString, ssl: false };
  const ca =
    caFile === undefined ? undefined : readTlsFile(caFile, config.tls.caFile !== undefined ? 'database.tls.caFile' : 'sslrootcert');
  const verifyChain = mode === undefined || mode === 'verify-ca' || mode === 'verify-full' || ca !== undefined;
  const verifyHost = mode === undefined || mode === 'verify-full';
  return {
    connectionString,
    ssl: {
      rejectUnauthorized: verifyChain,
      ...(ca !== undefined && { ca }),
      ...(certFile !== undefined && { cert: readTlsFile(certFile, 'sslcert') }),
      ...(keyFile !== undefined && { key: readTlsFile(keyFile, 'sslkey') }),
      ...(!verifyHost && { checkServerIdentity: () => undefined }),
    },
  };
}

function readTlsFile(file: string, setting: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    throw new DatabaseOpenError(`cannot read ${setting} ${file}: ${(err as Error).message}`);
  }
}
