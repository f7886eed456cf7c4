import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReceiver } from '../delivery/receiver.js';
import { daemonToken } from '../support/daemon-token.js';
import { startOwnPostgres, until, type OwnPostgres } from '../support/own-postgres.js';
import { startBorderd } from '../support/process.js';

// A server of this file's own: the test stops and starts it under a running daemon.
let server: OwnPostgres;
let url: string;

beforeAll(async () => {
  server = await startOwnPostgres();
  url = server.url;
});

afterAll(async () => {
  await server?.remove();
});

const ADMIN = 'reconnect-admin-token-0123456789abc';

async function readyz(base: string): Promise<number> {
  return (await fetch(`${base}/readyz`)).status;
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
