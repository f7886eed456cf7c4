/**
 * Endpoints that fail: timeouts, refused connections and redirects are failed attempts; a stalled
 * endpoint holds only its own send slots, and one that stops answering goes down to one.
 */
import { describe, expect, it, vi } from 'vitest';
import { Dispatcher } from '../../../src/delivery/dispatch/dispatcher.js';
import { getDelivery } from '../../../src/store/deliveries.js';
import { listDeliveries } from '../../../src/store/delivery-views.js';
import { answeringWebhook, distinctEvents, holdAnswers, newTx, setup, SHORT, whileDispatching } from './support.js';

describe('failed sends', () => {
  it('treats a timeout and a refused connection as failures, and does not follow redirects', async () => {
    // The same timeout covers the 302 answer below: long enough for a busy machine to get it in time.
    const { ctx, http, org, receiver, dispatcher, webhookId } = await setup({ 'delivery.timeoutMs': 2000 });
    receiver.setResponder(() => undefined); // never answers
    await newTx(ctx, org.org.id);
    await dispatcher.runOnce();
    const [d] = await listDeliveries(ctx.db, { limit: 1 });
    expect(d!.state).toBe('pending');
    expect(d!.lastError).toMatch(/timeout|abort/i);
    receiver.setResponder((_r, res) => {
      res.writeHead(302, { location: receiver.url + '/elsewhere' });
      res.end();
    });
    ctx.clock.advance(10_000);
    await dispatcher.runOnce();
    expect((await getDelivery(ctx.db, d!.id))!.lastStatus).toBe(302);
    // Exactly the two attempts, both to the webhook's own path; nothing ever reached the redirect target.
    expect(receiver.received.map((r) => r.url)).toEqual(['/hook', '/hook']);
    expect(receiver.received.map((r) => r.headers['x-delivery-attempt'])).toEqual(['1', '2']);
    // A port nobody listens on: refused.
    const closedUrl = receiver.url.replace(/:\d+\//, ':1/');
    await http.patch(`/v1/notifications/webhooks/settings/${webhookId}`).set('authorization', org.auth).send({ url: closedUrl });
    ctx.clock.advance(400_000);
    await dispatcher.runOnce();
    expect((await getDelivery(ctx.db, d!.id))!.lastError).toMatch(/ECONNREFUSED/);
    expect(receiver.received.map((r) => r.url)).toEqual(['/hook', '/hook']);
  });
});

describe('a stalled endpoint', () => {
  it('caps each endpoint, so a stalled endpoint does not hold back the others', async () => {
    const { ctx, http, org, receiver: stalled } = await setup({ 'delivery.concurrency': 6, 'delivery.perEndpointConcurrency': 4 });
    const release = holdAnswers(stalled);
    const fast = await answeringWebhook(ctx, http, org.auth);
    await whileDispatching(ctx, release, async () => {
      for (let i = 0; i < 10; i++) await newTx(ctx, org.org.id);
      await fast.waitFor(10);
      await stalled.waitFor(4);
      expect(stalled.received).toHaveLength(4); // its per-endpoint cap, while the other got all ten
      expect(distinctEvents(fast.received)).toBe(10);
    });
  });
});

describe('an endpoint that stops answering', () => {
  it('gets one send at a time until an answer comes back, then its whole perEndpointConcurrency again', async () => {
    const { ctx, org, receiver, webhookId } = await setup({
      'delivery.perEndpointConcurrency': 4,
      'delivery.timeoutMs': 300,
      'delivery.pollIntervalMs': 20,
    });
    let mode: 'hang' | 'answer once' = 'hang';
    const hung: import('node:http').ServerResponse[] = [];
    receiver.setResponder((_r, res) => {
      if (mode === 'answer once') {
        mode = 'hang';
        res.end('ok');
      } else hung.push(res);
    });
    for (let i = 0; i < 16; i++) await newTx(ctx, org.org.id);
    const worker = new Dispatcher(ctx, { random: () => 0.5 });
    worker.start();
    const most = async (ms: number) => {
      let top = 0;
      for (const until = performance.now() + ms; performance.now() < until; await new Promise((r) => setTimeout(r, 5)))
        top = Math.max(top, worker.sendingTo(webhookId));
      return top;
    };
    try {
      await receiver.waitFor(4); // the first round goes out four at once, and times out
      await vi.waitFor(() => expect(receiver.received.length).toBeGreaterThan(4), { timeout: 3_000 });
      // No answer came: one at a time now.
      expect(await most(700)).toBe(1);
      mode = 'answer once';
      const answeredAt = receiver.received.length;
      await vi.waitFor(() => expect(receiver.received.length).toBeGreaterThan(answeredAt), { timeout: 3_000 });
      // One answer came back: the rest go out four at once again (and hang).
      await vi.waitFor(() => expect(worker.sendingTo(webhookId)).toBe(4), { timeout: 3_000 });
    } finally {
      for (const res of hung) res.destroy();
      await worker.stop();
    }
  });

  it.each([
    ['its retries are due', 5_000, 0],
    ['only new events are due, its retries not yet', 1_000, 8],
  ])('still gets one send at a time after a restart, when its last retried send got no answer: %s', async (_case, later, newEvents) => {
    const { ctx, org, receiver, webhookId } = await setup({ ...SHORT, 'delivery.perEndpointConcurrency': 4, 'delivery.timeoutMs': 200 });
    const hung: import('node:http').ServerResponse[] = [];
    receiver.setResponder((_r, res) => void hung.push(res));
    for (let i = 0; i < 8; i++) await newTx(ctx, org.org.id);
    try {
      const first = new Dispatcher(ctx, { random: () => 0.5 });
      let attempted = 0;
      for (let pass = 0; pass < 4 && attempted < 8; pass++) attempted += await first.runOnce();
      expect(attempted).toBe(8); // every first attempt timed out
      ctx.clock.advance(later); // a new process starts
      for (let i = 0; i < newEvents; i++) await newTx(ctx, org.org.id);
      // The new process's send outlasts the look below, however busy the machine: a deadline that
      // ended it would let the next send go and look like two at a time.
      (ctx.config.delivery as { timeoutMs: number }).timeoutMs = 30_000;
      const restarted = new Dispatcher(ctx, { random: () => 0.5 });
      const sending = restarted.runOnce();
      await vi.waitFor(() => expect(receiver.received.length).toBe(9), { timeout: 3_000 });
      await new Promise((r) => setTimeout(r, 50));
      expect([restarted.sendingTo(webhookId), receiver.received.length]).toEqual([1, 9]);
      // Its send ends now without an answer, and the rows queued behind it time out as before.
      (ctx.config.delivery as { timeoutMs: number }).timeoutMs = 200;
      for (const res of hung) res.destroy();
      await sending;
    } finally {
      for (const res of hung) res.destroy();
    }
  });
});

describe('a send whose deadline timer fires late', () => {
  it('reads an answer that arrived while the event loop was held, instead of recording a timeout', async () => {
    const { ctx, org, receiver, dispatcher } = await setup({ 'delivery.timeoutMs': 300, 'delivery.pollIntervalMs': 3_600_000 });
    // The endpoint answers after 100 ms; meanwhile this thread is held for 600 ms (a long pause of
    // the loop), so when it runs again the deadline timer is due before the answer is read.
    receiver.setResponder((_r, res) => void setTimeout(() => res.end('ok'), 100));
    await newTx(ctx, org.org.id);
    const sending = dispatcher.runOnce();
    await receiver.waitFor(1);
    const until = performance.now() + 600;
    while (performance.now() < until) {
      // held
    }
    expect(await sending).toBe(1);
    expect((await listDeliveries(ctx.db, { limit: 1 }))[0]).toMatchObject({ state: 'delivered', lastStatus: 200, attempts: 1 });
  });
});
