import { describe, expect, it } from 'vitest';
import { makeApi, makeContext } from '../support/context.js';
import { createOrganization } from '../../src/services/organizations.js';
import { getInboundEventByEventId, listInboundEvents } from '../../src/store/inbound-events.js';
import { joseToken, makeKeyPair, notification } from './jwe-fixtures.js';

const PATH = '/v1/webhooks/card-network';
const key = makeKeyPair();

describe('POST /v1/webhooks/card-network', () => {
  it('stores the notification byte for byte before answering 200', async () => {
    const ctx = await makeContext();
    const org = await createOrganization(ctx, 'Acme');
    ctx.config.inbound.icaOrganizations = { '123456': org.id };
    const { http } = makeApi(ctx);
    const raw = JSON.stringify(notification(await joseToken({ a: 1 }, key)), null, 1);
    const res = await http.post(PATH).set('content-type', 'application/json').send(raw);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ received: true, eventId: 'ev-1', duplicate: false });
    const row = (await getInboundEventByEventId(ctx.db, 'ev-1'))!;
    expect(row.rawBody).toBe(raw);
    expect(row.state).toBe('received');
    expect(row.orgId).toBe(org.id);
    expect(row.eventType).toBe('TOKEN_STATUS_UPDATED');
  });

  it('answers a duplicate eventId with 200 and keeps one row, the first', async () => {
    const ctx = await makeContext();
    const { http } = makeApi(ctx);
    const first = notification(await joseToken({ n: 1 }, key));
    const second = notification(await joseToken({ n: 2 }, key));
    expect((await http.post(PATH).send(first)).body.duplicate).toBe(false);
    const again = await http.post(PATH).send(second);
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ received: true, eventId: 'ev-1', duplicate: true });
    const rows = await listInboundEvents(ctx.db);
    expect(rows).toHaveLength(1);
    expect(rows[0]!.rawBody).toBe(JSON.stringify(first));
  });

  it('keeps every notification of a burst', async () => {
    const ctx = await makeContext();
    const { http } = makeApi(ctx);
    const token = await joseToken({ n: 1 }, key);
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) => http.post(PATH).send(notification(token, { eventId: `burst-${i}` }))),
    );
    expect(results.map((r) => r.status)).toEqual(Array(50).fill(200));
    expect((await listInboundEvents(ctx.db)).map((r) => r.eventId).sort()).toEqual(
      Array.from({ length: 50 }, (_, i) => `burst-${i}`).sort(),
    );
  });

  it('stores an unknown ica as unmatched', async () => {
    const ctx = await makeContext();
    const { http } = makeApi(ctx);
    const res = await http.post(PATH).send(notification(await joseToken({}, key), { ica: 'nobody' }));
    expect(res.status).toBe(200);
    const row = (await getInboundEventByEventId(ctx.db, 'ev-1'))!;
    expect(row.state).toBe('unmatched');
    expect(row.orgId).toBeNull();
  });

  it('accepts data as an object holding the JWE in one member', async () => {
    const ctx = await makeContext();
    const { http } = makeApi(ctx);
    const res = await http.post(PATH).send(notification({ encryptedValue: await joseToken({}, key) }));
    expect(res.status).toBe(200);
  });

  describe('400 for every bad field', async () => {
    const token = await joseToken({}, key);
    const long = 'x'.repeat(256);
    const cases: [string, Record<string, unknown>, string][] = [
      ['missing eventId', notification(token, { eventId: undefined }), 'body.eventId'],
      ['missing eventType', notification(token, { eventType: undefined }), 'body.eventType'],
      ['missing eventCreatedDate', notification(token, { eventCreatedDate: undefined }), 'body.eventCreatedDate'],
      ['missing ica', notification(token, { ica: undefined }), 'body.ica'],
      ['missing data', notification(undefined), 'body.data'],
      ['over-long eventId', notification(token, { eventId: long }), 'body.eventId'],
      ['over-long eventType', notification(token, { eventType: long }), 'body.eventType'],
      ['over-long eventCreatedDate', notification(token, { eventCreatedDate: long }), 'body.eventCreatedDate'],
      ['over-long ica', notification(token, { ica: long }), 'body.ica'],
      ['numeric eventId', notification(token, { eventId: 42 }), 'body.eventId'],
      ['numeric ica', notification(token, { ica: 123456 }), 'body.ica'],
      ['empty eventType', notification(token, { eventType: '' }), 'body.eventType'],
      ['data not a JWE', notification('hello'), 'body.data'],
      ['data with four segments', notification(token.split('.').slice(0, 4).join('.')), 'body.data'],
      ['data header not JSON', notification(['bm90IGpzb24', ...token.split('.').slice(1)].join('.')), 'body.data'],
      ['data a number', notification(7), 'body.data'],
      ['data an object of two members', notification({ a: token, b: token }), 'body.data'],
      ['numeric eventType', notification(token, { eventType: 7 }), 'body.eventType'],
      ['object eventType', notification(token, { eventType: { name: 'x' } }), 'body.eventType'],
      ['boolean eventCreatedDate', notification(token, { eventCreatedDate: true }), 'body.eventCreatedDate'],
      ['numeric eventCreatedDate', notification(token, { eventCreatedDate: 1767225600000 }), 'body.eventCreatedDate'],
      ['data a one-member object whose value is not a JWE', notification({ encryptedValue: 'hello' }), 'body.data'],
      ['data a one-member object whose value is not a string', notification({ encryptedValue: 42 }), 'body.data'],
      [
        'data a one-member object holding a four-segment token',
        notification({ encryptedValue: token.split('.').slice(0, 4).join('.') }),
        'body.data',
      ],
      ['data an empty object', notification({}), 'body.data'],
      ['data with "+" in a segment', notification(token.replace(/[-_]/, '+')), 'body.data'],
      [
        'data with "=" padding',
        notification(
          token
            .split('.')
            .map((p, i) => (i === 2 ? `${p}==` : p))
            .join('.'),
        ),
        'body.data',
      ],
    ];
    for (const [name, body, path] of cases) {
      it(name, async () => {
        const ctx = await makeContext();
        const { http } = makeApi(ctx);
        const res = await http.post(PATH).send(body);
        expect(res.status).toBe(400);
        expect(res.headers['content-type']).toMatch(/application\/problem\+json/);
        expect((res.body.errors as { path: string }[]).map((e) => e.path)).toEqual([path]);
        expect(await listInboundEvents(ctx.db)).toHaveLength(0);
      });
    }
  });

  it('answers 400 for a body that is not an object (array, JSON string, number) and stores nothing', async () => {
    const ctx = await makeContext();
    const { http } = makeApi(ctx);
    const token = await joseToken({}, key);
    for (const raw of [JSON.stringify([notification(token)]), '[]', '"hello"', '42', 'null']) {
      const res = await http.post(PATH).set('content-type', 'application/json').send(raw);
      expect(res.status, raw).toBe(400);
      expect(res.headers['content-type']).toMatch(/application\/problem\+json/);
    }
    // An array is parsed, then refused by the schema as a whole: the error names the body itself.
    const array = await http.post(PATH).set('content-type', 'application/json').send('[]');
    expect((array.body.errors as { path: string }[]).map((e) => e.path)).toEqual(['body']);
    expect(await listInboundEvents(ctx.db)).toHaveLength(0);
  });

  it('accepts every string field at exactly 255 characters', async () => {
    const ctx = await makeContext();
    const { http } = makeApi(ctx);
    const at = (c: string) => c.repeat(255);
    const body = notification(await joseToken({}, key), { eventId: at('e'), eventType: at('t'), eventCreatedDate: at('d'), ica: at('i') });
    const res = await http.post(PATH).send(body);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ received: true, eventId: at('e'), duplicate: false });
    expect(await getInboundEventByEventId(ctx.db, at('e'))).toMatchObject({ eventType: at('t'), eventCreatedDate: at('d'), ica: at('i') });
  });

  it('answers 415 for a JSON body in a charset other than UTF-8, and stores nothing', async () => {
    const ctx = await makeContext();
    const { http } = makeApi(ctx);
    const raw = JSON.stringify(notification(await joseToken({}, key)));
    for (const charset of ['utf-16le', 'utf-16be', 'utf-16']) {
      const bytes = charset === 'utf-16be' ? Buffer.from(raw, 'utf16le').swap16() : Buffer.from(raw, 'utf16le');
      const res = await http
        .post(PATH)
        .set('content-type', `application/json; charset=${charset}`)
        .serialize((b: unknown) => b as string)
        .send(bytes);
      expect(res.status, charset).toBe(415);
      expect(res.headers['content-type']).toMatch(/application\/problem\+json/);
    }
    expect(await listInboundEvents(ctx.db)).toHaveLength(0);
    const utf8 = await http.post(PATH).set('content-type', 'application/json; charset=UTF-8').send(raw);
    expect(utf8.status).toBe(200);
  });

  it('answers 413 past the body limit', async () => {
    const ctx = await makeContext({ 'server.bodyLimitBytes': 2048 });
    const { http } = makeApi(ctx);
    const res = await http.post(PATH).send(notification(await joseToken({ pad: 'x'.repeat(4096) }, key)));
    expect(res.status).toBe(413);
    expect(await listInboundEvents(ctx.db)).toHaveLength(0);
  });

  it('refuses a sender outside the allowlist with 403 and stores nothing', async () => {
    const ctx = await makeContext({ 'inbound.allowlist': ['10.0.0.0/8', '2001:db8::/32'] });
    const { http } = makeApi(ctx);
    const res = await http.post(PATH).send(notification(await joseToken({}, key)));
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('sender_not_allowed');
    expect(await listInboundEvents(ctx.db)).toHaveLength(0);
  });

  it('refuses before validating, so a refused sender learns nothing of the body rules', async () => {
    const ctx = await makeContext({ 'inbound.allowlist': ['10.0.0.0/8'] });
    const { http } = makeApi(ctx);
    expect((await http.post(PATH).send({})).status).toBe(403);
  });

  it('refuses before reading the body: a refused sender never sees 400, 413 or 415', async () => {
    const ctx = await makeContext({ 'inbound.allowlist': ['10.0.0.0/8'], 'server.bodyLimitBytes': 2048 });
    const { http } = makeApi(ctx);
    const notJson = await http.post(PATH).set('content-type', 'text/plain').send('hello');
    expect([notJson.status, notJson.body.code]).toEqual([403, 'sender_not_allowed']);
    const tooLarge = await http.post(PATH).send(notification('x'.repeat(8192)));
    expect([tooLarge.status, tooLarge.body.code]).toEqual([403, 'sender_not_allowed']);
    const malformed = await http.post(PATH).set('content-type', 'application/json').send('{"eventId":');
    expect([malformed.status, malformed.body.code]).toEqual([403, 'sender_not_allowed']);
    // Also for the path as Express matches it (trailing slash, other case).
    expect((await http.post(`${PATH}/`).set('content-type', 'text/plain').send('x')).status).toBe(403);
    expect((await http.post(PATH.toUpperCase()).set('content-type', 'text/plain').send('x')).status).toBe(403);
    expect(await listInboundEvents(ctx.db)).toHaveLength(0);
  });

  it('an admitted sender still gets the body rules (415, 413, 400)', async () => {
    const ctx = await makeContext({ 'inbound.allowlist': ['127.0.0.0/8', '::1/128'], 'server.bodyLimitBytes': 2048 });
    const { http } = makeApi(ctx);
    expect((await http.post(PATH).set('content-type', 'text/plain').send('hello')).status).toBe(415);
    expect((await http.post(PATH).send(notification('x'.repeat(8192)))).status).toBe(413);
    expect((await http.post(PATH).set('content-type', 'application/json').send('{"eventId":')).status).toBe(400);
  });

  it('admits loopback when the allowlist holds it (IPv4-mapped IPv6 included)', async () => {
    const ctx = await makeContext({ 'inbound.allowlist': ['127.0.0.0/8', '::1/128'] });
    const { http } = makeApi(ctx);
    expect((await http.post(PATH).send(notification(await joseToken({}, key)))).status).toBe(200);
  });

  it('believes the client-certificate header only from a peer server.trustProxy names: a client reaching the port itself could write it', async () => {
    const ctx = await makeContext({
      'server.trustProxy': ['10.0.0.0/8'],
      'inbound.clientCertHeader': { name: 'x-client-verified', value: 'SUCCESS' },
    });
    const { http } = makeApi(ctx);
    const direct = await http
      .post(PATH)
      .set('x-client-verified', 'SUCCESS')
      .send(notification(await joseToken({}, key)));
    expect([direct.status, direct.body.code]).toEqual([403, 'client_certificate_required']);
    expect(await listInboundEvents(ctx.db)).toEqual([]);
    // Without server.trustProxy nothing could vouch for the header: refused at start.
    await expect(makeContext({ 'inbound.clientCertHeader': { name: 'x-client-verified', value: 'SUCCESS' } })).rejects.toThrow(
      /inbound\.clientCertHeader: needs server\.trustProxy/,
    );
  });

  it('requires the client-certificate header when configured', async () => {
    const ctx = await makeContext({
      'server.trustProxy': ['loopback'],
      'inbound.clientCertHeader': { name: 'x-client-verified', value: 'SUCCESS:CN=card-network' },
    });
    const { http } = makeApi(ctx);
    const body = notification(await joseToken({}, key));
    const missing = await http.post(PATH).send(body);
    expect(missing.status).toBe(403);
    expect(missing.body.code).toBe('client_certificate_required');
    const wrong = await http.post(PATH).set('x-client-verified', 'FAILED').send(body);
    expect(wrong.status).toBe(403);
    const right = await http.post(PATH).set('x-client-verified', 'SUCCESS:CN=card-network').send(body);
    expect(right.status).toBe(200);
  });

  it('keeps what it does not know: a query parameter, an unknown field spelling a lone surrogate; a known field that does is refused', async () => {
    const ctx = await makeContext();
    const { http } = makeApi(ctx);
    const body = notification(await joseToken({}, key));
    const extra = JSON.stringify(body).replace(/}$/, ',"merchantName":"Caf\\ud83d"}');
    const kept = await http.post(`${PATH}?source=card-network`).set('content-type', 'application/json').send(extra);
    expect(kept.status).toBe(200);
    expect((await getInboundEventByEventId(ctx.db, body.eventId as string))!.rawBody).toBe(extra);
    const bad = await http
      .post(PATH)
      .set('content-type', 'application/json')
      .send(JSON.stringify({ ...body, eventId: 'x' }).replace('"eventId":"x"', '"eventId":"evt\\udc00"'));
    expect([bad.status, bad.body.errors?.[0]?.path]).toEqual([400, 'body.eventId']);
  });

  it('takes its path name from config', async () => {
    const ctx = await makeContext({ 'inbound.pathName': 'mastercard' });
    const { http } = makeApi(ctx);
    expect((await http.post('/v1/webhooks/mastercard').send(notification(await joseToken({}, key)))).status).toBe(200);
    expect((await http.post(PATH).send(notification(await joseToken({}, key)))).status).toBe(404);
  });
});
