import { statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CaptureLog } from '../../src/receiver/capture-log.js';
import { createReporter, type EventReport } from '../../src/receiver/console-report.js';
import { Forwarder, forwardedHeaders, parseHeaderOptions } from '../../src/receiver/forwarder.js';
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
    const d = {
      eventId: 'evt_same',
      eventType: 'Transaction_Created',
      body: '{"id":"evt_same"}',
      headers: { 'content-type': 'application/json' },
    };
    const outcomes = await Promise.all([relay.handle(d), relay.handle(d)]);
    expect(outcomes.map((o) => o.outcome).sort()).toEqual(['duplicate', 'forwarded']);
    expect(app.received).toHaveLength(1);
    expect(app.received[0]!.headers['x-extra']).toBe('1');
    expect(reports.map((r) => r.outcome).sort()).toEqual(['duplicate', 'forwarded']);
    expect(capture.get('evt_same')).toMatchObject({ forwardStatus: 200, attempts: 1, target: app.url });
    await forwarder.close();
    capture.close();
  });

  it('keeps the signed headers, derives the event headers from the verified body and drops the rest', () => {
    const received = {
      connection: 'keep-alive',
      host: 'a',
      'content-type': 'application/json',
      'x-signature': 's',
      'x-signature-key-id': 'k',
      'webhook-id': 'msg_1',
      'webhook-timestamp': '1767225600',
      'webhook-signature': 'v1,abc',
      'x-event-type': 'Evil_Type',
      authorization: 'Bearer x',
      cookie: 'a=b',
      'user-agent': 'curl/8',
      'x-delivery-attempt': 'soon',
    };
    expect(forwardedHeaders(received, { id: 'evt_1', type: 'Transaction_Created' })).toEqual({
      'content-type': 'application/json',
      'user-agent': 'borderd-receive',
      'x-signature': 's',
      'x-signature-key-id': 'k',
      'webhook-id': 'msg_1',
      'webhook-timestamp': '1767225600',
      'webhook-signature': 'v1,abc',
      'x-event-id': 'evt_1',
      'x-event-type': 'Transaction_Created',
    });
  });

  it('parses -H options and refuses malformed ones', () => {
    expect(parseHeaderOptions(['Authorization: Bearer x:y', 'X-A:b'])).toEqual({ authorization: 'Bearer x:y', 'x-a': 'b' });
    expect(() => parseHeaderOptions(['no colon'])).toThrow(/not "Name: value"/);
    expect(() => parseHeaderOptions([': v'])).toThrow();
  });
});

describe('CaptureLog', () => {
  it('keeps the file and its -wal and -shm, which hold the same bodies, to their owner (0600) whatever the umask', () => {
    const dir = tempDir('borderd-capture-mode-');
    const path = join(dir, 'nested', 'capture.db');
    const old = process.umask(0o022);
    try {
      const log = new CaptureLog(path);
      log.record({
        eventId: 'evt_1',
        eventType: 'Transaction_Created',
        body: '{"secret":"x"}',
        headers: {},
        receivedAt: 't',
        target: 'http://127.0.0.1/',
        status: 200,
        at: 't',
      });
      for (const file of [path, `${path}-wal`, `${path}-shm`]) expect((statSync(file).mode & 0o777).toString(8), file).toBe('600');
      log.close();
      // Files an earlier run left readable (a killed receiver leaves its WAL) are set again on open.
      const earlier = join(dir, 'earlier.db');
      for (const file of [earlier, `${earlier}-wal`]) writeFileSync(file, '', { mode: 0o644 });
      const reopened = new CaptureLog(earlier);
      for (const file of [earlier, `${earlier}-wal`]) expect((statSync(file).mode & 0o777).toString(8), file).toBe('600');
      reopened.close();
    } finally {
      process.umask(old);
    }
  });
});
