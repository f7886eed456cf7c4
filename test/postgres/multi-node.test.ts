/**
 * Two real `borderd serve` processes on one PostgreSQL database: events written across both are
 * all delivered and verified across a kill -9 of one of them, whose claims the other takes back
 * long before their leases end; the webhook never gets more than perEndpointConcurrency requests at
 * once from both together; an event written on one node reaches a stream client connected to
 * the other through LISTEN/NOTIFY (their polls are set to ten minutes). Needs `npm run build`.
 */
import { createPublicKey, type KeyObject } from 'node:crypto';
import { EventEmitter, once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { writeEvents } from '../support/admin-events.js';
import { daemonToken } from '../support/daemon-token.js';
import { startBorderd, type RunningBorderd } from '../support/process.js';
import { signatureVerifies, startReceiver } from '../delivery/receiver.js';

const ADMIN = 'multi-node-test-admin-token-0123456789';
const EVENTS = 1000;

async function post(url: string, auth: string, body: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { authorization: auth, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

/**
 * Waits until the first node has read the second in the live nodes: two of its heartbeats after the
 * second registered (the first may have read the list just before). Until then the first still
 * takes the whole of a webhook's slots, the join's bound (docs/scaling.md: up to twice the setting).
 */
async function untilBothSeeBoth(first: RunningBorderd, heartbeatMs: number): Promise<void> {
  const client = new pg.Client({ connectionString: first.database['database.url'] as string });
  await client.connect();
  try {
    for (;;) {
      const { rows } = await client.query<{ started: string; seen: string }>(
        'SELECT started_at AS started, seen_at AS seen FROM nodes ORDER BY started_at',
      );
      if (rows.length >= 2 && Number(rows[0]!.seen) > Number(rows[1]!.started) + heartbeatMs) return;
      await sleep(heartbeatMs / 5);
    }
  } finally {
    await client.end();
  }
}

/** A second node: the first one's database and data directory (its master key), these settings. */
function sameDatabase(first: RunningBorderd, env: Record<string, string>): Promise<RunningBorderd> {
  return startBorderd({ env, dataDir: first.dataDir, databaseUrl: first.database['database.url'] as string });
}

describe('several nodes on one PostgreSQL', () => {
  it('delivers every one of 1,000 events written across two nodes while one is killed; the other takes over its claims', async () => {
    const env = {
      BORDERD_ADMIN_TOKEN: ADMIN,
      // Leases far longer than the test: only the takeover can bring the dead node's rows back in time.
      BORDERD_DELIVERY_LEASE_MS: '600000',
      BORDERD_DELIVERY_TIMEOUT_MS: '2000',
      BORDERD_DELIVERY_POLL_INTERVAL_MS: '200',
      BORDERD_DELIVERY_PER_ENDPOINT_CONCURRENCY: '8',
      BORDERD_DELIVERY_RETRY_SCHEDULE_SECONDS: '[0,5,5,5,5,5,5,5,5,5,5,5,5,5]',
      BORDERD_NODES_HEARTBEAT_MS: '500',
      BORDERD_NODES_DEAD_AFTER_MS: '3000',
    };
    let open!: () => void;
    const gate = new Promise<void>((r) => (open = r));
    const copies = new Map<string, string[]>(); // event id → x-delivery-attempt of each copy received
    const arrivals = new EventEmitter();
    let publicKey: KeyObject | undefined;
    const badSignatures: string[] = [];
    const receiver = await startReceiver((r, res) => {
      void gate.then(() => {
        const id = String(r.headers['x-event-id']);
        if (!signatureVerifies(r, publicKey!) || JSON.parse(r.body.toString()).id !== id) badSignatures.push(id);
        copies.set(id, [...(copies.get(id) ?? []), String(r.headers['x-delivery-attempt'])]);
        res.end('ok');
        arrivals.emit('id');
      });
    });

    const a = await startBorderd({ env });
    const b = await sameDatabase(a, env);
    await untilBothSeeBoth(a, Number(env.BORDERD_NODES_HEARTBEAT_MS));
    const { accessToken, orgId } = await daemonToken(a);
    const auth = `Bearer ${accessToken}`;
    expect((await post(`${b.url}/v1/notifications/webhooks/settings`, auth, { url: receiver.url })).status).toBe(201);
    const key = (await (
      await fetch(`${b.url}/v1/notifications/webhooks/settings/public-key`, { headers: { authorization: auth } })
    ).json()) as {
      publicKey: string;
    };
    publicKey = createPublicKey(key.publicKey);

    const created = await writeEvents([a.url, b.url], ADMIN, orgId, EVENTS);

    open();
    while (copies.size < 150) await once(arrivals, 'id');
    expect((await a.stop('SIGKILL')).signal).toBe('SIGKILL');
    expect(copies.size).toBeLessThan(EVENTS);
    try {
      while (!created.every((id) => copies.has(id))) await once(arrivals, 'id');
    } finally {
      expect((await b.stop('SIGTERM')).code).toBe(0);
    }
    expect(badSignatures).toEqual([]);
    // perEndpointConcurrency (8) held across the two nodes, each sending its part.
    expect(receiver.load.maxActive).toBeLessThanOrEqual(8);
    // A copy sent again (the killed node's sends in flight) says a later attempt than the one before it.
    const resent = [...copies.values()].filter((attempts) => attempts.length > 1);
    for (const attempts of resent) expect(new Set(attempts).size, attempts.join(',')).toBe(attempts.length);
    expect(copies.size).toBe(EVENTS);
  }, 240_000);

  it('streams an event written on one node to a client connected to the other, without waiting for a poll', async () => {
    const env = { BORDERD_ADMIN_TOKEN: ADMIN, BORDERD_EVENT_STREAM_POLL_INTERVAL_MS: '600000' };
    const a = await startBorderd({ env });
    const b = await sameDatabase(a, env);
    try {
      const { accessToken, orgId } = await daemonToken(a);
      const controller = new AbortController();
      const stream = await fetch(`${b.url}/v1/notifications/events/stream`, {
        headers: { authorization: `Bearer ${accessToken}`, accept: 'text/event-stream' },
        signal: controller.signal,
      });
      expect(stream.status).toBe(200);
      const reader = stream.body!.getReader();
      const written = await post(`${a.url}/admin/v1/events`, `Bearer ${ADMIN}`, {
        orgId,
        type: 'Transaction_Created',
        data: { status: 'Submitted' },
      });
      expect(written.status).toBe(201);
      let text = '';
      while (!text.includes(String(written.body.id))) {
        const { value, done } = await reader.read();
        if (done) break;
        text += Buffer.from(value).toString();
      }
      expect(text).toContain(`id: ${String(written.body.id)}`);
      controller.abort();
    } finally {
      await Promise.all([a.stop(), b.stop()]);
    }
  }, 60_000);
});
