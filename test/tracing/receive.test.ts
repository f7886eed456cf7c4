import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startDaemon, type Daemon } from '../../src/daemon.js';
import { ensureSigningKey } from '../../src/delivery/signing-keys.js';
import { ADMIN_TOKEN, makeApi, makeContext, makeOrg, tempDir } from '../support/context.js';
import { startLocalApp, startReceive } from '../receiver/support.js';
import { attributeOf, startCollector, type OtlpSpan } from './collector.js';

/** `borderd receive` runs compiled (bin/ runs dist/): `npm run build` first. */

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const CALLER_SPAN = '00f067aa0ba902b7';
const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-01$/;

/** Writes an event of the organization through the admin API, as a caller in trace TRACE. */
async function emitInTrace(daemon: Daemon, orgId: string): Promise<string> {
  const res = await fetch(`${daemon.url}/admin/v1/events`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json', traceparent: `00-${TRACE}-${CALLER_SPAN}-01` },
    body: JSON.stringify({ orgId, type: 'Transaction_Created' }),
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { id: string }).id;
}

const named = (spans: OtlpSpan[], name: string): OtlpSpan[] => spans.filter((s) => s.traceId === TRACE && s.name === name);

describe('borderd receive continues the trace', () => {
  it('listen mode: its span is a child of the delivery attempt, and the app gets a traceparent naming it', async () => {
    const collector = await startCollector();
    const app = await startLocalApp();
    const ctx = await makeContext({ 'server.port': 0, 'admin.token': ADMIN_TOKEN, 'tracing.otlpEndpoint': collector.url });
    const org = await makeOrg(ctx, makeApi(ctx).tokens);
    const dir = tempDir('borderd-receive-trace-');
    const keyFile = join(dir, 'public.pem');
    writeFileSync(keyFile, (await ensureSigningKey(ctx, org.org.id)).publicKey);
    const daemon = await startDaemon(ctx);
    try {
      const rx = await startReceive(
        [
          '--forward-to',
          app.url,
          '--port',
          '0',
          '--public-key',
          keyFile,
          '--capture-db',
          join(dir, 'c.db'),
          '--otlp-endpoint',
          collector.url,
        ],
        /listening on (http:\/\/\S+),/,
      );
      expect(rx.output()).toContain('tracing: spans are exported over OTLP/HTTP');
      const hook = await fetch(`${daemon.url}/v1/notifications/webhooks/settings`, {
        method: 'POST',
        headers: { authorization: org.auth, 'content-type': 'application/json' },
        body: JSON.stringify({ url: `${rx.url}/` }),
      });
      expect(hook.status).toBe(201);
      const eventId = await emitInTrace(daemon, org.org.id);
      const [received] = await app.waitFor(1);
      const [, traceId, appParent] = TRACEPARENT.exec(String(received!.headers.traceparent)) ?? [];
      expect(traceId).toBe(TRACE);
      expect(await rx.stop()).toBe(0); // flushes the receiver's spans
      await daemon.close(); // and the daemon's

      const [delivery] = named(collector.spans, 'webhook delivery');
      const [receive, ...more] = named(collector.spans, 'borderd receive');
      expect(more).toEqual([]);
      expect(delivery?.service).toBe('borderd');
      expect(receive?.service).toBe('borderd-receive');
      expect(receive!.parentSpanId).toBe(delivery!.spanId);
      expect(appParent).toBe(receive!.spanId);
      expect(attributeOf(receive!, 'borderd.event_id')).toBe(eventId);
      expect(attributeOf(receive!, 'borderd.outcome')).toBe('forwarded');
      expect(attributeOf(receive!, 'http.response.status_code')).toBe('200');
    } finally {
      await daemon.close();
      await collector.close();
    }
  }, 60_000);

  it("tunnel mode: the stream carries the event's trace context, and the receiver's span continues it", async () => {
    const collector = await startCollector();
    const app = await startLocalApp();
    const ctx = await makeContext({ 'server.port': 0, 'admin.token': ADMIN_TOKEN, 'tracing.otlpEndpoint': collector.url });
    const org = await makeOrg(ctx, makeApi(ctx).tokens);
    const daemon = await startDaemon(ctx);
    try {
      const rx = await startReceive(
        ['--tunnel', daemon.url, '--forward-to', app.url, '--capture-db', join(tempDir('borderd-receive-trace-'), 'c.db')],
        /tunnel connected to (\S+), new events only/,
        // The environment name, as a sidecar's deployment sets it.
        { BORDERD_CLIENT_ID: org.client.id, BORDERD_CLIENT_SECRET: org.client.clientSecret, BORDERD_TRACING_OTLP_ENDPOINT: collector.url },
      );
      const eventId = await emitInTrace(daemon, org.org.id);
      const [received] = await app.waitFor(1);
      expect(received!.headers['x-event-id']).toBe(eventId);
      const [, traceId, appParent] = TRACEPARENT.exec(String(received!.headers.traceparent)) ?? [];
      expect(traceId).toBe(TRACE);
      expect(await rx.stop()).toBe(0);
      await daemon.close();

      const [write] = named(collector.spans, 'outbox transaction');
      const [receive, ...more] = named(collector.spans, 'borderd receive');
      expect(more).toEqual([]);
      expect(receive?.service).toBe('borderd-receive');
      expect(receive!.parentSpanId).toBe(write!.spanId);
      expect(appParent).toBe(receive!.spanId);
      expect(attributeOf(receive!, 'borderd.event_id')).toBe(eventId);
      expect(attributeOf(receive!, 'borderd.forward_tries')).toBe('1');
    } finally {
      await daemon.close();
      await collector.close();
    }
  }, 60_000);
});
