/**
 * Which rows a pass claims: the max-min fair shares between organizations, a pass's turn order and
 * per-webhook room, and when a finished send asks for the next pass.
 */
import { describe, expect, it, vi } from 'vitest';
import {
  CLAIM_ROUNDS,
  claimCapacity,
  ClaimPlanner,
  shareClaims,
  webhookClaimCapacity,
} from '../../../src/delivery/dispatch/claim-shares.js';
import { Dispatcher } from '../../../src/delivery/dispatch/dispatcher.js';
import type { ClaimedDelivery, DueWebhook } from '../../../src/store/delivery-claims.js';
import { distinctEvents, holdAnswers, newTx, setup } from './support.js';

describe('shareClaims', () => {
  async function claims(due: string[], held: Record<string, number>, budget: number, wants: Record<string, number> = {}) {
    const got: Record<string, number> = {};
    await shareClaims(new Set(due), new Map(Object.entries(held)), budget, async (orgId, room) => {
      const took = Math.max(0, Math.min(room, (wants[orgId] ?? Infinity) - (got[orgId] ?? 0)));
      got[orgId] = (got[orgId] ?? 0) + took;
      return took;
    });
    return got;
  }

  it('splits the claims max-min fair: equal parts, a part not used goes to the others, one alone gets everything', async () => {
    expect(await claims(['a'], {}, 128)).toEqual({ a: 128 });
    expect(await claims(['a'], { a: 100 }, 128)).toEqual({ a: 28 });
    expect(await claims(['a', 'b'], {}, 128)).toEqual({ a: 64, b: 64 });
    expect(await claims(['a', 'b'], {}, 128, { b: 1 })).toEqual({ a: 127, b: 1 });
    expect(await claims(['a', 'b', 'c'], {}, 8)).toEqual({ a: 3, b: 3, c: 2 });
    // One that took everything while it was alone claims nothing more; the newcomer still gets its part.
    expect(await claims(['a', 'b'], { a: 128 }, 128)).toEqual({ a: 0, b: 64 });
    // However many came after it, the process never holds more than twice its claims.
    expect(await claims(['c'], { a: 128, b: 64 }, 128)).toEqual({ c: 43 });
    expect(await claims(['d'], { a: 128, b: 64, c: 43 }, 128)).toEqual({ d: 21 });
    expect(await claims(['e'], { a: 128, b: 64, c: 43, d: 21 }, 128)).toEqual({ e: 0 });
    // One holding claims with nothing due counts: its holding is its part.
    expect(await claims(['b'], { a: 100 }, 128)).toEqual({ b: 64 });
    expect(await claims(['b'], { a: 20 }, 128)).toEqual({ b: 108 });
    // What a small one leaves over is split again between the others.
    expect(await claims(['a', 'b', 'c'], {}, 9, { a: 1 })).toEqual({ a: 1, b: 4, c: 4 });
    expect(await claims(['a', 'b', 'c'], {}, 90, { a: 1, b: 20 })).toEqual({ a: 1, b: 20, c: 69 });
  });
});

