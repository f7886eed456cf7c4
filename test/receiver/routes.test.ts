import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CaptureLog } from '../../src/receiver/capture-log.js';
import { createReporter, type EventReport } from '../../src/receiver/console-report.js';
import { Forwarder } from '../../src/receiver/forwarder.js';
import { Relay } from '../../src/receiver/relay.js';
import { createTestSigner } from '../../src/verify/index.js';
import { tempDir } from '../support/context.js';
import { runCli } from '../support/process.js';
import { startLocalApp, startReceive } from './support.js';

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

describe('borderd receive --route (process)', () => {
  it('routes signed deliveries by type without --forward-to, and says where each type goes', async () => {
    const signer = createTestSigner();
    const dir = tempDir('borderd-route-');
    writeFileSync(join(dir, 'public.pem'), signer.publicKey);
    const [tx, va] = [await startLocalApp(), await startLocalApp()];
    const rx = await startReceive(
      [
        '--route',
        `Transaction_*=${tx.url}`,
        '--route',
        `VirtualAccount_Created=${va.url}`,
        '--port',
        '0',
        '--public-key',
        join(dir, 'public.pem'),
        '--capture-db',
        join(dir, 'capture.db'),
      ],
      /listening on (http:\/\/127\.0\.0\.1:\d+)/,
    );
    expect(rx.output()).toContain(`forwarding Transaction_* to ${tx.url}, VirtualAccount_Created to ${va.url}`);
    const send = async (type: 'Transaction_Created' | 'VirtualAccount_Created' | 'IdentityComplianceCheck_Updated') => {
      const d = signer.signEvent(type, { id: 'x', createdAt: '2026-01-01T00:00:00.000Z', updatedAt: '2026-01-01T00:00:00.000Z' } as never);
      return (await fetch(rx.url!, { method: 'POST', body: d.body, headers: d.headers })).json() as Promise<{ outcome: string }>;
    };
    expect((await send('Transaction_Created')).outcome).toBe('forwarded');
    expect((await send('VirtualAccount_Created')).outcome).toBe('forwarded');
    expect((await send('IdentityComplianceCheck_Updated')).outcome).toBe('skipped');
    expect([tx.received.length, va.received.length]).toEqual([1, 1]);
    expect((JSON.parse(va.received[0]!.body) as { type: string }).type).toBe('VirtualAccount_Created');
  });

  it('refuses a malformed --route, or none of --route and --forward-to, in one line (exit 2)', async () => {
    for (const [args, said] of [
      [['--route', 'Transaction_Created'], 'is not TYPE=URL'],
      [['--route', 'Trans*action=http://127.0.0.1:1/'], 'is not TYPE=URL'],
      [['--route', 'Transaction_Created=ftp://127.0.0.1/'], 'must be an http(s) URL'],
      [[], 'needs --forward-to URL (the local app) or --route TYPE=URL'],
    ] as const) {
      const res = await runCli(['receive', ...args, '--public-key', 'missing.pem']);
      expect(res.code, args.join(' ')).toBe(2);
      expect(res.stderr.trim().split('\n')).toHaveLength(1);
      expect(res.stderr).toContain(said);
    }
  });
});
