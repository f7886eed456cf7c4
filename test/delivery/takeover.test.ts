/**
 * Taking back what a dead process held: at once on the same host when its pid is gone, after
 * nodes.deadAfterMs of silence for a node elsewhere, never from a live one; the resend counts the
 * lost attempt.
 */
import { hostname } from 'node:os';
import { afterEach, describe, expect, it } from 'vitest';
import { NodeRegistry, newNodeId } from '../../src/cluster/nodes.js';
import { getDelivery } from '../../src/store/deliveries.js';
import { claimDue } from '../../src/store/delivery-claims.js';
import { listDeliveries } from '../../src/store/delivery-views.js';
import { deleteNode, listNodes, registerNode } from '../../src/store/nodes.js';
import { newTx, setup } from './dispatch/support.js';

const registries: NodeRegistry[] = [];
afterEach(async () => {
  for (const r of registries.splice(0)) await r.stop();
});

/** A registry of this process that believes `deadPids` are gone from this host. */
function registry(ctx: Parameters<typeof newTx>[0], deadPids: number[] = []): NodeRegistry {
  const r = new NodeRegistry(ctx, newNodeId(), { alive: (pid) => !deadPids.includes(pid) });
  registries.push(r);
  return r;
}

/** Claims every due row of the setup's webhook as `owner`, for a lease much longer than the test. */
async function claimAll(s: Awaited<ReturnType<typeof setup>>, owner: string): Promise<string[]> {
  const now = s.ctx.clock.now();
  return (await claimDue(s.ctx.db, s.webhookId, owner, now, now + 3_600_000, 100)).map((r) => r.id);
}