describe('a pass’s claims', () => {
  const hook = (id: string, orgId: string): DueWebhook => ({ id, orgId, url: `https://example.com/${id}` });
  /** A store of due rows: `due[webhookId]` rows each; `take` leases up to `limit` of them and logs the call. */
  function rows(due: Record<string, number>) {
    const calls: [string, number][] = [];
    const take = async (webhook: DueWebhook, limit: number): Promise<ClaimedDelivery[]> => {
      calls.push([webhook.id, limit]);
      const n = Math.min(limit, due[webhook.id] ?? 0);
      due[webhook.id] = (due[webhook.id] ?? 0) - n;
      return Array.from({ length: n }, (_, i) => ({
        id: `${webhook.id}-${i}`,
        eventId: `ev-${i}`,
        attempts: 0,
        step: 0,
        nextAttemptAt: 0,
      }));
    };
    return { calls, take };
  }
  const got = (claimed: { webhook: DueWebhook; rows: unknown[] }[]) => claimed.map((c) => [c.webhook.id, c.rows.length]);

  it('holds CLAIM_ROUNDS rounds of send slots', () => {
    expect(claimCapacity(4)).toBe(CLAIM_ROUNDS * 4);
    expect(claimCapacity(1)).toBe(CLAIM_ROUNDS);
  });

  it('groups due webhooks by organization and starts each pass one webhook further', () => {
    const planner = new ClaimPlanner();
    const due = [hook('a', 'o1'), hook('b', 'o2'), hook('c', 'o1')];
    const order = (byOrg: Map<string, DueWebhook[]>) => [...byOrg].map(([org, hooks]) => [org, hooks.map((w) => w.id)]);
    expect(order(planner.plan(due))).toEqual([
      ['o1', ['a', 'c']],
      ['o2', ['b']],
    ]);
    expect(order(planner.plan(due))).toEqual([
      ['o2', ['b']],
      ['o1', ['c', 'a']],
    ]);
    expect(order(planner.plan(due))).toEqual([
      ['o1', ['c', 'a']],
      ['o2', ['b']],
    ]);
  });

  it('claims each webhook up to its room, counting what it took this pass, and asks no more of one that gave fewer rows than asked', async () => {
    const planner = new ClaimPlanner();
    const due = [hook('a', 'o1'), hook('b', 'o1'), hook('c', 'o1'), hook('x', 'o2')];
    const { calls, take } = rows({ a: 100, b: 1, c: 100, x: 1 });
    const room: Record<string, number> = { a: 3, b: 8, c: 8, x: 8 };
    const claimed = await planner.claim(planner.plan(due), new Map(), 10, (id) => room[id]!, take);
    // First round, 5 each: o1 splits its 5 between its webhooks (2, 2 of which b has one, 2); o2
    // only has 1. Then o1 gets the 4 left: b gave fewer than asked and is not asked again, a has
    // room for one more, c takes the rest.
    expect(calls).toEqual([
      ['a', 2],
      ['b', 2],
      ['c', 2],
      ['x', 5],
      ['a', 1],
      ['c', 3],
    ]);
    expect(got(claimed)).toEqual([
      ['a', 2],
      ['b', 1],
      ['c', 2],
      ['x', 1],
      ['a', 1],
      ['c', 3],
    ]);
    // The process's 10 claims are all taken while c still has due rows and room.
    expect(planner.starved).toBe(true);
  });

  it('asks nothing of a webhook without room', async () => {
    const planner = new ClaimPlanner();
    const { calls, take } = rows({ a: 100, b: 100 });
    const claimed = await planner.claim(
      planner.plan([hook('a', 'o1'), hook('b', 'o1')]),
      new Map(),
      10,
      (id) => (id === 'a' ? 0 : 2),
      take,
    );
    expect(calls).toEqual([['b', 2]]);
    expect(got(claimed)).toEqual([['b', 2]]);
  });

  it('stops at an organization’s share, and says the pass ran out of claims while webhooks were still due', async () => {
    const planner = new ClaimPlanner();
    const due = [hook('a', 'o1'), hook('b', 'o1'), hook('x', 'o2')];
    const { take } = rows({ a: 100, b: 100, x: 100 });
    const claimed = await planner.claim(planner.plan(due), new Map(), 8, () => 16, take);
    // o1's part of 4 split between its two webhooks.
    expect(got(claimed)).toEqual([
      ['a', 2],
      ['b', 2],
      ['x', 4],
    ]);
    expect(planner.starved).toBe(true);
    // The next pass starts out not starved.
    planner.plan(due);
    expect(planner.starved).toBe(false);
  });

  it('holds an organization to its own room, gives what it leaves to the others, and is not starved by it', async () => {
    const planner = new ClaimPlanner();
    const due = [hook('a', 'o1'), hook('b', 'o1'), hook('x', 'o2')];
    const { take } = rows({ a: 100, b: 100, x: 100 });
    const orgRoom: Record<string, number> = { o1: 3, o2: 100 };
    const claimed = await planner.claim(
      planner.plan(due),
      new Map(),
      20,
      () => 16,
      take,
      (orgId) => orgRoom[orgId]!,
    );
    // o1's backlog fills only its room of 3 (not its part of 10), split between a and b; o2's part
    // is then the 17 left, of which x has room for 16.
    expect(got(claimed)).toEqual([
      ['a', 2],
      ['b', 1],
      ['x', 16],
    ]);
    expect(planner.starved).toBe(false);
  });

  it('a finished send asks for a pass once its webhook is down to its last round, or the starved process to its last', () => {
    const planner = new ClaimPlanner();
    // Webhook of 4 slots holding 5 claims; a process of 8 slots holding 8.
    expect(planner.refillDue(5, 4, 8, 8)).toBe(false);
    expect(planner.refillDue(4, 4, 8, 8)).toBe(true);
    planner.starved = true;
    expect(planner.refillDue(5, 4, 8, 8)).toBe(true);
    expect(planner.refillDue(5, 4, 9, 8)).toBe(false);
  });
});

