import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startDaemon } from '../../src/daemon.js';
import { Dispatcher } from '../../src/delivery/dispatch/dispatcher.js';
import { decryptDue } from '../../src/inbound/decryption.js';
import { importCardNetworkKey } from '../../src/inbound/keyring.js';
import { createMetricsWorker } from '../../src/metrics/metrics-worker.js';
import { emitEvent } from '../../src/services/outbox.js';
import { createOrganization } from '../../src/services/organizations.js';
import { runCli } from '../support/process.js';
import { makeApi, makeContext, makeOrg, sameDatabase, tempDir } from '../support/context.js';
import { startReceiver } from '../delivery/receiver.js';
import { joseToken, makeKeyPair, notification } from '../inbound/jwe-fixtures.js';

/** promtool from Debian's prometheus package, when this machine has it. */
const promtool = spawnSync('promtool', ['--version']).status === 0;

/** One sample of the text format: `name{labels} value`, labels in the order given. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  const wanted = Object.entries(labels);
  for (const line of text.split('\n')) {
    if (line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const got = new Map([...(m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((l) => [l[1]!, l[2]!]));
    if (wanted.every(([k, v]) => got.get(k) === v) && got.size === wanted.length) return Number(m[3]);
  }
  return undefined;
}

const right = makeKeyPair();
const wrong = makeKeyPair();

describe('metrics', () => {
  it('move as a scripted run says: deliveries that succeed, fail and time out, a disabled webhook, an inbound failure', async () => {
    // Two attempts per cycle, no jitter, a short timeout: the failing and silent endpoints are disabled after their second attempt.
    const ctx = await makeContext({
      'delivery.retryScheduleSeconds': [0, 0],
      'delivery.jitter': 0,
      'delivery.timeoutMs': 300,
      'inbound.decryptRetrySeconds': [],
    });
    const api = makeApi(ctx);
    const org = await makeOrg(ctx, api.tokens);
    const metrics = createMetricsWorker(ctx, () => 0);
    await metrics.start();
    const scrape = () => metrics.collect();

    const ok = await startReceiver();
    const failing = await startReceiver((_r, res) => {
      res.statusCode = 500;
      res.end('no');
    });
    const silent = await startReceiver(() => undefined);
    const hooks: Record<string, string> = {};
    for (const [name, r] of Object.entries({ ok, failing, silent })) {
      const created = await api.http.post('/v1/notifications/webhooks/settings').set('authorization', org.auth).send({ url: r.url });
      expect(created.status).toBe(201);
      hooks[name] = created.body.id as string;
    }
    await emitEvent(ctx, org.org.id, 'Transaction_Created');
    await emitEvent(ctx, org.org.id, 'Transaction_Created');

    let text = await scrape();
    expect(sample(text, 'borderd_events_total', { type: 'Transaction_Created' })).toBe(2);
    expect(sample(text, 'borderd_outbox_pending', { org_id: org.org.id })).toBe(6);
    expect(sample(text, 'borderd_webhooks', { state: 'enabled' })).toBe(3);
    expect(
      sample(text, 'borderd_http_requests_total', { method: 'POST', route: '/v1/notifications/webhooks/settings', status: '201' }),
    ).toBe(3);

    const dispatcher = new Dispatcher(ctx, { random: () => 0.5 });
    try {
      // First pass: 2 delivered, 2 answered 500, 2 timed out. The second claims the four again: both
      // 500s are sent, but the silent endpoint gets one send at a time, and the first of them, failing
      // for good, disables its webhook before the other goes.
      expect(await dispatcher.runOnce()).toBe(6);
      expect(await dispatcher.runOnce()).toBe(4);
      expect(await dispatcher.runOnce()).toBe(0);
    } finally {
      await dispatcher.stop();
    }
    text = await scrape();
    expect(sample(text, 'borderd_delivery_attempts_total', { outcome: 'success' })).toBe(2);
    expect(sample(text, 'borderd_delivery_attempts_total', { outcome: 'http_error' })).toBe(4);
    expect(sample(text, 'borderd_delivery_attempts_total', { outcome: 'timeout' })).toBe(3);
    expect(sample(text, 'borderd_delivery_attempts_total', { outcome: 'connect_error' })).toBeUndefined();
    expect(sample(text, 'borderd_delivery_duration_seconds_count')).toBe(9);
    expect(sample(text, 'borderd_commit_to_delivery_seconds_count')).toBe(2);
    expect(sample(text, 'borderd_webhooks', { state: 'enabled' })).toBe(1);
    expect(sample(text, 'borderd_webhooks', { state: 'disabled' })).toBe(2);
    expect(sample(text, 'borderd_outbox_pending', { org_id: org.org.id })).toBe(0);
    expect(sample(text, 'borderd_outbox_oldest_pending_age_seconds', { org_id: org.org.id })).toBe(0);
    expect(sample(text, 'borderd_db_transaction_seconds_count')).toBeGreaterThan(0);
    expect(sample(text, 'borderd_sqlite_wal_bytes')).toBeGreaterThan(0);

    // A backlog ages with the clock: an event for the one enabled webhook, not sent, an hour later.
    await emitEvent(ctx, org.org.id, 'Transaction_Updated');
    ctx.clock.advance(3_600_000);
    text = await scrape();
    expect(sample(text, 'borderd_outbox_pending', { org_id: org.org.id })).toBe(1);
    expect(sample(text, 'borderd_outbox_oldest_pending_age_seconds', { org_id: org.org.id })).toBe(3600);

    // An inbound notification encrypted for a key the organization does not have: taken in, then failed for good.
    ctx.config.inbound.icaOrganizations = { '123456': org.org.id };
    await importCardNetworkKey(ctx, org.org.id, Buffer.from(right.privatePem));
    const posted = await api.http
      .post('/v1/webhooks/card-network')
      .send(notification(await joseToken({ n: 1 }, wrong, { kid: right.kid })));
    expect(posted.status).toBe(200);
    text = await scrape();
    expect(sample(text, 'borderd_inbound_notifications_total', { stage: 'intake', outcome: 'stored' })).toBe(1);
    expect(sample(text, 'borderd_inbound_backlog', { state: 'received' })).toBe(1);
    ctx.signals.inboundPassed.emit(await decryptDue(ctx));
    text = await scrape();
    expect(sample(text, 'borderd_inbound_notifications_total', { stage: 'decryption', outcome: 'failed' })).toBe(1);
    expect(sample(text, 'borderd_inbound_backlog', { state: 'received' })).toBe(0);
    expect(sample(text, 'borderd_inbound_backlog', { state: 'failed' })).toBe(1);

    // The text format as Prometheus reads it.
    if (promtool) {
      const file = join(tempDir(), 'metrics.txt');
      writeFileSync(file, text);
      const check = spawnSync('sh', ['-c', `promtool check metrics < ${file} 2>&1`]);
      expect(check.stdout.toString()).toBe('');
      expect(check.status).toBe(0);
    }
    await metrics.stop();
  }, 30_000);

  it('show each organization’s sends in flight and its claimed rows waiting for a slot, and drop them once it holds none', async () => {
    const ctx = await makeContext({ 'delivery.perEndpointConcurrency': 2 });
    const api = makeApi(ctx);
    const orgA = await makeOrg(ctx, api.tokens, { name: 'A' });
    const orgB = await makeOrg(ctx, api.tokens, { name: 'B' });
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const receiver = await startReceiver((_r, res) => void held.then(() => res.end('ok')));
    for (const org of [orgA, orgB]) {
      const created = await api.http.post('/v1/notifications/webhooks/settings').set('authorization', org.auth).send({ url: receiver.url });
      expect(created.status).toBe(201);
    }
    for (let i = 0; i < 5; i++) await emitEvent(ctx, orgA.org.id, 'Transaction_Created');
    await emitEvent(ctx, orgB.org.id, 'Transaction_Created');
    const dispatcher = new Dispatcher(ctx, { random: () => 0.5 });
    const metrics = createMetricsWorker(
      ctx,
      () => 0,
      () => dispatcher.byOrg(),
    );
    const pass = dispatcher.runOnce();
    try {
      await receiver.waitFor(3);
      const text = await metrics.collect();
      // A: two sends (its webhook's slots), three claimed rows waiting; B: its one send.
      expect(sample(text, 'borderd_delivery_sending', { org_id: orgA.org.id })).toBe(2);
      expect(sample(text, 'borderd_delivery_queued', { org_id: orgA.org.id })).toBe(3);
      expect(sample(text, 'borderd_delivery_sending', { org_id: orgB.org.id })).toBe(1);
      expect(sample(text, 'borderd_delivery_queued', { org_id: orgB.org.id })).toBe(0);
    } finally {
      release();
    }
    expect(await pass).toBe(6);
    const after = await metrics.collect();
    expect(sample(after, 'borderd_delivery_sending', { org_id: orgA.org.id })).toBeUndefined();
    expect(sample(after, 'borderd_delivery_queued', { org_id: orgB.org.id })).toBeUndefined();
  });
});

describe('borderd_events_total', () => {
  it('counts every event committed while the daemon runs, by this process or another (the CLI, a second node), once each', async () => {
    const ctx = await makeContext({ 'server.port': 0 });
    const org = await createOrganization(ctx, 'Acme');
    // Before the daemon starts: not counted by it.
    await emitEvent(ctx, org.id, 'Transaction_Created');
    const daemon = await startDaemon(ctx);
    try {
      const scrape = async () => (await fetch(daemon.metricsUrl!)).text();
      expect(sample(await scrape(), 'borderd_events_total', { type: 'Transaction_Created' })).toBeUndefined();
      const db = ['--db', ctx.config.database.path];
      const tx = await runCli([
        'tx',
        'create',
        '--org',
        org.id,
        '--type',
        'Withdrawal',
        '--amount',
        '10',
        '--currency',
        'USD',
        ...db,
        '--print',
        'id',
      ]);
      expect(tx.code, tx.stderr).toBe(0);
      expect((await runCli(['tx', 'status', tx.stdout.trim(), 'Failed', ...db])).code).toBe(0);
      // Another process on the same database, as a second node would be; and an organization made after the start.
      const other = await makeContext({ ...sameDatabase(ctx), dataDir: ctx.config.dataDir });
      const later = await createOrganization(other, 'Globex');
      await emitEvent(other, later.id, 'Transaction_Created');
      await emitEvent(other, org.id, 'Transaction_Created');
      let text = await scrape();
      expect(sample(text, 'borderd_events_total', { type: 'Transaction_Created' })).toBe(3);
      expect(sample(text, 'borderd_events_total', { type: 'Transaction_Updated' })).toBe(1);
      // A scrape that finds nothing new adds nothing; the next event adds one.
      text = await scrape();
      expect(sample(text, 'borderd_events_total', { type: 'Transaction_Created' })).toBe(3);
      await emitEvent(other, later.id, 'Transaction_Created');
      expect(sample(await scrape(), 'borderd_events_total', { type: 'Transaction_Created' })).toBe(4);
    } finally {
      await daemon.close();
    }
  });
});

describe('GET /metrics', () => {
  it("is on the API's port when metrics.port is unset, and alone on its own port when it is set", async () => {
    const onApi = await startDaemon(await makeContext({ 'server.port': 0 }));
    try {
      expect(onApi.metricsUrl).toBe(`${onApi.url}/metrics`);
      const res = await fetch(onApi.metricsUrl!);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
      const text = await res.text();
      expect(sample(text, 'borderd_webhooks', { state: 'enabled' })).toBe(0);
      expect(sample(text, 'borderd_event_stream_clients')).toBe(0);
      expect(text).toMatch(/^process_cpu_seconds_total /m);
    } finally {
      await onApi.close();
    }

    const apart = await startDaemon(await makeContext({ 'server.port': 0, 'metrics.port': 0 }));
    try {
      expect(apart.metricsUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
      expect(apart.metricsUrl).not.toContain(apart.url);
      expect((await fetch(apart.metricsUrl!)).status).toBe(200);
      expect((await fetch(apart.metricsUrl!.replace('/metrics', '/v1/health'))).status).toBe(404);
      expect((await fetch(`${apart.url}/metrics`)).status).toBe(404);
    } finally {
      await apart.close();
    }

    const off = await startDaemon(await makeContext({ 'server.port': 0, 'metrics.enabled': false }));
    try {
      expect(off.metricsUrl).toBeUndefined();
      expect((await fetch(`${off.url}/metrics`)).status).toBe(404);
    } finally {
      await off.close();
    }
  }, 30_000);
});
