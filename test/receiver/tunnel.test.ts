import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ensureSigningKey } from '../../src/delivery/signing-keys.js';
import { verifyWebhook } from '../../src/verify/signature.js';
import type { TransactionEventData } from '../../src/verify/events.js';
import { tempDir } from '../support/context.js';
import { startBorderd } from '../support/process.js';
import { daemonCredentials, openDaemonDb, startLocalApp, startProxy, startReceive } from './support.js';

const data: TransactionEventData = {
  id: 'txn_9', type: 'Transfer', status: 'Pending', previousStatus: null, amount: '1.00', currency: 'USDC',
  network: 'SOLANA', source: null, destination: null, failureReason: null,
  createdAt: '2026-01-01T00:00:00.000Z', updatedAt: '2026-01-01T00:00:00.000Z',
};

describe('borderd receive --tunnel', () => {
  it('forwards streamed events byte-exact, resumes after the stream is cut, and after a restart', async () => {
    const daemon = await startBorderd({ env: { BORDERD_EVENT_STREAM_HEARTBEAT_MS: '200', BORDERD_EVENT_STREAM_POLL_INTERVAL_MS: '100' } });
    const creds = await daemonCredentials(daemon);
    const db = openDaemonDb(daemon, creds.clientId);
    try {
      const app = await startLocalApp();
      const proxy = await startProxy(daemon.url);
      const captureDb = join(tempDir('borderd-tunnel-'), 'capture.db');
      const args = ['--tunnel', proxy.url, '--forward-to', app.url, '--capture-db', captureDb, '--heartbeat-timeout', '3000'];
      const env = { BORDERD_CLIENT_ID: creds.clientId, BORDERD_CLIENT_SECRET: creds.clientSecret };
      // History is not replayed to a new tunnel: it starts with new events (like stripe listen).
      const history = db.emit('Transaction_Created', data);
      const rx = await startReceive(args, /tunnel connected to (\S+), new events only/, env);
      const before = db.emit('Transaction_Created', data);

      const [first] = await app.waitFor(1);
      expect(first!.body).toBe(before.body);
      const publicKey = ensureSigningKey(db.ctx, db.orgId).publicKey;
      expect(verifyWebhook(first!.body, first!.headers as Record<string, string>, publicKey)).toMatchObject({ id: before.id, organizationId: db.orgId });

      // Cut the stream; events written while it is down arrive after the reconnect, each once.
      proxy.cut();
      await rx.waitForOutput(/tunnel disconnected/);
      const during = [db.emit('Transaction_Created', data), db.emit('Transaction_Created', data)];
      proxy.restore();
      await rx.waitForOutput(new RegExp(`tunnel reconnected to \\S+, resumed after ${before.id}`));
      const received = await app.waitFor(3);
      expect(received.map((r) => r.body)).toEqual([before.body, ...during.map((e) => e.body)]);

      // A new receiver process on the same capture log resumes from its saved cursor.
      await rx.stop();
      const after = db.emit('Transaction_Created', data);
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
    const db = openDaemonDb(daemon, creds.clientId);
    const env = { BORDERD_CLIENT_ID: creds.clientId, BORDERD_CLIENT_SECRET: creds.clientSecret };
    try {
      const app = await startLocalApp();
      const old = [db.emit('Transaction_Created', data), db.emit('Transaction_Updated', data)];
      const replayDb = join(tempDir('borderd-tunnel-'), 'capture.db');
      const rx = await startReceive(['--tunnel', daemon.url, '--forward-to', app.url, '--capture-db', replayDb, '--since', '1h'], /tunnel connected to \S+, replaying events since (\S+)/, env);
      expect((await app.waitFor(2)).map((r) => r.body)).toEqual(old.map((e) => e.body));
      await rx.stop();

      // A fresh tunnel saves its starting position at once: stopped before any event, it misses nothing.
      const freshDb = join(tempDir('borderd-tunnel-'), 'capture.db');
      const args = ['--tunnel', daemon.url, '--forward-to', app.url, '--capture-db', freshDb];
      const first = await startReceive(args, /tunnel connected to \S+, new events only/, env);
      await first.stop();
      const whileDown = db.emit('Transaction_Created', data);
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
