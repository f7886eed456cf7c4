import { describe, expect, it } from 'vitest';
import { createOrganization } from '../../src/services/organizations.js';
import { inboundExposure } from '../../src/inbound/sender-check.js';
import { listInboundEvents } from '../../src/store/inbound-events.js';
import { makeApi, makeContext } from '../support/context.js';
import { joseToken, makeKeyPair, notification } from './jwe-fixtures.js';

// What an anonymous sender can make a reachable daemon store: nothing without a sender check, and
// with one configured, no more than a real notification needs, and a bounded number of unmatched rows.

const PATH = '/v1/webhooks/card-network';
const key = makeKeyPair();

describe('a card-network endpoint reachable from other hosts', () => {
  it('stays closed without a sender check: 503, nothing stored', async () => {
    const ctx = await makeContext({ 'server.host': '0.0.0.0' });
    const { http } = makeApi(ctx);
    const res = await http.post(PATH).send(notification(await joseToken({}, key), { ica: 'nobody' }));
    expect(res.status).toBe(503);
    expect(res.body.code).toBe('sender_check_required');
    expect(await listInboundEvents(ctx.db)).toEqual([]);
  });

  it('logs its refusals as one warning per sender per minute with a count, never an error with a stack', async () => {
    const ctx = await makeContext({ 'server.host': '0.0.0.0', 'server.trustProxy': 1 });
    const { http } = makeApi(ctx);
    const body = notification(await joseToken({}, key), { ica: 'nobody' });
    const from = (address: string) => http.post(PATH).set('x-forwarded-for', address).send(body);
    for (let i = 0; i < 5; i++) expect((await from('198.51.100.9')).status).toBe(503);
    expect((await from('198.51.100.10')).status).toBe(503);
    const refusals = () => ctx.logs.lines.filter((l) => l.code === 'sender_check_required');
    expect(ctx.logs.lines.filter((l) => (l.level as number) >= 50)).toEqual([]);
    expect(ctx.logs.text()).not.toContain('"stack"');
    expect(refusals().map((l) => [l.level, l.sender, l.count])).toEqual([
      [40, '198.51.100.9', 1],
      [40, '198.51.100.10', 1],
    ]);
    // The next interval's first refusal says how many the quiet interval held back.
    ctx.clock.advance(60_000);
    expect((await from('198.51.100.9')).status).toBe(503);
    expect(refusals().map((l) => [l.sender, l.count])).toEqual([
      ['198.51.100.9', 1],
      ['198.51.100.10', 1],
      ['198.51.100.9', 5],
    ]);
  });

  it('opens to any sender only when inbound.allowAnySender says so', async () => {
    const ctx = await makeContext({ 'server.host': '0.0.0.0', 'inbound.allowAnySender': true });
    const { http } = makeApi(ctx);
    expect((await http.post(PATH).send(notification(await joseToken({}, key)))).status).toBe(200);
  });

  interface Setting {
    host: string;
    allowlist?: string[];
    clientCertHeader?: { name: string; value: string };
    allowAnySender?: boolean;
  }
  it.each<[Setting, string]>([
    [{ host: '127.0.0.1' }, 'local'],
    [{ host: '::1' }, 'local'],
    [{ host: 'localhost' }, 'local'],
    [{ host: '0.0.0.0' }, 'closed'],
    [{ host: '0.0.0.0', allowlist: ['203.0.113.0/24'] }, 'checked'],
    [{ host: '0.0.0.0', clientCertHeader: { name: 'x-c', value: 'ok' } }, 'checked'],
    [{ host: '0.0.0.0', allowAnySender: true }, 'open'],
  ])('%j is %s', (c, exposure) => {
    expect(
      inboundExposure({
        server: { host: c.host },
        inbound: { allowlist: c.allowlist ?? [], clientCertHeader: c.clientCertHeader, allowAnySender: c.allowAnySender ?? false },
      }),
    ).toBe(exposure);
  });
});

