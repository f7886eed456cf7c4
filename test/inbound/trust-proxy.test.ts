import { describe, expect, it } from 'vitest';
import { makeApi, makeContext } from '../support/context.js';
import { listInboundEvents } from '../../src/store/inbound-events.js';
import { joseToken, makeKeyPair, notification } from './jwe-fixtures.js';

/**
 * The allowlist sees Express's req.ip, so which X-Forwarded-For entry counts decides whether a
 * sender can talk its way past it. The test client connects from loopback, standing in for the
 * reverse proxy; the allowlisted sender range is 203.0.113.0/24.
 */
const PATH = '/v1/webhooks/card-network';
const key = makeKeyPair();
const ALLOWED = '203.0.113.7';
const OUTSIDER = '198.51.100.9';

async function post(trustProxy: unknown, xff: string | undefined, eventId: string) {
  const ctx = await makeContext({ 'inbound.allowlist': ['203.0.113.0/24'], 'server.trustProxy': trustProxy });
  const { http } = makeApi(ctx);
  let req = http.post(PATH);
  if (xff !== undefined) req = req.set('x-forwarded-for', xff);
  const res = await req.send(notification(await joseToken({}, key), { eventId }));
  return { status: res.status, code: res.body.code as string | undefined, stored: (await listInboundEvents(ctx.db)).length };
}

describe('X-Forwarded-For and the inbound allowlist', () => {
  it('ignores X-Forwarded-For by default: a client cannot claim an allowlisted address', async () => {
    expect(await post(false, undefined, 'a')).toEqual({ status: 403, code: 'sender_not_allowed', stored: 0 });
    expect(await post(false, ALLOWED, 'b')).toEqual({ status: 403, code: 'sender_not_allowed', stored: 0 });
  });

  for (const trust of [1, ['127.0.0.1', '::1'], ['loopback']] as const) {
    describe(`behind one trusted proxy (trustProxy ${JSON.stringify(trust)})`, () => {
      it('refuses a spoofed left-most entry: the proxy appended the real sender on the right', async () => {
        // The sender wrote "203.0.113.7"; the proxy appended the address it really came from.
        expect(await post(trust, `${ALLOWED}, ${OUTSIDER}`, 'c')).toEqual({ status: 403, code: 'sender_not_allowed', stored: 0 });
      });
      it('admits the sender whose address the proxy appended', async () => {
        expect(await post(trust, `${OUTSIDER}, ${ALLOWED}`, 'd')).toMatchObject({ status: 200, stored: 1 });
        expect(await post(trust, ALLOWED, 'e')).toMatchObject({ status: 200, stored: 1 });
      });
    });
  }

  it('does not believe X-Forwarded-For from a peer that is not a listed proxy', async () => {
    expect(await post(['10.0.0.0/8'], ALLOWED, 'f')).toEqual({ status: 403, code: 'sender_not_allowed', stored: 0 });
  });
});
