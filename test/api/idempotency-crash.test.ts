/**
 * Keyed POSTs to a real `borderd serve` killed with SIGKILL while they are in flight, sent again with
 * the same keys to the restarted daemon: each one ran exactly once, and every answer given before
 * the kill is the one replayed after it. Needs `npm run build`.
 */
import { describe, expect, it } from 'vitest';
import { daemonToken } from '../support/daemon-token.js';
import { makeContext } from '../support/context.js';
import { startBorderd } from '../support/process.js';

const ADMIN = 'idempotency-crash-admin-token-0123456789';
const REQUESTS = 300;
const IN_FLIGHT = 30;
/** Answers received before the kill: the rest are in flight (some committed, some not) or not sent yet. */
const KILL_AFTER = 60;

interface Answer {
  status: number;
  replayed: boolean;
  body: { id?: string; amount?: string };
}

async function createTransaction(url: string, key: string, orgId: string, i: number): Promise<Answer> {
  const res = await fetch(`${url}/admin/v1/transactions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json', 'idempotency-key': key },
    body: JSON.stringify({
      orgId,
      type: 'Transfer',
      amount: `${i}.00`,
      currency: 'EUR',
      source: { accountId: 'acc_1' },
      destination: { iban: 'DE00' },
    }),
  });
  return {
    status: res.status,
    replayed: res.headers.get('idempotent-replayed') === 'true',
    body: (await res.json()) as Answer['body'],
  };
}

describe('Idempotency-Key across a kill -9', () => {
  it('runs each keyed POST once when it is sent again after the daemon was killed between request and answer', async () => {
    const env = { BORDERD_ADMIN_TOKEN: ADMIN };
    const first = await startBorderd({ env });
    const { orgId } = await daemonToken(first);
    const keyOf = (i: number) => `crash-${i}`;

    const before = new Map<number, Answer>();
    let next = 0;
    let killed: Promise<unknown> | undefined;
    const sender = async (): Promise<void> => {
      while (next < REQUESTS && !killed) {
        const i = next++;
        try {
          const answer = await createTransaction(first.url, keyOf(i), orgId, i);
          if (!killed) before.set(i, answer);
          if (before.size >= KILL_AFTER) killed ??= first.stop('SIGKILL');
        } catch {
          // The connection died with the daemon: this request has no answer.
        }
      }
    };
    await Promise.all(Array.from({ length: IN_FLIGHT }, sender));
    expect((await killed) as { signal: string }).toMatchObject({ signal: 'SIGKILL' });
    expect([...before.values()].every((a) => a.status === 201)).toBe(true);

    const ctx = await makeContext({ ...first.database, dataDir: first.dataDir });
    const kept = new Set(await ctx.db.column<string>('SELECT key FROM idempotency_keys'));
    // Every answer given was committed with its key; requests in flight at the kill may have been too.
    for (const i of before.keys()) expect(kept.has(keyOf(i))).toBe(true);

    const second = await startBorderd({ env, dataDir: first.dataDir, databaseUrl: first.database['database.url'] as string | undefined });
    const after = new Map<number, Answer>();
    for (let i = 0; i < REQUESTS; i++) after.set(i, await createTransaction(second.url, keyOf(i), orgId, i));
    for (const [i, answer] of after) {
      expect(answer.status, keyOf(i)).toBe(201);
      expect(answer.body.amount).toBe(`${i}.00`);
      // Committed before the kill (answered or not): replayed, with the first answer where one was given.
      expect(answer.replayed, keyOf(i)).toBe(kept.has(keyOf(i)));
      if (before.has(i)) expect(answer.body).toEqual(before.get(i)!.body);
    }
    // One transaction per key: none ran twice, none was lost.
    const rows = await ctx.db.column<string>('SELECT id FROM transactions WHERE org_id = ? ORDER BY id', [orgId]);
    expect(rows).toHaveLength(REQUESTS);
    expect(new Set([...after.values()].map((a) => a.body.id))).toEqual(new Set(rows));
    await second.stop();
  });
});