describe('what one notification may carry', () => {
  it('refuses a 1 MiB extra field with 413 (the default inbound.bodyLimitBytes), storing nothing', async () => {
    const ctx = await makeContext({ 'inbound.allowlist': ['127.0.0.1', '::1'] });
    const { http } = makeApi(ctx);
    const res = await http.post(PATH).send(notification(await joseToken({}, key), { ica: 'nobody', padding: 'x'.repeat(1024 * 1024) }));
    expect(res.status).toBe(413);
    expect(await listInboundEvents(ctx.db)).toEqual([]);
  });

  it('refuses a body larger than inbound.bodyLimitBytes with 413', async () => {
    const ctx = await makeContext({ 'inbound.bodyLimitBytes': 4096 });
    const { http } = makeApi(ctx);
    const big = notification(await joseToken({ filler: 'y'.repeat(4096) }, key));
    const res = await http.post(PATH).send(big);
    expect(res.status).toBe(413);
    expect(await listInboundEvents(ctx.db)).toEqual([]);
  });
});

describe('what one unmatched sender may store', () => {
  it('answers 429 past inbound.maxUnmatchedPerSender unmatched rows from one address; others and matched icas go on', async () => {
    const ctx = await makeContext({ 'inbound.maxUnmatchedPerSender': 2, 'server.trustProxy': 1 });
    const org = await createOrganization(ctx, 'Acme');
    ctx.config.inbound.icaOrganizations = { '123456': org.id };
    const { http } = makeApi(ctx);
    const token = await joseToken({}, key);
    const from = (address: string, over: Record<string, unknown>) =>
      http.post(PATH).set('x-forwarded-for', address).send(notification(token, over));
    expect((await from('198.51.100.9', { eventId: 'u-1', ica: 'nobody-1' })).status).toBe(200);
    expect((await from('198.51.100.9', { eventId: 'u-2', ica: 'nobody-2' })).status).toBe(200);
    const third = await from('198.51.100.9', { eventId: 'u-3', ica: 'nobody-3' });
    expect(third.status).toBe(429);
    expect(third.body.code).toBe('unmatched_limit_reached');
    // IPv6 addresses count by their /64.
    expect((await from('2001:db8::1', { eventId: 'v-1', ica: 'nobody-1' })).status).toBe(200);
    expect((await from('2001:db8::2', { eventId: 'v-2', ica: 'nobody-1' })).status).toBe(200);
    expect((await from('2001:db8::3', { eventId: 'v-3', ica: 'nobody-1' })).status).toBe(429);
    expect((await from('198.51.100.10', { eventId: 'w-1', ica: 'nobody-1' })).status).toBe(200);
    expect((await from('198.51.100.9', { eventId: 'm-1' })).status).toBe(200);
    const rows = await listInboundEvents(ctx.db);
    expect(rows.map((r) => r.eventId).sort()).toEqual(['m-1', 'u-1', 'u-2', 'v-1', 'v-2', 'w-1']);
  });
});

describe('what one sender may store on an endpoint open to anyone', () => {
  it('counts every notification a sender stored, mapped ica or not: 429 sender_limit_reached past the cap', async () => {
    const ctx = await makeContext({
      'server.host': '0.0.0.0',
      'inbound.allowAnySender': true,
      'inbound.maxUnmatchedPerSender': 3,
      'server.trustProxy': 1,
    });
    const org = await createOrganization(ctx, 'Acme');
    ctx.config.inbound.icaOrganizations = { '123456': org.id };
    const { http } = makeApi(ctx);
    const token = await joseToken({}, key);
    const from = (address: string, over: Record<string, unknown>) =>
      http.post(PATH).set('x-forwarded-for', address).send(notification(token, over));
    for (const eventId of ['m-1', 'm-2']) expect((await from('198.51.100.9', { eventId })).status).toBe(200);
    expect((await from('198.51.100.9', { eventId: 'u-1', ica: 'nobody' })).status).toBe(200);
    const mapped = await from('198.51.100.9', { eventId: 'm-3' });
    expect(mapped.status).toBe(429);
    expect(mapped.body.code).toBe('sender_limit_reached');
    expect(mapped.headers['retry-after']).toBe('300');
    expect((await from('198.51.100.9', { eventId: 'u-2', ica: 'nobody' })).status).toBe(429);
    // A redelivery of what is stored is still answered as such, and another address is not held back.
    expect((await from('198.51.100.9', { eventId: 'm-1' })).status).toBe(200);
    expect((await from('198.51.100.10', { eventId: 'n-1' })).status).toBe(200);
    const rows = await listInboundEvents(ctx.db);
    expect(rows.map((r) => r.eventId).sort()).toEqual(['m-1', 'm-2', 'n-1', 'u-1']);
  });
});