describe('taking over from dead processes', () => {
  it('a start on the same host takes back at once what a process whose pid is gone held, and the resend says attempt 2', async () => {
    const s = await setup();
    for (let i = 0; i < 3; i++) await newTx(s.ctx, s.org.org.id);
    const dead = `${hostname()}:4194303:0badc0de`;
    const at = s.ctx.clock.now();
    await registerNode(s.ctx.db, { id: dead, host: hostname(), pid: 4194303, startedAt: at, seenAt: at });
    expect(await claimAll(s, dead)).toHaveLength(3);
    expect(await s.dispatcher.runOnce()).toBe(0); // leased for an hour: nothing to send

    await registry(s.ctx, [4194303]).start();
    for (const d of await listDeliveries(s.ctx.db, { limit: 10 })) expect(d).toMatchObject({ state: 'pending', attempts: 1 });
    expect(await s.dispatcher.runOnce()).toBe(3);
    expect(s.receiver.received.map((r) => r.headers['x-delivery-attempt'])).toEqual(['2', '2', '2']);
    for (const d of await listDeliveries(s.ctx.db, { limit: 10 })) expect(d).toMatchObject({ state: 'delivered', attempts: 2 });
  });

  it("takes back the dead node's rows alone, among pending rows unclaimed and held by a live node", async () => {
    const s = await setup();
    for (let i = 0; i < 6; i++) await newTx(s.ctx, s.org.org.id);
    const now = s.ctx.clock.now();
    const dead = `${hostname()}:4194303:0badc0de`;
    const live = `${hostname()}:${process.ppid}:00000001`;
    for (const [id, pid] of [
      [dead, 4194303],
      [live, process.ppid],
    ] as const)
      await registerNode(s.ctx.db, { id, host: hostname(), pid, startedAt: now, seenAt: now });
    const lease = now + 3_600_000;
    const held = (await claimDue(s.ctx.db, s.webhookId, dead, now, lease, 2)).map((r) => r.id);
    const kept = (await claimDue(s.ctx.db, s.webhookId, live, now, lease, 2)).map((r) => r.id);
    const r = registry(s.ctx, [4194303]);
    await r.start();
    expect(r.live).toEqual([live, r.id].sort());
    const rows = await listDeliveries(s.ctx.db, { limit: 10 });
    const byId = new Map(rows.map((d) => [d.id, d]));
    for (const id of held) expect(byId.get(id)).toMatchObject({ state: 'pending', attempts: 1 });
    for (const id of kept) expect(byId.get(id)).toMatchObject({ state: 'pending', attempts: 0 });
    expect(rows.filter((d) => d.attempts === 0)).toHaveLength(4);
    // The live node's two stay leased; the other four go out.
    expect(await s.dispatcher.runOnce()).toBe(4);
    expect((await listNodes(s.ctx.db)).map((n) => n.id).sort()).toEqual([live, r.id].sort());
  });

  it('leaves the rows of a live process on this host, and of a holder with no row (here or elsewhere), to their leases', async () => {
    const s = await setup();
    for (let i = 0; i < 3; i++) await newTx(s.ctx, s.org.org.id);
    const ids = (await listDeliveries(s.ctx.db, { limit: 10 })).map((d) => d.id);
    const now = s.ctx.clock.now();
    const live = `${hostname()}:${process.ppid}:00000001`;
    await registerNode(s.ctx.db, { id: live, host: hostname(), pid: process.ppid, startedAt: now, seenAt: now });
    await claimDue(s.ctx.db, s.webhookId, live, now, now + 3_600_000, 1);
    await claimDue(s.ctx.db, s.webhookId, 'elsewhere:12:00000002', now, now + 3_600_000, 1);
    // No row in nodes: a process declared dead that claimed before its next heartbeat, then died.
    await claimDue(s.ctx.db, s.webhookId, `${hostname()}:4194303:0badc0de`, now, now + 3_600_000, 1);
    const r = registry(s.ctx, [4194303]);
    await r.start();
    expect(await r.takeOver()).toEqual({ owners: [], rows: 0 });
    for (const id of ids) expect((await getDelivery(s.ctx.db, id))!.attempts).toBe(0);
    expect(r.live).toEqual([live, r.id].sort());
    // Their leases end on their own: then the rows go out, as first attempts.
    s.ctx.clock.advance(3_600_001);
    expect(await s.dispatcher.runOnce()).toBe(3);
  });

  it('a node on another host not heard from for deadAfterMs loses its rows; until then it keeps them', async () => {
    const s = await setup({ 'nodes.heartbeatMs': 1000, 'nodes.deadAfterMs': 5000 });
    for (let i = 0; i < 2; i++) await newTx(s.ctx, s.org.org.id);
    const other = 'db-node-2:77:00c0ffee';
    const now = s.ctx.clock.now();
    await registerNode(s.ctx.db, { id: other, host: 'db-node-2', pid: 77, startedAt: now, seenAt: now });
    await claimAll(s, other);
    const r = registry(s.ctx);
    await r.start();
    s.ctx.clock.advance(5000);
    expect((await r.takeOver()).rows).toBe(0);
    s.ctx.clock.advance(1);
    expect(await r.takeOver()).toEqual({ owners: [other], rows: 2 });
    expect((await listNodes(s.ctx.db)).map((n) => n.id)).toEqual([r.id]);
    expect(await s.dispatcher.runOnce()).toBe(2);
  });

  it('after its own heartbeats failed, counts another node’s silence only from when it sees the database again', async () => {
    const s = await setup({ 'nodes.heartbeatMs': 1000, 'nodes.deadAfterMs': 5000 });
    await newTx(s.ctx, s.org.org.id);
    const other = 'db-node-2:77:00c0ffee';
    await registerNode(s.ctx.db, { id: other, host: 'db-node-2', pid: 77, startedAt: s.ctx.clock.now(), seenAt: s.ctx.clock.now() });
    await claimAll(s, other);
    // The database goes away for both: this node's heartbeats fail as the other's do.
    let away = false;
    const db = new Proxy(s.ctx.db, {
      get(target, prop) {
        if (away && prop === 'run') return () => Promise.reject(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }));
        const value = Reflect.get(target, prop, target) as unknown;
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    });
    const r = new NodeRegistry({ ...s.ctx, db }, newNodeId());
    registries.push(r);
    await r.start();
    away = true;
    s.ctx.clock.advance(8000);
    await expect(r.heartbeat()).rejects.toThrow(/ECONNREFUSED/);
    away = false;
    await r.heartbeat(); // back: the other's row is 8 s old, but it was silent only while nobody could write
    expect((await getDelivery(s.ctx.db, (await listDeliveries(s.ctx.db, { limit: 1 }))[0]!.id))!.attempts).toBe(0);
    expect(r.live).toHaveLength(2);
    s.ctx.clock.advance(5001); // silent for deadAfterMs since then: dead
    expect(await r.takeOver()).toEqual({ owners: [other], rows: 1 });
  });

  it('a node declared dead that comes back registers again at its next heartbeat, and leaves at its stop', async () => {
    const s = await setup();
    const r = registry(s.ctx);
    await r.start();
    await deleteNode(s.ctx.db, r.id); // what another node does to one it found silent
    await r.heartbeat();
    expect((await listNodes(s.ctx.db)).map((n) => n.id)).toEqual([r.id]);
    await r.stop();
    registries.splice(0);
    expect(await listNodes(s.ctx.db)).toEqual([]);
  });
});
