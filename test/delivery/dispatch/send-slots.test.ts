/**
 * The send-slot ledger: claims derived from queued and sending jobs per webhook, organization and
 * process; which queued job a free slot goes to; what a stop and an ending webhook do.
 */
import { describe, expect, it } from 'vitest';
import { SendSlots, type SlotLimits } from '../../../src/delivery/dispatch/send-slots.js';

interface TestJob {
  name: string;
  webhook: { id: string; orgId: string };
}

/** A ledger over `concurrency` process slots and `perWebhook` slots for each webhook (or what `slotsOf` says). */
function ledger(concurrency: number, perWebhook: number | ((id: string) => number) = 2, limits: SlotLimits = {}) {
  const slots = new SendSlots<TestJob>({ concurrency }, typeof perWebhook === 'number' ? () => perWebhook : perWebhook, limits);
  const started: TestJob[] = [];
  const pump = () => slots.pump((job) => started.push(job));
  const queue = (webhookId: string, orgId: string, n: number) => {
    for (let i = 0; i < n; i++) slots.queue({ name: `${webhookId}${i + 1}`, webhook: { id: webhookId, orgId } });
  };
  const names = () => started.map((j) => j.name);
  return { slots, started, pump, queue, names };
}

describe('the send-slot ledger', () => {
  it('counts claims per webhook, organization and process from what is queued and sending', () => {
    const { slots, queue, pump } = ledger(10, 2);
    queue('a', 'org1', 3);
    queue('b', 'org1', 1);
    queue('c', 'org2', 2);
    expect([slots.claimed, slots.sending, slots.organizations]).toEqual([6, 0, 2]);
    expect(['a', 'b', 'c', 'd'].map((w) => slots.claimedBy(w))).toEqual([3, 1, 2, 0]);
    expect(slots.claimsByOrg()).toEqual(
      new Map([
        ['org1', 4],
        ['org2', 2],
      ]),
    );
    pump();
    // Starting a send moves a job from queued to sending: the claims stay.
    expect([slots.claimed, slots.sending]).toEqual([6, 5]);
    expect(['a', 'b', 'c'].map((w) => [slots.claimedBy(w), slots.sendingTo(w)])).toEqual([
      [3, 2],
      [1, 1],
      [2, 2],
    ]);
    expect([slots.holds('a'), slots.holdsFor('org2'), slots.holdsFor('org3')]).toEqual([true, true, false]);
  });

  it('gives back a send slot and its claim when the send is over, and forgets a webhook and organization left with none', () => {
    const { slots, queue, pump, started } = ledger(10, 1);
    queue('a', 'org1', 2);
    queue('b', 'org2', 1);
    pump();
    expect(started.map((j) => j.name)).toEqual(['a1', 'b1']);
    slots.sendOver(started[1]!);
    expect([slots.claimed, slots.sending, slots.organizations]).toEqual([2, 1, 1]);
    expect([slots.holds('b'), slots.holdsFor('org2'), slots.sendingTo('b')]).toEqual([false, false, 0]);
    slots.sendOver(started[0]!);
    expect([slots.claimedBy('a'), slots.sendingTo('a'), slots.claimed]).toEqual([1, 0, 1]);
    pump();
    expect(started.map((j) => j.name)).toEqual(['a1', 'b1', 'a2']);
    slots.sendOver(started[2]!);
    expect([slots.claimed, slots.sending, slots.organizations, slots.holds('a')]).toEqual([0, 0, 0, false]);
    expect(slots.claimsByOrg()).toEqual(new Map());
  });

  it('starts one job per webhook in turn, within each webhook’s slots and the process’s', () => {
    const { slots, queue, pump, names } = ledger(5, 2);
    queue('a', 'org1', 4);
    queue('b', 'org1', 4);
    queue('c', 'org1', 1);
    pump();
    // a, b, c in turn, then a and b again (c has nothing left); the process's five slots are taken.
    expect(names()).toEqual(['a1', 'b1', 'c1', 'a2', 'b2']);
    expect(slots.sending).toBe(5);
    pump();
    expect(names()).toHaveLength(5);
  });

  it('a webhook that just started a send goes to the back of the turns', () => {
    const { slots, queue, pump, started, names } = ledger(1, 4);
    queue('a', 'org1', 3);
    queue('b', 'org1', 3);
    pump();
    for (let i = 0; i < 5; i++) {
      slots.sendOver(started.at(-1)!);
      pump();
    }
    expect(names()).toEqual(['a1', 'b1', 'a2', 'b2', 'a3', 'b3']);
  });

  it('holds a webhook to the slots it may use now (one while its endpoint does not answer)', () => {
    const unanswered = new Set(['a']);
    const { slots, queue, pump, names } = ledger(10, (id) => (unanswered.has(id) ? 1 : 3));
    queue('a', 'org1', 3);
    queue('b', 'org1', 3);
    pump();
    expect(names()).toEqual(['a1', 'b1', 'b2', 'b3']);
    unanswered.delete('a');
    pump();
    expect(names()).toEqual(['a1', 'b1', 'b2', 'b3', 'a2', 'a3']);
    expect(slots.sendingTo('a')).toBe(3);
  });

  it('shares the process’s slots between organizations that are waiting, and gives a freed slot to the one below its share', () => {
    const { slots, queue, pump, started, names } = ledger(4, 1);
    // Organization 1 alone: it takes every slot.
    for (const w of ['a', 'b', 'c', 'd', 'e']) queue(w, 'org1', 2);
    pump();
    expect(names()).toEqual(['a1', 'b1', 'c1', 'd1']);
    // Organization 2 comes with two webhooks: the next two freed slots go to it, not to org1's queued rows.
    queue('x', 'org2', 2);
    queue('y', 'org2', 2);
    slots.sendOver(started[0]!);
    pump();
    slots.sendOver(started[1]!);
    pump();
    expect(names().slice(4)).toEqual(['x1', 'y1']);
    // Both at their share (2 of 4): a freed slot of org1 goes back to org1.
    slots.sendOver(started[2]!);
    pump();
    expect(names().slice(6)).toEqual(['e1']);
  });

  it('an organization alone is not held to a share, however many organizations hold claims', () => {
    const { slots, queue, pump, started, names } = ledger(4, 4);
    queue('a', 'org1', 8);
    queue('b', 'org2', 1);
    pump();
    expect(names()).toEqual(['a1', 'b1', 'a2', 'a3']);
    // org2's one job is sending, nothing of it waits: org1 alone is waiting and gets the freed slot.
    slots.sendOver(started[0]!);
    pump();
    expect(names().at(-1)).toBe('a4');
  });

  it('holds an organization to its own slots even alone, and says what each organization sends and has queued', () => {
    const { slots, queue, pump, started, names } = ledger(100, 4, { orgSlotsOf: (orgId) => (orgId === 'org1' ? 5 : 100) });
    for (const w of ['a', 'b', 'c']) queue(w, 'org1', 4);
    pump();
    expect(names()).toEqual(['a1', 'b1', 'c1', 'a2', 'b2']);
    expect(slots.byOrg()).toEqual(new Map([['org1', { sending: 5, queued: 7 }]]));
    // The process has 95 slots free, and org2 takes what it needs at once.
    queue('x', 'org2', 3);
    pump();
    expect(names().slice(5)).toEqual(['x1', 'x2', 'x3']);
    // A send of org1 over: org1 starts one more, never a sixth at once.
    slots.sendOver(started[0]!);
    pump();
    expect(names().slice(8)).toEqual(['c2']);
    expect(slots.byOrg().get('org1')).toEqual({ sending: 5, queued: 6 });
    // A node whose part of org1's slots drops to none gives back org1's queued jobs, and only those.
    expect(slots.dropQueued((_webhookId, orgId) => orgId === 'org1')).toHaveLength(6);
    expect(slots.byOrg()).toEqual(
      new Map([
        ['org1', { sending: 5, queued: 0 }],
        ['org2', { sending: 3, queued: 0 }],
      ]),
    );
  });

  it('lets slow endpoints hold at most half of their organization’s slots and of the process’s, and gives the rest to the quick ones', () => {
    const slow = new Set(['s1', 's2', 's3']);
    const { slots, queue, pump, started, names } = ledger(8, 2, { orgSlotsOf: () => 6, isSlow: (id) => slow.has(id) });
    for (const w of ['s1', 's2', 's3']) queue(w, 'org1', 2);
    pump();
    // Half of org1's 6 slots: three slow sends, though each endpoint could take two.
    expect(names()).toEqual(['s11', 's21', 's31']);
    queue('q', 'org1', 3);
    pump();
    expect(names().slice(3)).toEqual(['q1', 'q2']);
    // Another organization's slow endpoint: the process's slow part (4 of 8) has one left.
    slow.add('t');
    queue('t', 'org2', 2);
    pump();
    expect(names().slice(5)).toEqual(['t1']);
    // A slow send over frees a slow slot, which t takes; s2, quick again, is not held by the slow part.
    slow.delete('s2');
    slots.sendOver(started[0]!);
    pump();
    expect(names().slice(6)).toEqual(['t2', 's22']);
    expect(slots.sending).toBe(7);
  });

  it('at a stop, drops every queued job and keeps counting the ones sending', () => {
    const { slots, queue, pump, started } = ledger(2, 1);
    queue('a', 'org1', 3);
    queue('b', 'org2', 2);
    pump();
    const dropped = slots.dropQueued();
    expect(dropped.map((j) => j.name).sort()).toEqual(['a2', 'a3', 'b2']);
    expect([slots.claimed, slots.sending, slots.claimedBy('a'), slots.claimedBy('b')]).toEqual([2, 2, 1, 1]);
    pump();
    expect(started).toHaveLength(2);
    for (const job of started) slots.sendOver(job);
    expect([slots.claimed, slots.organizations, slots.holds('a'), slots.holds('b')]).toEqual([0, 0, false, false]);
  });

  it('marks a webhook ending until each result that disables it is recorded, even once it holds no claim', () => {
    const { slots, queue, pump, started } = ledger(2, 2);
    queue('a', 'org1', 2);
    pump();
    slots.markEnding(started[0]!.webhook);
    slots.markEnding(started[1]!.webhook);
    for (const job of started) slots.sendOver(job);
    expect([slots.isEnding('a'), slots.holds('a')]).toEqual([true, false]);
    slots.endingOver('a');
    expect(slots.isEnding('a')).toBe(true);
    slots.endingOver('a');
    expect(slots.isEnding('a')).toBe(false);
    // Nothing left to say about it.
    slots.endingOver('a');
    expect([slots.isEnding('a'), slots.claimedBy('a')]).toEqual([false, 0]);
  });
});
