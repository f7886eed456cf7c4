import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CaptureLog } from '../../src/receiver/capture-log.js';
import { createReporter, type EventReport } from '../../src/receiver/console-report.js';
import { Forwarder, forwardableHeaders, parseHeaderOptions } from '../../src/receiver/forwarder.js';
import { Relay } from '../../src/receiver/relay.js';
import { tempDir } from '../support/context.js';
import { startLocalApp } from './support.js';

function relayTo(url: string, dedupe = true) {
  const capture = new CaptureLog(join(tempDir('borderd-relay-'), 'capture.db'));
  const reports: EventReport[] = [];
  const reporter = { ...createReporter(false, () => undefined), event: (r: EventReport) => reports.push(r) };
  const forwarder = new Forwarder(url, { 'x-extra': '1' });
  return { relay: new Relay({ forwarder, capture, reporter, dedupe, eventTypes: [] }), capture, reports, forwarder };
}

describe('Relay', () => {
  it('forwards the same event delivered twice at once only once', async () => {
    const app = await startLocalApp();
    const { relay, reports, forwarder, capture } = relayTo(app.url);
    const d = { eventId: 'evt_same', eventType: 'Transaction_Created', body: '{"id":"evt_same"}', headers: { 'content-type': 'application/json' } };
    const outcomes = await Promise.all([relay.handle(d), relay.handle(d)]);
    expect(outcomes.map((o) => o.outcome).sort()).toEqual(['duplicate', 'forwarded']);
    expect(app.received).toHaveLength(1);
    expect(app.received[0]!.headers['x-extra']).toBe('1');
    expect(reports.map((r) => r.outcome).sort()).toEqual(['duplicate', 'forwarded']);
    expect(capture.get('evt_same')).toMatchObject({ forwardStatus: 200, attempts: 1, target: app.url });
    await forwarder.close();
    capture.close();
  });

  it('keeps end-to-end headers and drops hop-by-hop ones', () => {
    expect(
      forwardableHeaders({ connection: 'keep-alive, x-hop', 'x-hop': '1', host: 'a', 'content-length': '3', 'x-signature': 's', 'transfer-encoding': 'chunked', 'user-agent': 'borderd/0.1.0' }),
    ).toEqual({ 'x-signature': 's', 'user-agent': 'borderd/0.1.0' });
  });

  it('parses -H options and refuses malformed ones', () => {
    expect(parseHeaderOptions(['Authorization: Bearer x:y', 'X-A:b'])).toEqual({ authorization: 'Bearer x:y', 'x-a': 'b' });
    expect(() => parseHeaderOptions(['no colon'])).toThrow(/not "Name: value"/);
    expect(() => parseHeaderOptions([': v'])).toThrow();
  });
});
