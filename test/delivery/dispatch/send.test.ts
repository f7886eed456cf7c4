/**
 * One send: what it posts, what it keeps of the answer, and how it tells apart an endpoint that
 * took no connection in time, one that did not answer in time, one that refused, an address the
 * policy refuses, and a send cut off by a stop.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { EndpointPools } from '../../../src/delivery/dispatch/endpoint-pools.js';
import { Sender } from '../../../src/delivery/dispatch/send.js';
import { post } from '../../../src/http/post.js';
import { startReceiver } from '../receiver.js';
import { jobOf } from './support.js';

const toClose: EndpointPools[] = [];
afterEach(async () => {
  for (const pools of toClose.splice(0)) await pools.closeAll();
});

function sending(timeoutMs: number, allowPrivateNetworks = true, perEndpointConcurrency = 1) {
  const pools = new EndpointPools({ delivery: { timeoutMs, perEndpointConcurrency }, webhooks: { allowPrivateNetworks } });
  toClose.push(pools);
  return { pools, sender: new Sender(pools, { timeoutMs }) };
}

const job = (url: string, body = '{"amount":"125.50"}') =>
  jobOf({ id: 'dlv_1', eventId: 'evt_1', attempts: 0, step: 0, nextAttemptAt: 0 }, { id: 'wh_1', orgId: 'org_1', url }, body);

describe('a send', () => {
  it('posts the body and headers to the webhook’s path, and keeps the status, Retry-After and the first kilobyte of the answer', async () => {
    const receiver = await startReceiver((_r, res) => {
      res.writeHead(503, { 'retry-after': '7' });
      res.end('x'.repeat(5000));
    });
    const { sender } = sending(2_000);
    const result = await sender.send(job(`${receiver.url}?v=2`), { 'x-event-id': 'evt_1' });
    expect(result).toMatchObject({ statusCode: 503, error: null, retryAfter: '7' });
    expect(result.responseBody).toBe('x'.repeat(1024));
    expect(result.durationMs).toBeGreaterThanOrEqual(0);
    expect(receiver.received.map((r) => [r.url, r.body.toString(), r.headers['x-event-id']])).toEqual([
      ['/hook?v=2', '{"amount":"125.50"}', 'evt_1'],
    ]);
  });

  it('an endpoint that took the request but did not answer in time: a timeout, said as no complete answer', async () => {
    const receiver = await startReceiver(() => undefined);
    const { sender } = sending(200);
    const result = await sender.send(job(receiver.url), {});
    expect(result).toMatchObject({ statusCode: null, error: 'TimeoutError: no complete answer within 200 ms', responseBody: null });
    expect(result.durationMs).toBeGreaterThanOrEqual(190);
  });

  it('an endpoint that sends its status at once, then trickles its body past the deadline: a timeout, not an answer', async () => {
    const receiver = await startReceiver((_r, res) => {
      res.writeHead(200);
      const drip = setInterval(() => res.write('.'), 20);
      res.once('close', () => clearInterval(drip));
    });
    const { sender } = sending(300);
    const result = await sender.send(job(receiver.url), {});
    expect(result).toMatchObject({ statusCode: null, error: 'TimeoutError: no complete answer within 300 ms', responseBody: null });
    expect(result.durationMs).toBeGreaterThanOrEqual(290);
  });

  it('sends in flight together each end at their own deadline, and one answered meanwhile keeps its answer', async () => {
    let answer: (() => void) | undefined;
    const receiver = await startReceiver((r, res) => {
      if (r.url === '/hook?answered') answer = () => res.end('ok');
    });
    const { sender } = sending(300, true, 3);
    const first = sender.send(job(`${receiver.url}?silent-1`), {});
    await receiver.waitFor(1);
    const answered = sender.send(job(`${receiver.url}?answered`), {});
    const second = sender.send(job(`${receiver.url}?silent-2`), {});
    await receiver.waitFor(3);
    answer!();
    expect(await answered).toMatchObject({ statusCode: 200, error: null, responseBody: 'ok' });
    for (const late of [await first, await second]) {
      expect(late).toMatchObject({ statusCode: null, error: 'TimeoutError: no complete answer within 300 ms' });
      expect(late.durationMs).toBeGreaterThanOrEqual(290);
    }
  });

  it('a request that got no connection in time (the webhook’s one socket busy): a timeout, said as no connection', async () => {
    const receiver = await startReceiver(() => undefined);
    const { pools, sender } = sending(200);
    // Another request of the same webhook holds its only socket.
    const entry = pools.acquire('wh_1', pools.target(receiver.url));
    const hog = post(entry.pool, { path: '/hook', headers: {}, body: '', keepBytes: 0, readLimit: 0 });
    hog.answer.catch(() => undefined);
    await receiver.waitFor(1);
    try {
      const result = await sender.send(job(receiver.url), {});
      expect(result).toMatchObject({ statusCode: null, error: 'TimeoutError: no connection within 200 ms' });
      expect(receiver.received).toHaveLength(1);
    } finally {
      hog.abort(new Error('test over'));
      pools.release(entry);
    }
  });

  it('a refused connection is a failure that says so', async () => {
    const { sender } = sending(2_000);
    const result = await sender.send(job('http://127.0.0.1:1/hook'), {});
    expect(result.statusCode).toBeNull();
    expect(result.error).toMatch(/^ECONNREFUSED: /);
  });

  it('sends nothing to a literal address the policy refuses, and opens no pool for it', async () => {
    const receiver = await startReceiver();
    const { pools, sender } = sending(2_000, false);
    const result = await sender.send(job(receiver.url), {});
    expect(result).toMatchObject({ statusCode: null, error: 'address refused: private, loopback or link-local target' });
    expect(receiver.received).toHaveLength(0);
    expect(pools.has('wh_1')).toBe(false);
  });

  it('once cut off by a stop: the send in flight ends at once, and none starts', async () => {
    const receiver = await startReceiver(() => undefined);
    const { sender } = sending(10_000);
    const inFlight = sender.send(job(receiver.url), {});
    await receiver.waitFor(1);
    expect(sender.cutOff).toBe(false);
    sender.cutOffAll();
    expect(await inFlight).toMatchObject({ statusCode: null, error: 'Error: shutting down' });
    expect(await sender.send(job(receiver.url), {})).toMatchObject({ statusCode: null, error: 'not sent: shutting down' });
    expect([sender.cutOff, receiver.received.length]).toEqual([true, 1]);
  });

  it('reads an answer that arrived while the event loop was held past the deadline, instead of recording a timeout', async () => {
    const receiver = await startReceiver((_r, res) => void setTimeout(() => res.end('ok'), 100));
    const { sender } = sending(300);
    const sent = sender.send(job(receiver.url), {});
    await receiver.waitFor(1);
    const until = performance.now() + 600;
    while (performance.now() < until) {
      // held
    }
    expect(await sent).toMatchObject({ statusCode: 200, error: null, responseBody: 'ok' });
  });
});
