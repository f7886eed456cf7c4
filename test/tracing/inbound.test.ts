import { describe, expect, it } from 'vitest';
import { startDaemon } from '../../src/daemon.js';
import { importCardNetworkKey } from '../../src/inbound/keyring.js';
import { getInboundEventByEventId } from '../../src/store/inbound-events.js';
import { makeApi, makeContext, makeOrg } from '../support/context.js';
import { joseToken, makeKeyPair, notification } from '../inbound/jwe-fixtures.js';
import { attributeOf, startCollector } from './collector.js';

const TRACE = '5bf92f3577b34da6a3ce929d0e0e4736';
const CARD_NETWORK_SPAN = '10f067aa0ba902b7';
const key = makeKeyPair();

describe('inbound tracing', () => {
  it("continues a notification's trace from its intake to its decryption, linked to the decryption pass", async () => {
    const collector = await startCollector();
    const ctx = await makeContext({ 'server.port': 0, 'tracing.otlpEndpoint': collector.url });
    const org = await makeOrg(ctx, makeApi(ctx).tokens);
    ctx.config.inbound.icaOrganizations = { '123456': org.org.id };
    await importCardNetworkKey(ctx, org.org.id, Buffer.from(key.privatePem));
    const daemon = await startDaemon(ctx);
    try {
      const decrypted = new Promise<void>((resolve) => {
        const unlisten = ctx.signals.inboundPassed.listen((counts) => {
          if ((counts.decrypted ?? 0) === 0) return;
          unlisten();
          resolve();
        });
      });
      const posted = await fetch(`${daemon.url}/v1/webhooks/card-network`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', traceparent: `00-${TRACE}-${CARD_NETWORK_SPAN}-01` },
        body: JSON.stringify(notification(await joseToken({ n: 1 }, key), { eventId: 'ev-traced' })),
      });
      expect(posted.status).toBe(200);
      await decrypted;
      const stored = (await getInboundEventByEventId(ctx.db, 'ev-traced'))!;
      expect(stored.state).toBe('decrypted');
      await daemon.close(); // flushes the spans

      const inTrace = collector.spans.filter((s) => s.traceId === TRACE);
      const intake = inTrace.find((s) => s.name === 'inbound intake')!;
      const request = inTrace.find((s) => s.name === 'POST /v1/webhooks/card-network')!;
      const [attempt, ...more] = inTrace.filter((s) => s.name === 'inbound decryption attempt');
      expect(more).toEqual([]);
      expect(request.parentSpanId).toBe(CARD_NETWORK_SPAN);
      expect(intake.parentSpanId).toBe(request.spanId);
      // The intake's span was stored with the notification, and the decryption attempt continues it.
      expect(stored.traceContext).toBe(`00-${TRACE}-${intake.spanId}-01`);
      expect(attempt!.parentSpanId).toBe(intake.spanId);
      expect(attributeOf(attempt!, 'borderd.inbound_id')).toBe(stored.id);
      expect(attributeOf(attempt!, 'borderd.outcome')).toBe('decrypted');
      // The pass that ran it is a trace of its own, linked from the attempt.
      const pass = collector.spans.find((s) => s.name === 'inbound decryption' && attempt!.links?.some((l) => l.spanId === s.spanId));
      expect(pass).toBeDefined();
      expect(pass!.traceId).not.toBe(TRACE);
      expect(attributeOf(pass!, 'borderd.decrypted')).toBe('1');
    } finally {
      await daemon.close();
      await collector.close();
    }
  }, 30_000);
});
