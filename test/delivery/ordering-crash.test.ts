/**
 * Ordered delivery across real processes: two `borderd serve` nodes on one database deliver 20
 * resources x 10 updates to an endpoint that fails at random, one node is killed (-9) mid-run and
 * started again; no request of a resource's later event arrives before every earlier one was
 * answered 2xx. Needs the compiled daemon (npm run build).
 */
import { EventEmitter, once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { daemonToken } from '../support/daemon-token.js';
import { startBorderd } from '../support/process.js';
import { startReceiver } from './receiver.js';

const ADMIN = 'ordering-crash-admin-token-0123456789';
const RESOURCES = 20;
const UPDATES = 10;
const env = {
  BORDERD_ADMIN_TOKEN: ADMIN,
  // Leases far longer than the test: the killed node's rows come back when it starts again (its pid
  // is gone from this host), so what was in flight at the kill holds its resource until then.
  BORDERD_DELIVERY_LEASE_MS: '600000',
  BORDERD_DELIVERY_POLL_INTERVAL_MS: '50',
  // Failures are retried at once, and never reach the last step (which would disable the webhook).
  BORDERD_DELIVERY_RETRY_SCHEDULE_SECONDS: '[0,0,0,0,0,0,0,0,0,0]',
  BORDERD_DELIVERY_JITTER: '0',
};

async function send(method: string, url: string, auth: string, body: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(url, {
    method,
    headers: { authorization: auth, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

describe('ordered delivery across a kill -9', () => {
  it('two nodes, random failures, one node killed and restarted: no resource sees a later event before an earlier one succeeded', async () => {
    // Each event fails its first 0 to 2 attempts (by its id), so failures are spread and repeatable.
    const failuresLeft = new Map<string, number>();
    const log: { eventId: string; resource: string; ok: boolean }[] = [];
    const arrivals = new EventEmitter();
    const receiver = await startReceiver((r, res) => {
      const id = String(r.headers['x-event-id']);
      if (!failuresLeft.has(id)) failuresLeft.set(id, id.charCodeAt(id.length - 1) % 3);
      const ok = failuresLeft.get(id) === 0;
      if (!ok) failuresLeft.set(id, failuresLeft.get(id)! - 1);
      log.push({ eventId: id, resource: (JSON.parse(r.body.toString()) as { data: { id: string } }).data.id, ok });
      res.writeHead(ok ? 200 : 500).end();
      arrivals.emit('request');
    });

    const first = await startBorderd({ env });
    const databaseUrl = first.database['database.url'] as string | undefined;
    const node = () => startBorderd({ env, dataDir: first.dataDir, ...(databaseUrl !== undefined && { databaseUrl }) });
    const second = await node();
    let restarted: Awaited<ReturnType<typeof node>> | undefined;
    try {
      const { accessToken, orgId } = await daemonToken(first);
      const created = await send('POST', `${first.url}/v1/notifications/webhooks/settings`, `Bearer ${accessToken}`, {
        url: receiver.url,
        ordering: 'resource',
      });
      expect(created.status).toBe(201);
      expect(created.body.ordering).toBe('resource');

      // The updates, written to both nodes in turn, resources interleaved.
      const order = new Map<string, string[]>();
      const urls = [first.url, second.url];
      for (let u = 0; u < UPDATES; u++)
        await Promise.all(
          Array.from({ length: RESOURCES }, async (_, r) => {
            const resource = `txn_crash${String(r).padStart(2, '0')}`;
            const res = await send('POST', `${urls[(u + r) % 2]}/admin/v1/events`, `Bearer ${ADMIN}`, {
              orgId,
              type: 'Transaction_Updated',
              data: { id: resource, status: 'Processing', update: u },
            });
            expect(res.status).toBe(201);
            order.set(resource, [...(order.get(resource) ?? []), String(res.body.id)]);
          }),
        );
      const total = RESOURCES * UPDATES;

      // Mid-run: the first node dies without a word, then comes back on the same data and database.
      while (log.length < 60) await once(arrivals, 'request');
      expect((await first.stop('SIGKILL')).signal).toBe('SIGKILL');
      restarted = await node();
      const acked = () => new Set(log.filter((l) => l.ok).map((l) => l.eventId)).size;
      while (acked() < total) await once(arrivals, 'request');

      let violations = 0;
      const done = new Set<string>();
      for (const entry of log) {
        if (order.get(entry.resource)!.some((id) => id < entry.eventId && !done.has(id))) violations++;
        if (entry.ok) done.add(entry.eventId);
      }
      expect(log.some((l) => !l.ok)).toBe(true);
      expect(violations).toBe(0);
      expect(done.size).toBe(total);
    } finally {
      await first.stop('SIGKILL');
      await second.stop('SIGTERM');
      await restarted?.stop('SIGTERM');
    }
  }, 180_000);
});
