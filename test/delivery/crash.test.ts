import { createPublicKey, type KeyObject } from 'node:crypto';
import { EventEmitter, once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { writeEvents } from '../support/admin-events.js';
import { daemonToken } from '../support/daemon-token.js';
import { startBorderd } from '../support/process.js';
import { signatureVerifies, startReceiver } from './receiver.js';

const ADMIN = 'crash-test-admin-token-0123456789';
const EVENTS = 1000;
const env = {
  BORDERD_ADMIN_TOKEN: ADMIN,
  // Leases far longer than the test: the restarted process must take the dead one's rows back at
  // its start (its pid is gone from this host), not when their leases end.
  BORDERD_DELIVERY_LEASE_MS: '600000',
  BORDERD_DELIVERY_TIMEOUT_MS: '1000',
  BORDERD_DELIVERY_POLL_INTERVAL_MS: '100',
  BORDERD_DELIVERY_PER_ENDPOINT_CONCURRENCY: '8',
  // Sends made while the receiver holds its answers (until all 1,000 events exist) time out after 1 s
  // and are retried. The default schedule's third step is 300 s: on a slow machine a row could fail
  // twice before the gate opens and then not be due again within the test. Every retry here comes
  // 5 s later, and the last attempt (which would disable the webhook) is beyond the test's time limit.
  BORDERD_DELIVERY_RETRY_SCHEDULE_SECONDS: '[0,5,5,5,5,5,5,5,5,5,5,5,5,5]',
};

async function post(url: string, auth: string, body: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { ...(auth ? { authorization: auth } : {}), 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

// Needs the compiled daemon (npm run build).
describe('crash safety of the outbox', () => {
  it('delivers every one of 1,000 events at least once across a kill -9 during delivery', async () => {
    // The receiver holds its answers until every event exists, so the kill lands mid-delivery.
    let open!: () => void;
    const gate = new Promise<void>((r) => (open = r));
    const ids = new Set<string>();
    const arrivals = new EventEmitter();
    // Every request's signature is checked against the organization's public key (GET …/settings/public-key, fetched below).
    let publicKey: KeyObject | undefined;
    let keyId = '';
    const badSignatures: string[] = [];
    // A copy sent again after the kill says a later attempt (x-delivery-attempt) than the lost one.
    const copies = new Set<string>();
    const sameAttemptTwice: string[] = [];
    let checked = 0;
    const receiver = await startReceiver((r, res) => {
      void gate.then(() => {
        checked++;
        const ok = r.headers['x-signature-key-id'] === keyId && signatureVerifies(r, publicKey!);
        if (!ok || JSON.parse(r.body.toString()).id !== r.headers['x-event-id']) badSignatures.push(String(r.headers['x-event-id']));
        ids.add(String(r.headers['x-event-id']));
        const attempt = `${String(r.headers['x-event-id'])}#${String(r.headers['x-delivery-attempt'])}`;
        if (copies.has(attempt)) sameAttemptTwice.push(attempt);
        copies.add(attempt);
        res.end('ok');
        arrivals.emit('id');
      });
    });

    const first = await startBorderd({ env });
    const { accessToken, orgId } = await daemonToken(first);
    const auth = `Bearer ${accessToken}`;
    expect((await post(`${first.url}/v1/notifications/webhooks/settings`, auth, { url: receiver.url })).status).toBe(201);
    const key = (await (
      await fetch(`${first.url}/v1/notifications/webhooks/settings/public-key`, { headers: { authorization: auth } })
    ).json()) as { keyId: string; publicKey: string };
    publicKey = createPublicKey(key.publicKey);
    keyId = key.keyId;

    const created = await writeEvents([first.url], ADMIN, orgId, EVENTS);

    open();
    while (ids.size < 150) await once(arrivals, 'id');
    const killed = await first.stop('SIGKILL');
    expect(killed.signal).toBe('SIGKILL');
    const beforeRestart = ids.size;
    expect(beforeRestart).toBeLessThan(EVENTS);

    // The same data directory (its master key) and the same database: a SQLite file in it, or the first one's PostgreSQL database.
    const databaseUrl = first.database['database.url'] as string | undefined;
    const second = await startBorderd({ env, dataDir: first.dataDir, ...(databaseUrl !== undefined && { databaseUrl }) });
    try {
      while (!created.every((id) => ids.has(id))) await once(arrivals, 'id');
    } finally {
      // SIGTERM drains and exits cleanly.
      expect((await second.stop('SIGTERM')).code).toBe(0);
    }
    expect(created.filter((id) => !ids.has(id))).toEqual([]);
    expect(ids.size).toBe(EVENTS);
    expect(checked).toBeGreaterThanOrEqual(EVENTS);
    expect(badSignatures).toEqual([]);
    expect(sameAttemptTwice).toEqual([]);
  }, 180_000);
});
