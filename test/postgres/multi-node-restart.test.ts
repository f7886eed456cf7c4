/**
 * Two real `borderd serve` nodes writing and delivering while their PostgreSQL server stops and
 * starts: writes during the outage are refused with 503 (not acknowledged), every event that was
 * acknowledged is delivered with a valid signature, both nodes stay up, and neither takes the
 * other's deliveries back for a silence that was the database's, not the node's. Needs `npm run build`.
 */
import { createPublicKey, type KeyObject } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signatureVerifies, startReceiver } from '../delivery/receiver.js';
import { daemonToken } from '../support/daemon-token.js';
import { PASSWORD, startOwnPostgres, until, type OwnPostgres } from '../support/own-postgres.js';
import { startBorderd, type RunningBorderd } from '../support/process.js';

let server: OwnPostgres;
beforeAll(async () => {
  server = await startOwnPostgres();
});
afterAll(async () => {
  await server?.remove();
});

const ADMIN = 'multi-node-restart-admin-token-01234';

/** Writes events to the nodes in turn until stopped; keeps the ids each 201 acknowledged and counts the refusals. */
function writer(urls: readonly string[], orgId: string, connections = 4) {
  const acknowledged: string[] = [];
  const refused = new Map<string, number>(); // problem code or error name → count
  let stopped = false;
  const running = Promise.all(
    Array.from({ length: connections }, async (_, worker) => {
      for (let n = 0; !stopped; n++) {
        try {
          const res = await fetch(`${urls[(worker + n) % urls.length]}/admin/v1/events`, {
            method: 'POST',
            headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
            body: JSON.stringify({ orgId, type: 'Transaction_Created', data: { status: 'Submitted' } }),
          });
          const body = (await res.json()) as { id?: string; code?: string };
          if (res.status === 201) acknowledged.push(body.id!);
          else refused.set(`${res.status} ${body.code}`, (refused.get(`${res.status} ${body.code}`) ?? 0) + 1);
        } catch (err) {
          refused.set((err as Error).name, (refused.get((err as Error).name) ?? 0) + 1);
        }
        if (refused.size) await new Promise((r) => setTimeout(r, 20)); // no busy loop of refusals
      }
    }),
  );
  return {
    acknowledged,
    refused,
    stop: async () => {
      stopped = true;
      await running;
    },
  };
}

describe('several nodes when their PostgreSQL stops and starts under load', () => {
  it('delivers every acknowledged event, keeps both nodes up, and takes nothing back from a live node', async () => {
    const env = {
      BORDERD_ADMIN_TOKEN: ADMIN,
      BORDERD_DELIVERY_POLL_INTERVAL_MS: '100',
      BORDERD_DELIVERY_TIMEOUT_MS: '2000',
      // A row a node claimed but could not record while the server was down is sent again when its
      // lease ends: the shortest lease this timeout allows ((CLAIM_ROUNDS + 1) × 2 s + 5 s), not 60 s.
      BORDERD_DELIVERY_LEASE_MS: '15000',
      BORDERD_DELIVERY_RETRY_SCHEDULE_SECONDS: '[0,1,1,1,1,1,1,1,1,1,1,1,1,1]',
      BORDERD_DATABASE_POOL_CONNECT_TIMEOUT_MS: '1000',
      BORDERD_NODES_HEARTBEAT_MS: '500',
      BORDERD_NODES_DEAD_AFTER_MS: '2000',
    };
    const copies = new Map<string, number>();
    const badSignatures: string[] = [];
    let publicKey: KeyObject | undefined;
    const receiver = await startReceiver((r, res) => {
      const id = String(r.headers['x-event-id']);
      if (!signatureVerifies(r, publicKey!)) badSignatures.push(id);
      copies.set(id, (copies.get(id) ?? 0) + 1);
      res.end('ok');
    });
    const a = await startBorderd({ env, databaseUrl: server.url });
    const b = await startBorderd({ env, databaseUrl: server.url, dataDir: a.dataDir });
    const nodes = [a, b];
    const readyz = async (n: RunningBorderd) => (await fetch(`${n.url}/readyz`).catch(() => undefined))?.status;
    const { accessToken, orgId } = await daemonToken(a);
    const auth = { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json' };
    expect(
      (
        await fetch(`${b.url}/v1/notifications/webhooks/settings`, {
          method: 'POST',
          headers: auth,
          body: JSON.stringify({ url: receiver.url }),
        })
      ).status,
    ).toBe(201);
    const key = (await (await fetch(`${a.url}/v1/notifications/webhooks/settings/public-key`, { headers: auth })).json()) as {
      publicKey: string;
    };
    publicKey = createPublicKey(key.publicKey);

    const load = writer([a.url, b.url], orgId);
    try {
      await until(async () => load.acknowledged.length >= 200, '200 events written');
      await server.stop();
      await until(async () => (await Promise.all(nodes.map(readyz))).every((s) => s === 503), 'both nodes to say 503');
      // Down for longer than nodes.deadAfterMs: every heartbeat in between fails.
      await new Promise((r) => setTimeout(r, 3000));
      await server.start();
      await until(async () => (await Promise.all(nodes.map(readyz))).every((s) => s === 200), 'both nodes to say 200 again');
      const before = load.acknowledged.length;
      await until(async () => load.acknowledged.length >= before + 200, '200 more events written after the restart');
    } finally {
      await load.stop();
    }
    expect([...load.refused.keys()]).toContain('503 database_unavailable');
    await until(async () => load.acknowledged.every((id) => copies.has(id)), 'every acknowledged event delivered', 90_000);
    expect(badSignatures).toEqual([]);
    for (const n of nodes) {
      expect(n.proc.exitCode).toBeNull();
      expect(n.output()).not.toContain('took back the deliveries of stopped processes');
      expect(n.output()).not.toContain(PASSWORD); // the pool hangs its connection settings on the errors it emits
    }
    await Promise.all(nodes.map((n) => n.stop()));
  }, 180_000);
});
