/**
 * TLS to PostgreSQL as libpq means it, against a real server's handshake: the test server's
 * certificate names 127.0.0.1 and is signed by a CA openssl made for the run
 * (test/support/postgres-setup.ts). `database.tls` and the URL's sslmode/sslrootcert both work,
 * and the key wins over the URL.
 */
import { afterEach, describe, expect, inject, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import type { Database } from '../../src/db/database.js';
import { openDatabase } from '../../src/db/open.js';
import { freshPostgresDatabase } from '../support/postgres.js';

const tls = inject('postgres').tls;

const opened: Database[] = [];
afterEach(async () => {
  for (const db of opened.splice(0)) await db.close();
});

/** Opens the database with these flags, as `--database-url` and `database.tls.*` give them. */
function open(url: string, flags: Record<string, unknown> = {}): Database {
  const config = loadConfig({ env: {}, flags: { 'database.url': url, 'database.pool.connectTimeoutMs': 5000, ...flags } });
  const db = openDatabase(config.database);
  opened.push(db);
  return db;
}

/** Whether the connection that answers is encrypted, as the server sees it. */
const encrypted = (db: Database) => db.value<boolean>('SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()');

const withParams = (url: string, params: Record<string, string>, host?: string): string => {
  const u = new URL(url);
  for (const [k, v] of Object.entries(params)) u.searchParams.set(k, v);
  if (host) u.hostname = host;
  return u.toString();
};

describe.skipIf(!tls)('TLS to PostgreSQL', () => {
  const caFile = tls?.caFile ?? '';

  it('verify-full with the CA file connects encrypted; without the CA it refuses the unknown authority', async () => {
    const url = await freshPostgresDatabase();
    expect(await encrypted(open(url, { 'database.tls.mode': 'verify-full', 'database.tls.caFile': caFile }))).toBe(true);
    await expect(open(url, { 'database.tls.mode': 'verify-full' }).value('SELECT 1')).rejects.toThrow(/certificate/);
  });

  it("verify-full checks the host name; verify-ca checks the chain only, as libpq's do", async () => {
    const byName = withParams(await freshPostgresDatabase(), {}, 'localhost');
    await expect(open(byName, { 'database.tls.mode': 'verify-full', 'database.tls.caFile': caFile }).value('SELECT 1')).rejects.toThrow(
      /altnames|host ?name/i,
    );
    expect(await encrypted(open(byName, { 'database.tls.mode': 'verify-ca', 'database.tls.caFile': caFile }))).toBe(true);
  });

  it("takes the URL's sslmode with libpq's meaning: require encrypts without checking the certificate", async () => {
    const url = await freshPostgresDatabase();
    expect(await encrypted(open(withParams(url, { sslmode: 'require' })))).toBe(true);
    expect(await encrypted(open(withParams(url, { sslmode: 'verify-full', sslrootcert: caFile })))).toBe(true);
    await expect(open(withParams(url, { sslmode: 'verify-full' })).value('SELECT 1')).rejects.toThrow(/certificate/);
    expect(await encrypted(open(url))).toBe(false);
  });

  it("the configuration key wins over the URL's sslmode", async () => {
    const url = withParams(await freshPostgresDatabase(), { sslmode: 'require' });
    expect(await encrypted(open(url, { 'database.tls.mode': 'disable' }))).toBe(false);
    await expect(open(url, { 'database.tls.mode': 'verify-full' }).value('SELECT 1')).rejects.toThrow(/certificate/);
  });
});

describe('the URL sslmode setting', () => {
  it("refuses libpq's prefer and allow, which would fall back to plain text without saying so", () => {
    expect(() => loadConfig({ env: {}, flags: { 'database.url': 'postgres://u:p@127.0.0.1:5432/borderd?sslmode=prefer' } })).toThrow(
      /database\.url.*sslmode/,
    );
  });

  it('refuses a CA file that cannot be read, naming the setting', () => {
    expect(() => open('postgres://u:p@127.0.0.1:5432/borderd?sslmode=verify-full&sslrootcert=/nonexistent/ca.pem')).toThrow(
      /sslrootcert \/nonexistent\/ca\.pem/,
    );
  });
});
