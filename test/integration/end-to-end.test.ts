import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { daemonToken } from '../support/daemon-token.js';
import { runCli, startBorderd } from '../support/process.js';
import { tempDir } from '../support/context.js';
import { getEvent } from '../../src/store/events.js';
import { signatureVerifies } from '../delivery/receiver.js';
import { openDaemonDb, startLocalApp, startReceive } from '../receiver/support.js';

const ADMIN = 'e2e-admin-token-0123456789abcdefgh';

/**
 * The features together, every piece a real process: borderd's outbox delivers a failed
 * transaction's events to a real `borderd receive` (which fetches the key from GET …/settings/public-key),
 * which verifies and forwards them byte-exact to a local app; the failure records a refund plan
 * to the organization's default address.
 */
describe('end to end: transaction → outbox → borderd receive → app, and the refund plan', () => {
  it('delivers signed events byte-exact and records the refund plan', async () => {
    const daemon = await startBorderd({ env: { BORDERD_ADMIN_TOKEN: ADMIN } });
    const creds = daemon.credentials!;
    const { accessToken, orgId } = await daemonToken(daemon);
    const bearer = { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json' };
    const admin = { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' };

    const app = await startLocalApp();
    const receive = await startReceive(
      [
        '--forward-to',
        app.url,
        '--port',
        '0',
        '--public-key-url',
        daemon.url,
        '--client-id',
        creds.clientId,
        '--client-secret',
        creds.clientSecret,
        '--capture-db',
        join(tempDir(), 'capture.db'),
      ],
      /listening on (http:\/\/[0-9.:]+)/,
    );

    const hook = await fetch(`${daemon.url}/v1/notifications/webhooks/settings`, {
      method: 'POST',
      headers: bearer,
      body: JSON.stringify({ url: `${receive.url}/webhooks` }),
    });
    expect(hook.status, await hook.clone().text()).toBeLessThan(300);
    expect(await hook.json()).toMatchObject({ enabled: true });

    const address = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed'; // EIP-55 checksummed
    const config = await fetch(`${daemon.url}/v1/refunds/config`, {
      method: 'POST',
      headers: bearer,
      body: JSON.stringify({ type: 'Address', addresses: [{ network: 'ETHEREUM', address }] }),
    });
    expect(config.status, await config.clone().text()).toBeLessThan(300);

    const created = await fetch(`${daemon.url}/admin/v1/transactions`, {
      method: 'POST',
      headers: admin,
      body: JSON.stringify({ orgId, type: 'Withdrawal', amount: '250.10', currency: 'USDC', network: 'ETHEREUM' }),
    });
    expect(created.status).toBe(201);
    const txn = (await created.json()) as { id: string };
    const failed = await fetch(`${daemon.url}/admin/v1/transactions/${txn.id}/status`, {
      method: 'POST',
      headers: admin,
      body: JSON.stringify({ status: 'Failed', failureReason: 'beneficiary bank rejected' }),
    });
    expect(failed.status).toBe(200);

    const received = await app.waitFor(2);
    const events = received.map((r) => JSON.parse(r.body) as { id: string; type: string; data: { id: string; status: string } });
    expect(events.map((e) => [e.type, e.data.status])).toEqual([
      ['Transaction_Created', 'Submitted'],
      ['Transaction_Updated', 'Failed'],
    ]);
    expect(events.every((e) => e.data.id === txn.id)).toBe(true);

    // Byte-exact and verifiable by anyone holding the organization's public key.
    const key = (await (await fetch(`${daemon.url}/v1/notifications/webhooks/settings/public-key`, { headers: bearer })).json()) as {
      publicKey: string;
    };
    for (const r of received) {
      expect(r.headers['x-event-id']).toBe((JSON.parse(r.body) as { id: string }).id);
      const ok = signatureVerifies(r, key.publicKey);
      expect(ok).toBe(true);
    }

    const plans = (await (await fetch(`${daemon.url}/admin/v1/refund-plans?orgId=${orgId}`, { headers: admin })).json()) as {
      data: { transactionId: string; state: string; destination: { address?: string } | null }[];
    };
    expect(plans.data).toHaveLength(1);
    expect(plans.data[0]).toMatchObject({ transactionId: txn.id, state: 'Dispatched' });
    expect(JSON.stringify(plans.data[0]!.destination)).toContain(address);

    await receive.stop();
    expect((await daemon.stop()).code).toBe(0);
  });

  it('retries through borderd receive while the local app is down: the outbox records the failure, then the delivery', async () => {
    const daemon = await startBorderd({
      // 3 s before the retry: the test brings the app back once it sees the 502, which must happen before then.
      env: {
        BORDERD_ADMIN_TOKEN: ADMIN,
        BORDERD_DELIVERY_RETRY_SCHEDULE_SECONDS: '[0,3,1,1]',
        BORDERD_DELIVERY_JITTER: '0',
        BORDERD_DELIVERY_POLL_INTERVAL_MS: '100',
      },
    });
    const creds = daemon.credentials!;
    const { accessToken, orgId } = await daemonToken(daemon);
    const bearer = { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json' };

    // The local app: while down it drops every connection (the receiver answers borderd 502).
    let down = true;
    const bodies: string[] = [];
    const app = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        bodies.push(Buffer.concat(chunks).toString('utf8'));
        res.end('ok');
      });
    });
    app.on('connection', (socket) => {
      if (down) socket.destroy();
    });
    await new Promise<void>((r) => app.listen(0, '127.0.0.1', r));
    try {
      const receive = await startReceive(
        [
          '--forward-to',
          `http://127.0.0.1:${(app.address() as AddressInfo).port}/hooks`,
          '--port',
          '0',
          '--public-key-url',
          daemon.url,
          '--capture-db',
          join(tempDir(), 'capture.db'),
        ],
        /listening on (http:\/\/[0-9.:]+)/,
        { BORDERD_CLIENT_ID: creds.clientId, BORDERD_CLIENT_SECRET: creds.clientSecret },
      );
      const hook = await fetch(`${daemon.url}/v1/notifications/webhooks/settings`, {
        method: 'POST',
        headers: bearer,
        body: JSON.stringify({ url: `${receive.url}/webhooks` }),
      });
      expect(hook.status).toBeLessThan(300);
      const created = await fetch(`${daemon.url}/admin/v1/transactions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ orgId, type: 'Deposit', amount: '10.00', currency: 'USDC', network: 'ETHEREUM' }),
      });
      expect(created.status).toBe(201);

      // The first attempt reaches the receiver, which cannot reach the app: borderd is answered 502.
      const [failedLine] = await receive.waitForOutput(/Transaction_Created (evt_\S+)  \[502\] failed/);
      const eventId = /evt_\S+/.exec(failedLine)![0];
      down = false;
      await receive.waitForOutput(new RegExp(`Transaction_Created ${eventId}  \\[200\\] forwarded`));

      const list = await runCli(['outbox', 'list', '--db', daemon.dbPath, '--json']);
      const deliveries = (JSON.parse(list.stdout) as { data: { id: string; eventId: string; state: string }[] }).data;
      const delivery = deliveries.find((d) => d.eventId === eventId)!;
      expect(delivery.state).toBe('delivered');
      const attempts = await runCli(['outbox', 'attempts', delivery.id, '--db', daemon.dbPath, '--json']);
      const record = JSON.parse(attempts.stdout) as { attempts: { attempt: number; statusCode: number | null }[] };
      expect(record.attempts.map((a) => [a.attempt, a.statusCode])).toEqual([
        [1, 502],
        [2, 200],
      ]);

      // The app got the event once, byte-exact: the body borderd stored and signed.
      const stored = (await getEvent((await openDaemonDb(daemon, creds.clientId)).ctx.db, orgId, eventId))!;
      expect(bodies).toEqual([stored.body]);
      await receive.stop();
    } finally {
      app.closeAllConnections();
      app.close();
      await daemon.stop();
    }
  });
});
