import { mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterEach, onTestFinished } from 'vitest';
import request from 'supertest';
import { loadConfig } from '../../src/config/load.js';
import type { ConfigInput } from '../../src/config/schema.js';
import type { AppContext, OpenContext } from '../../src/context.js';
import { createContext } from '../../src/create-context.js';
import { ManualClock } from '../../src/domain/clock.js';
import { createLogger } from '../../src/logging/logger.js';
import { listMigrations, migrate } from '../../src/db/migrate.js';
import type { Database } from '../../src/db/database.js';
import { SqliteDatabase } from '../../src/db/sqlite.js';
import { openConnection } from '../../src/db/sqlite-connection.js';
import { freshPostgresDatabase, onPostgres } from './postgres.js';
import { createApp } from '../../src/api/app.js';
import { TokenService } from '../../src/services/tokens.js';
import { EventSignatures } from '../../src/delivery/event-signatures.js';
import { createApiClient, createOrganization } from '../../src/services/organizations.js';
import type { PiiAccess } from '../../src/store/api-clients.js';

const cleanups: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

export function tempDir(prefix = 'borderd-test-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** A SQLite file migrated up to, not including, migration `version`: rows written as an older release stored them, then `migrate(db)`. */
export async function databaseBefore(version: number): Promise<Database> {
  const db = openSqlite(join(tempDir(), 'm.db'));
  await migrate(
    db,
    listMigrations().filter((m) => m.version < version),
  );
  return db;
}

/** A SQLite database at `path` (made when there is none), on the Database interface, closed after the test. */
export function openSqlite(path: string, opts: { readonly?: boolean } = {}): Database {
  const db = new SqliteDatabase(openConnection(path, opts), { busyTimeoutMs: 5000, fsynced: !opts.readonly });
  cleanups.unshift(() => db.close());
  return db;
}

/** Log lines a test can read back (to check redaction, for example). */
export class LogCapture extends Writable {
  lines: Record<string, unknown>[] = [];
  override _write(chunk: Buffer, _enc: string, cb: () => void): void {
    for (const line of chunk.toString('utf8').split('\n')) if (line.trim()) this.lines.push(JSON.parse(line) as Record<string, unknown>);
    cb();
  }
  text(): string {
    return this.lines.map((l) => JSON.stringify(l)).join('\n');
  }
}

export interface TestContext extends OpenContext {
  clock: ManualClock;
  logs: LogCapture;
}

/**
 * A fresh database, a manual clock, and logs captured in memory: a SQLite file in its own temp dir,
 * or on the postgres test project a PostgreSQL database of its own (test/support/postgres.ts).
 */
export async function makeContext(overrides: Record<string, unknown> = {}, clockStart?: string): Promise<TestContext> {
  const dir = tempDir();
  const database = onPostgres
    ? { 'database.url': await freshPostgresDatabase(), 'database.pool.max': 4 }
    : { 'database.path': join(dir, 'borderd.db') };
  const flags: Record<string, unknown> = { ...database, dataDir: dir, 'log.level': 'debug', ...overrides };
  const config = loadConfig({ env: {}, flags });
  const logs = new LogCapture();
  const clock = new ManualClock(clockStart ? Date.parse(clockStart) : Date.now());
  const ctx = await createContext(config, { clock, log: createLogger({ level: 'debug', pretty: 'never', destination: logs }) });
  cleanups.unshift(() => ctx.db.close());
  return Object.assign(ctx, { clock, logs });
}

/** Overrides that open the database `ctx` is on (another process on the same database): its file, or its URL. */
export function sameDatabase(ctx: AppContext): Record<string, unknown> {
  const { url, path } = ctx.config.database;
  return url !== undefined ? { 'database.url': url, 'database.path': undefined } : { 'database.path': path };
}

export const ADMIN_TOKEN = 'test-admin-token-0123456789abcdef';

export function makeApi(ctx: AppContext) {
  const tokens = new TokenService(ctx);
  // The process's signatures, for a test's dispatcher to share with the app's event streams.
  const signatures = new EventSignatures(ctx);
  const { app, registry } = createApp({ ctx, tokens, adminToken: ADMIN_TOKEN, signatures });
  return { app, registry, tokens, signatures, http: request(app) };
}

/** An organization with one client and a valid access token for it. */
/** `app` on a real loopback socket, for clients that fetch over HTTP: its base URL; closed when the test ends. */
export async function listenOnLoopback(app: { listen(port: number, host: string): Server }): Promise<string> {
  const server = app.listen(0, '127.0.0.1');
  onTestFinished(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });
  await new Promise((r) => server.once('listening', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

export async function makeOrg(ctx: AppContext, tokens: TokenService, opts: { name?: string; piiAccess?: PiiAccess } = {}) {
  const org = await createOrganization(ctx, opts.name ?? 'Acme');
  const client = await createApiClient(ctx, { orgId: org.id, piiAccess: opts.piiAccess ?? 'all' });
  const issued = await tokens.issue({ clientId: client.id, clientSecret: client.clientSecret, piiAccess: opts.piiAccess });
  return { org, client, token: issued.accessToken, auth: `Bearer ${issued.accessToken}` };
}

export type { ConfigInput };