describe('a pass while a webhook holds more than its last round', () => {
  it('claims nothing for it: the claims come in whole refills, once its sends bring it down to its last round', async () => {
    const { ctx, org, receiver, webhookId, dispatcher } = await setup({
      'delivery.perEndpointConcurrency': 2,
      'delivery.pollIntervalMs': 3_600_000,
    });
    const release = holdAnswers(receiver);
    for (let i = 0; i < 4; i++) await newTx(ctx, org.org.id);
    const first = dispatcher.runOnce();
    await vi.waitFor(() => expect([dispatcher.sendingTo(webhookId), dispatcher.stats().claimed]).toEqual([2, 4]));
    // Two rounds held (two sending, two queued), room for CLAIM_ROUNDS: a pass now (a wake-up, a poll) claims none of the new rows.
    for (let i = 0; i < 4; i++) await newTx(ctx, org.org.id);
    const claimedMore = vi.waitFor(() => expect(dispatcher.stats().claimed).toBeGreaterThan(4), { timeout: 5_000 }).then(() => -1);
    claimedMore.catch(() => undefined);
    expect(await Promise.race([dispatcher.runOnce(), claimedMore])).toBe(0);
    expect(dispatcher.stats().claimed).toBe(4);
    release();
    expect(await first).toBe(4);
    // Down to no claims: the next pass refills, up to CLAIM_ROUNDS rounds.
    expect(await dispatcher.runOnce()).toBe(4);
    expect(distinctEvents(receiver.received)).toBe(8);
    await dispatcher.stop();
  });
});

describe('a node’s claims for a webhook whose slots it shares', () => {
  it('are CLAIM_ROUNDS of its part, and while the endpoint is quick its part and one node’s refill, at most twice CLAIM_ROUNDS of its part', () => {
    // One node: all 16 slots, four rounds. Two nodes: their part and the three rounds of 16 that one
    // node refills. Three, with 6 or 5 slots: eight rounds of their part.
    expect([16, 8, 6, 5].map((part) => webhookClaimCapacity(part, 16, true))).toEqual([64, 56, 48, 40]);
    expect(webhookClaimCapacity(8, 16, true) - 8).toBe(claimCapacity(16) - 16);
    // Sixteen nodes, one slot each: twice its part at most.
    expect(webhookClaimCapacity(1, 16, true)).toBe(claimCapacity(2));
    // A slow endpoint, or one cut to one slot (it does not answer): its part alone.
    expect(webhookClaimCapacity(5, 16, false)).toBe(claimCapacity(5));
    expect(webhookClaimCapacity(1, 1, true)).toBe(claimCapacity(1));
    expect(webhookClaimCapacity(0, 16, true)).toBe(0);
  });

  it('a pass of a node with a third of the slots claims eight rounds of them', async () => {
    const { ctx, org, receiver } = await setup({ 'delivery.perEndpointConcurrency': 16, 'delivery.pollIntervalMs': 3_600_000 });
    const third = (_placeKey: string, slots: number) => Math.ceil(slots / 3);
    for (let i = 0; i < 60; i++) await newTx(ctx, org.org.id);
    const dispatcher = new Dispatcher(ctx, { random: () => 0.5, share: third });
    expect(await dispatcher.runOnce()).toBe(2 * claimCapacity(6));
    expect(distinctEvents(receiver.received)).toBe(2 * claimCapacity(6));
    await dispatcher.stop();
  });
});
