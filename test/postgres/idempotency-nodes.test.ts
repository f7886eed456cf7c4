/**
 * Two real `borderd serve` processes on one PostgreSQL database, each sent the same keyed POST at
 * the same moment: one runs it; the other replays its answer or, while it still runs, answers 409
 * with Retry-After. Never both run. Needs `npm run build`.
 */
import { describe, expect, it } from 'vitest';
import { daemonToken } from '../support/daemon-token.js';
import { makeContext } from '../support/context.js';
import { startBorderd } from '../support/process.js';

const ADMIN = 'idempotency-nodes-admin-token-0123456789';
const KEYS = 40;

interface Answer {
  status: number;
  replayed: boolean;
  retryAfter: string | null;
  body: { id?: string; code?: string };
}

async function post(url: string, key: string, body: unknown): Promise<Answer> {
  const res = await fetch(`${url}/admin/v1/transactions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json', 'idempotency-key': key },
    body: JSON.stringify(body),
  });
  return {
    status: res.status,
    replayed: res.headers.get('idempotent-replayed') === 'true',
    retryAfter: res.headers.get('retry-after'),
    body: (await res.json()) as Answer['body'],
  };
}

describe('Idempotency-Key on several nodes', () => {
  it('runs a key sent to two nodes at once on one of them only', async () => {
    const env = { BORDERD_ADMIN_TOKEN: ADMIN };
    const a = await startBorderd({ env });
    const b = await startBorderd({ env, dataDir: a.dataDir, databaseUrl: a.database['database.url'] as string });
    const { orgId } = await daemonToken(a);
    const body = (i: number) => ({
      orgId,
      type: 'Transfer',
      amount: `${i}.00`,
      currency: 'EUR',
      source: { accountId: 'acc_1' },
      destination: { iban: 'DE00' },
    });

    const outcomes: string[] = [];
    const ids = new Set<string>();
    for (let i = 0; i < KEYS; i++) {
      const key = `both-${i}`;
      const pair = await Promise.all([post(a.url, key, body(i)), post(b.url, key, body(i))]);
      const ran = pair.filter((r) => r.status === 201 && !r.replayed);
      expect(ran, key).toHaveLength(1);
      const other = pair.find((r) => r !== ran[0])!;
      if (other.status === 409) {
        expect(other.body.code).toBe('idempotency_key_in_use');
        expect(other.retryAfter).toBe('1');
        // Sent again once the first has answered: its answer.
        const retried = await post(pair.indexOf(other) === 0 ? a.url : b.url, key, body(i));
        expect(retried).toMatchObject({ status: 201, replayed: true, body: ran[0]!.body });
        outcomes.push('409');
      } else {
        expect(other).toMatchObject({ status: 201, replayed: true, body: ran[0]!.body });
        outcomes.push('replayed');
      }
      ids.add(ran[0]!.body.id!);
    }
    expect(outcomes).toHaveLength(KEYS);
    const ctx = await makeContext({ ...a.database, dataDir: a.dataDir });
    const rows = await ctx.db.column<string>('SELECT id FROM transactions WHERE org_id = ?', [orgId]);
    expect(new Set(rows)).toEqual(ids);
    expect(rows).toHaveLength(KEYS);
    await Promise.all([a.stop(), b.stop()]);
  });
});
