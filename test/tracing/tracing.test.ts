import { describe, expect, it } from 'vitest';
import { startDaemon } from '../../src/daemon.js';
import { forwardedHeaders } from '../../src/receiver/forwarder.js';
import { tracingOn } from '../../src/tracing/spans.js';
import { ADMIN_TOKEN, makeApi, makeContext, makeOrg } from '../support/context.js';
import { startReceiver } from '../delivery/receiver.js';
import { startCollector } from './collector.js';

const TRACE = '0af7651916cd43dd8448eb211c80319c';
const CALLER_SPAN = 'b7ad6b7169203331';

describe('tracing', () => {
  it('is off by default: no SDK, no request spans, no traceparent on deliveries', async () => {
    const receiver = await startReceiver();
    const ctx = await makeContext({ 'server.port': 0, 'admin.token': ADMIN_TOKEN });
    const org = await makeOrg(ctx, makeApi(ctx).tokens);
    const daemon = await startDaemon(ctx);
    try {
      expect(tracingOn()).toBe(false);
      await fetch(`${daemon.url}/v1/notifications/webhooks/settings`, {
        method: 'POST',
        headers: { authorization: org.auth, 'content-type': 'application/json' },
        body: JSON.stringify({ url: receiver.url }),
      });
      const emitted = await fetch(`${daemon.url}/admin/v1/events`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${ADMIN_TOKEN}`,
          'content-type': 'application/json',
          traceparent: `00-${TRACE}-${CALLER_SPAN}-01`,
        },
        body: JSON.stringify({ orgId: org.org.id, type: 'Transaction_Created' }),
      });
      expect(emitted.status).toBe(201);
      await receiver.waitFor(1);
      expect(receiver.received[0]!.headers.traceparent).toBeUndefined();
    } finally {
      await daemon.close();
    }
  });

  it("links a delivery to the request that wrote its event: the caller's trace, through the outbox, to the receiver", async () => {
    const collector = await startCollector();
    const receiver = await startReceiver();
    const ctx = await makeContext({ 'server.port': 0, 'admin.token': ADMIN_TOKEN, 'tracing.otlpEndpoint': collector.url });
    const { tokens } = makeApi(ctx);
    const org = await makeOrg(ctx, tokens);
    const daemon = await startDaemon(ctx);
    try {
      expect(tracingOn()).toBe(true);
      const hook = await fetch(`${daemon.url}/v1/notifications/webhooks/settings`, {
        method: 'POST',
        headers: { authorization: org.auth, 'content-type': 'application/json' },
        body: JSON.stringify({ url: receiver.url }),
      });
      expect(hook.status).toBe(201);
      const emitted = await fetch(`${daemon.url}/admin/v1/events`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${ADMIN_TOKEN}`,
          'content-type': 'application/json',
          traceparent: `00-${TRACE}-${CALLER_SPAN}-01`,
        },
        body: JSON.stringify({ orgId: org.org.id, type: 'Transaction_Created' }),
      });
      expect(emitted.status).toBe(201);
      await receiver.waitFor(1);
      const traceparent = String(receiver.received[0]!.headers.traceparent);
      const [, traceId, attemptSpan] = /^00-([0-9a-f]{32})-([0-9a-f]{16})-01$/.exec(traceparent) ?? [];
      expect(traceId).toBe(TRACE);
      expect(attemptSpan).not.toBe(CALLER_SPAN);
      // `borderd receive` forwards it with the delivery's other headers: the app's spans continue the trace.
      expect(forwardedHeaders(receiver.received[0]!.headers, { id: 'evt_x', type: 'Transaction_Created' }).traceparent).toBe(traceparent);
    } finally {
      await daemon.close(); // flushes the spans
    }
    const inTrace = collector.spans.filter((s) => s.traceId === TRACE);
    const byName = new Map(inTrace.map((s) => [s.name, s]));
    expect([...byName.keys()]).toEqual(expect.arrayContaining(['POST /admin/v1/events', 'outbox transaction', 'webhook delivery']));
    const request = byName.get('POST /admin/v1/events')!;
    const write = byName.get('outbox transaction')!;
    const delivery = byName.get('webhook delivery')!;
    expect(request.parentSpanId).toBe(CALLER_SPAN);
    expect(write.parentSpanId).toBe(request.spanId);
    expect(delivery.parentSpanId).toBe(write.spanId);
    await collector.close();
  }, 30_000);
});
