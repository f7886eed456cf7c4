import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CaptureLog } from '../../src/receiver/capture-log.js';
import { createReporter, type EventReport } from '../../src/receiver/console-report.js';
import { Forwarder } from '../../src/receiver/forwarder.js';
import { Relay } from '../../src/receiver/relay.js';
import { tempDir } from '../support/context.js';
import { startLocalApp } from './support.js';

const delivery = (eventId: string, eventType: string) => ({
  eventId,
  eventType,
  body: JSON.stringify({ id: eventId, type: eventType }),
  headers: { 'content-type': 'application/json' },
});

describe('receive --route TYPE=URL', () => {
  it('forwards each type to the first route that takes it, the rest to --forward-to, or skips them without one', async () => {
    const [tx, created, rest] = [await startLocalApp(), await startLocalApp(), await startLocalApp()];
    const capture = new CaptureLog(join(tempDir('borderd-routes-'), 'capture.db'));
    const reports: EventReport[] = [];
    const reporter = { ...createReporter(false, () => undefined), event: (r: EventReport) => reports.push(r) };
    const routes = [
      { pattern: 'VirtualAccount_Created', forwarder: new Forwarder(created.url) },
      { pattern: 'Transaction_*', forwarder: new Forwarder(tx.url) },
    ];
    const fallback = new Forwarder(rest.url);
    const relay = new Relay({ forwarder: fallback, routes, capture, reporter, dedupe: true, eventTypes: [] });
    await relay.handle(delivery('evt_1', 'Transaction_Created'));
    await relay.handle(delivery('evt_2', 'Transaction_Updated'));
    await relay.handle(delivery('evt_3', 'VirtualAccount_Created'));
    await relay.handle(delivery('evt_4', 'VirtualAccount_CreationFailed'));
    const ids = (app: typeof tx) => app.received.map((r) => (JSON.parse(r.body) as { id: string }).id);
    expect([ids(tx), ids(created), ids(rest)]).toEqual([['evt_1', 'evt_2'], ['evt_3'], ['evt_4']]);

    const routesOnly = new Relay({ forwarder: undefined, routes, capture, reporter, dedupe: false, eventTypes: [] });
    const skipped = await routesOnly.handle(delivery('evt_5', 'IdentityComplianceCheck_Updated'));
    expect([skipped.status, skipped.outcome]).toEqual([200, 'skipped']);
    expect(reports.at(-1)).toMatchObject({ eventId: 'evt_5', outcome: 'skipped', detail: 'no --route takes this type' });
    expect(ids(rest)).toEqual(['evt_4']);
    for (const f of [fallback, ...routes.map((r) => r.forwarder)]) await f.close();
    capture.close();
  });
});
