import { existsSync, readdirSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { CaptureLog } from '../../src/receiver/capture-log.js';
import { ensureSigningKey } from '../../src/delivery/signing-keys.js';
import { verifyWebhook } from '../../src/verify/signature.js';
import type { TransactionEventData } from '../../src/verify/events.js';
import { tempDir } from '../support/context.js';
import { runCli, startBorderd } from '../support/process.js';
import { daemonCredentials, openDaemonDb, startLocalApp, startProxy, startReceive, unreachableBase } from './support.js';

const data: TransactionEventData = {
  id: 'txn_9',
  type: 'Transfer',
  status: 'Pending',
  previousStatus: null,
  amount: '1.00',
  currency: 'USDC',
  network: 'SOLANA',
  source: null,
  destination: null,
  failureReason: null,
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
};

describe('borderd receive --tunnel', () => {
  it('forwards streamed events byte-exact, resumes after the stream is cut, and after a restart', async () => {
    const daemon = await startBorderd({ env: { BORDERD_EVENT_STREAM_HEARTBEAT_MS: '200', BORDERD_EVENT_STREAM_POLL_INTERVAL_MS: '100' } });
    const creds = await daemonCredentials(daemon);
    const db = await openDaemonDb(daemon, creds.clientId);
    try {
      const app = await startLocalApp();
      const proxy = await startProxy(daemon.url);
      const captureDb = join(tempDir('borderd-tunnel-'), 'capture.db');
      const args = ['--tunnel', proxy.url, '--forward-to', app.url, '--capture-db', captureDb, '--heartbeat-timeout', '3000'];
      const env = { BORDERD_CLIENT_ID: creds.clientId, BORDERD_CLIENT_SECRET: creds.clientSecret };
      // History is not replayed to a new tunnel: it starts with new events (like stripe listen).
      const history = await db.emit('Transaction_Created', data);
      const rx = await startReceive(args, /tunnel connected to (\S+), new events only/, env);
      const before = await db.emit('Transaction_Created', data);

      const [first] = await app.waitFor(1);
      expect(first!.body).toBe(before.body);
      const publicKey = (await ensureSigningKey(db.ctx, db.orgId)).publicKey;
      expect(verifyWebhook(first!.body, first!.headers as Record<string, string>, publicKey)).toMatchObject({
        id: before.id,
        organizationId: db.orgId,
      });

      // Cut the stream; events written while it is down arrive after the reconnect, each once.
      proxy.cut();
      await rx.waitForOutput(/tunnel disconnected/);
      const during = [await db.emit('Transaction_Created', data), await db.emit('Transaction_Created', data)];
      proxy.restore();
      await rx.waitForOutput(new RegExp(`tunnel reconnected to \\S+, resumed after ${before.id}`));
      const received = await app.waitFor(3);
      expect(received.map((r) => r.body)).toEqual([before.body, ...during.map((e) => e.body)]);

      // A new receiver process on the same capture log resumes from its saved cursor.
      await rx.stop();
      const after = await db.emit('Transaction_Created', data);
      const rx2 = await startReceive(args, /tunnel connected to (\S+)/, env);
      expect(rx2.output()).toContain(`resumed after ${during[1]!.id}`);
      const all = await app.waitFor(4);
      expect(all[3]!.body).toBe(after.body);
      expect(all).toHaveLength(4);
      expect(all.map((r) => r.headers['x-event-id'])).not.toContain(history.id);
    } finally {
      await daemon.stop();
    }
  });

  it('replays history with --since, and a tunnel stopped before any event resumes from where it started', async () => {
    const daemon = await startBorderd({ env: { BORDERD_EVENT_STREAM_POLL_INTERVAL_MS: '100' } });
    const creds = await daemonCredentials(daemon);
    const db = await openDaemonDb(daemon, creds.clientId);
    const env = { BORDERD_CLIENT_ID: creds.clientId, BORDERD_CLIENT_SECRET: creds.clientSecret };
    try {
      const app = await startLocalApp();
      const old = [await db.emit('Transaction_Created', data), await db.emit('Transaction_Updated', data)];
      const replayDb = join(tempDir('borderd-tunnel-'), 'capture.db');
      const rx = await startReceive(
        ['--tunnel', daemon.url, '--forward-to', app.url, '--capture-db', replayDb, '--since', '1h'],
        /tunnel connected to \S+, replaying events since (\S+)/,
        env,
      );
      expect((await app.waitFor(2)).map((r) => r.body)).toEqual(old.map((e) => e.body));
      await rx.stop();

      // A fresh tunnel saves its starting position at once: stopped before any event, it misses nothing.
      const freshDb = join(tempDir('borderd-tunnel-'), 'capture.db');
      const args = ['--tunnel', daemon.url, '--forward-to', app.url, '--capture-db', freshDb];
      const first = await startReceive(args, /tunnel connected to \S+, new events only/, env);
      await first.stop();
      const whileDown = await db.emit('Transaction_Created', data);
      const second = await startReceive(args, /tunnel connected to (\S+)/, env);
      expect(second.output()).toContain(`resumed after ${old[1]!.id}`);
      const got = await app.waitFor(3);
      expect(got[2]!.body).toBe(whileDown.body);
      expect(got).toHaveLength(3);
    } finally {
      await daemon.stop();
    }
  });

  it('reconnects when heartbeats stop (watchdog) and sees the stream end at daemon shutdown', async () => {
    const daemon = await startBorderd({ env: { BORDERD_EVENT_STREAM_HEARTBEAT_MS: '60000' } });
    try {
      const creds = await daemonCredentials(daemon);
      const app = await startLocalApp();
      const captureDb = join(tempDir('borderd-tunnel-'), 'capture.db');
      const rx = await startReceive(
        ['--tunnel', daemon.url, '--forward-to', app.url, '--capture-db', captureDb, '--heartbeat-timeout', '500', '--json'],
        // On a loaded machine the first connection may already be cut by the 500 ms watchdog.
        /tunnel (?:re)?connected to (\S+)/,
        { BORDERD_CLIENT_ID: creds.clientId, BORDERD_CLIENT_SECRET: creds.clientSecret },
      );
      await rx.waitForOutput(/no data or heartbeat for 500ms/);
      await rx.waitForOutput(/"message":"tunnel reconnected to/);
      // SIGTERM ends the open stream cleanly (not by dropping the socket after the grace period).
      expect((await daemon.stop()).code).toBe(0);
      await rx.waitForOutput(/tunnel disconnected: stream ended by the server/);
    } finally {
      await daemon.stop();
    }
  });

  it('exits with an error on wrong credentials', async () => {
    const daemon = await startBorderd();
    try {
      const creds = await daemonCredentials(daemon);
      const app = await startLocalApp();
      const rx = startReceive(['--tunnel', daemon.url, '--forward-to', app.url, '--capture-db', join(tempDir(), 'c.db')], /never/, {
        BORDERD_CLIENT_ID: creds.clientId,
        BORDERD_CLIENT_SECRET: 'wrong',
      });
      await expect(rx).rejects.toThrow(/borderd: could not get a token from \S+: token request failed with 401\n/);
    } finally {
      await daemon.stop();
    }
  });
});

describe('borderd receive --tunnel that never starts', () => {
  const env = { BORDERD_CLIENT_ID: 'cli_1', BORDERD_CLIENT_SECRET: 'wrong' };

  it('leaves no capture log behind when its credentials are refused, and keeps one that was there before', async () => {
    // A borderd stand-in that refuses every token request (401).
    const refusing = createServer(
      (req, res) => (req.resume(), res.writeHead(401, { 'content-type': 'application/problem+json' }).end('{"status":401}')),
    );
    await new Promise<void>((r) => refusing.listen(0, '127.0.0.1', r));
    onTestFinished(() => void refusing.close());
    const base = `http://127.0.0.1:${(refusing.address() as AddressInfo).port}`;
    const dir = tempDir('borderd-tunnel-refused-');
    const r = await runCli(['receive', '--tunnel', base, '--forward-to', 'http://127.0.0.1:9/app', '--capture-db', join(dir, 'c.db')], env);
    expect([r.code, r.stderr]).toEqual([1, `borderd: could not get a token from ${base}: token request failed with 401\n`]);
    expect(readdirSync(dir)).toEqual([]); // nor its -wal or -shm

    // A capture log of earlier runs holds their events: a refused run does not take it away.
    const earlier = join(dir, 'earlier.db');
    const log = new CaptureLog(earlier);
    log.record({
      eventId: 'evt_kept',
      eventType: 'Transaction_Created',
      body: '{}',
      headers: {},
      receivedAt: 't',
      target: 'http://127.0.0.1:9/app',
      status: 200,
      at: 't',
    });
    log.close();
    const again = await runCli(['receive', '--tunnel', base, '--forward-to', 'http://127.0.0.1:9/app', '--capture-db', earlier], env);
    expect(again.code).toBe(1);
    const reopened = new CaptureLog(earlier);
    expect(reopened.get('evt_kept')).toMatchObject({ forwardStatus: 200 });
    reopened.close();
  });

  it('leaves no capture log behind when stopped while borderd could not be reached', async () => {
    const base = await unreachableBase();
    const captureDb = join(tempDir('borderd-tunnel-unreachable-'), 'c.db');
    const rx = await startReceive(
      ['--tunnel', base, '--forward-to', 'http://127.0.0.1:9/app', '--capture-db', captureDb],
      /tunnel reconnecting in/,
      env,
    );
    expect(existsSync(captureDb)).toBe(true); // opened while it retries
    expect(await rx.stop()).toBe(0);
    expect(existsSync(captureDb)).toBe(false);
  });
});
