/**
 * Each webhook's own connection pool: one webhook hanging does not make another on the same host
 * time out, and a pool left idle is closed and its webhook forgotten.
 */
import { describe, expect, it, vi } from 'vitest';
import type { Pool } from 'undici';
import type { createWebhookPool } from '../../../src/delivery/connector.js';
import { Dispatcher } from '../../../src/delivery/dispatch/dispatcher.js';
import { EndpointPools, POOL_IDLE_MS } from '../../../src/delivery/dispatch/endpoint-pools.js';
import { listDeliveries } from '../../../src/store/delivery-views.js';
import { newTx, setup } from './support.js';

describe('connection pools of the dispatcher', () => {
  it('forgets a webhook idle past the pool timeout: its memory is of recent webhooks, not every one since start', async () => {
    const { ctx, org, receiver } = await setup({ 'delivery.pollIntervalMs': 20 });
    const worker = new Dispatcher(ctx, { random: () => 0.5 });
    worker.start();
    try {
      await newTx(ctx, org.org.id);
      await receiver.waitFor(1);
      await worker.drain();
      expect(worker.webhooksTracked).toBe(1);
      // 31 s later by the monotonic clock: the pool is closed as idle at the next tick, and the webhook forgotten.
      const realNow = performance.now.bind(performance);
      const later = vi.spyOn(performance, 'now').mockImplementation(() => realNow() + 31_000);
      try {
        await vi.waitFor(() => expect(worker.webhooksTracked).toBe(0));
      } finally {
        later.mockRestore();
      }
      // Seen again on its next event, and sent to as before.
      await newTx(ctx, org.org.id);
      await receiver.waitFor(2);
      expect(worker.webhooksTracked).toBe(1);
    } finally {
      await worker.stop();
    }
  });

  it('gives each webhook its own sockets: a hanging webhook does not make another on the same host time out', async () => {
    const { ctx, http, org, receiver, webhookId } = await setup({ 'delivery.perEndpointConcurrency': 1, 'delivery.timeoutMs': 1000 });
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    // The first webhook's path hangs until the end of the test; the second one (same host and port) answers at once.
    receiver.setResponder((r, res) => (r.url === '/hook' ? void held.then(() => res.end('late')) : res.end('ok')));
    const second = await http
      .post('/v1/notifications/webhooks/settings')
      .set('authorization', org.auth)
      .send({ url: `${receiver.url}/fast` });
    await newTx(ctx, org.org.id);
    const dispatcher = new Dispatcher(ctx, { random: () => 0.5 });
    try {
      expect(await dispatcher.runOnce()).toBe(2);
    } finally {
      release();
    }
    const byWebhook = async (id: string) => (await listDeliveries(ctx.db, { webhookId: id, limit: 1 }))[0]!;
    expect(await byWebhook(second.body.id as string)).toMatchObject({ state: 'delivered', lastStatus: 200, lastError: null });
    expect(await byWebhook(webhookId)).toMatchObject({ state: 'pending', lastStatus: null });
    expect((await byWebhook(webhookId)).lastError).toMatch(/timeout|abort/i);
    await dispatcher.stop();
  });
});

describe('the pools', () => {
  /** Pools whose connection pools are stand-ins that only record what they were made for and whether they were closed. */
  function pools(allowPrivateNetworks = true) {
    const made: { origin: string; connections: number; closed: boolean }[] = [];
    const create: typeof createWebhookPool = (origin, opts) => {
      const pool = { origin, connections: opts.connections, closed: false };
      made.push(pool);
      return { close: () => ((pool.closed = true), Promise.resolve()) } as unknown as Pool;
    };
    const config = { delivery: { timeoutMs: 1_000, perEndpointConcurrency: 3 }, webhooks: { allowPrivateNetworks } };
    return { pools: new EndpointPools(config, create), made };
  }

  it('parse a webhook url once: its origin, its path with the query, and whether its literal address is refused', () => {
    const { pools: allowed } = pools(true);
    const target = allowed.target('http://10.1.2.3:8080/hook/a?v=1');
    expect(target).toEqual({ origin: 'http://10.1.2.3:8080', path: '/hook/a?v=1', refused: false });
    expect(allowed.target('http://10.1.2.3:8080/hook/a?v=1')).toBe(target);
    const { pools: strict } = pools(false);
    expect(strict.target('http://10.1.2.3:8080/hook').refused).toBe(true);
    expect(strict.target('https://example.com/hook').refused).toBe(false);
  });

  it('give each webhook its own pool, with a socket for each of its send slots, reused while its origin stays', () => {
    const { pools: p, made } = pools();
    const target = p.target('http://127.0.0.1:9/a');
    const first = p.acquire('wh_1', target);
    expect(p.acquire('wh_1', p.target('http://127.0.0.1:9/b'))).toBe(first);
    const other = p.acquire('wh_2', target);
    expect(other).not.toBe(first);
    expect(made).toEqual([
      { origin: 'http://127.0.0.1:9', connections: 3, closed: false },
      { origin: 'http://127.0.0.1:9', connections: 3, closed: false },
    ]);
    expect([first.inflight, other.inflight]).toEqual([2, 1]);
  });

  it('close a webhook’s pool when its url moves to another origin', () => {
    const { pools: p, made } = pools();
    const first = p.acquire('wh_1', p.target('http://127.0.0.1:9/a'));
    p.release(first);
    const moved = p.acquire('wh_1', p.target('http://127.0.0.2:9/a'));
    expect(moved).not.toBe(first);
    expect(made.map((m) => [m.origin, m.closed])).toEqual([
      ['http://127.0.0.1:9', true],
      ['http://127.0.0.2:9', false],
    ]);
  });

  it('close a pool with nothing in flight for POOL_IDLE_MS, and never one with a send in flight', () => {
    const { pools: p, made } = pools();
    const busy = p.acquire('wh_busy', p.target('http://127.0.0.1:9/a'));
    const quiet = p.acquire('wh_quiet', p.target('http://127.0.0.1:9/b'));
    p.release(quiet);
    p.closeIdle(quiet.idleSince + POOL_IDLE_MS - 1);
    expect([p.has('wh_busy'), p.has('wh_quiet')]).toEqual([true, true]);
    p.closeIdle(quiet.idleSince + POOL_IDLE_MS + 1);
    expect([p.has('wh_busy'), p.has('wh_quiet')]).toEqual([true, false]);
    expect(made.map((m) => m.closed)).toEqual([false, true]);
    // The busy one idles from the end of its last send, not from when it was made.
    p.closeIdle(performance.now() + 10 * POOL_IDLE_MS);
    expect(p.has('wh_busy')).toBe(true);
    p.release(busy);
    p.closeIdle(busy.idleSince + POOL_IDLE_MS + 1);
    expect(p.has('wh_busy')).toBe(false);
  });

  it('close every pool at a stop', async () => {
    const { pools: p, made } = pools();
    p.acquire('wh_1', p.target('http://127.0.0.1:9/a'));
    p.acquire('wh_2', p.target('http://127.0.0.1:9/b'));
    await p.closeAll();
    expect([p.has('wh_1'), p.has('wh_2'), made.every((m) => m.closed)]).toEqual([false, false, true]);
  });
});
