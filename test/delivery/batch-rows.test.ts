/**
 * A result batch's one statement (finishAttempts, each row read from one JSON parameter) leaves
 * every row exactly as the per-row statement (finishAttempt) leaves its twin, whatever the values:
 * texts that JSON escapes, NULLs, instants past 2^32, on both engines.
 */
import { describe, expect, it } from 'vitest';
import { claimDue } from '../../src/store/delivery-claims.js';
import { finishAttempt, finishAttempts, type DeliveryAfterAttempt } from '../../src/store/delivery-results.js';
import { newTx, setup } from './dispatch/support.js';

describe('a result batch', () => {
  it('leaves each row as the per-row statement leaves its twin', async () => {
    const s = await setup();
    const outcomes: DeliveryAfterAttempt[] = [
      {
        state: 'delivered',
        attempts: 1,
        step: 1,
        nextAttemptAt: 0,
        lastStatus: 200,
        lastError: null,
        deliveredAt: '2026-11-28T05:30:00.123Z',
        at: '2026-11-28T05:30:00.123Z',
      },
      {
        state: 'pending',
        attempts: 3,
        step: 2,
        nextAttemptAt: 4_102_444_800_000,
        lastStatus: 503,
        lastError: 'HTTP 503: "busy" \\ retry\n\tlater',
        deliveredAt: null,
        at: '2026-11-28T05:30:01.000Z',
      },
      {
        state: 'pending',
        attempts: 1,
        step: 1,
        nextAttemptAt: 2 ** 41 + 7,
        lastStatus: null,
        lastError: 'ünïcödé €😀 {"json":"text"}',
        deliveredAt: null,
        at: '2026-11-28T05:30:02.000Z',
      },
      {
        state: 'failed',
        attempts: 9,
        step: 9,
        nextAttemptAt: 1,
        lastStatus: 410,
        lastError: 'x'.repeat(3000),
        deliveredAt: null,
        at: '2026-11-28T05:30:03.000Z',
      },
    ];
    for (let i = 0; i < outcomes.length * 2; i++) await newTx(s.ctx, s.org.org.id);
    const now = s.ctx.clock.now();
    const claimed = await claimDue(s.ctx.db, s.webhookId, 'owner-1', now, now + 60_000, outcomes.length * 2);
    expect(claimed).toHaveLength(outcomes.length * 2);
    const alone = claimed.slice(0, outcomes.length);
    const batched = claimed.slice(outcomes.length);

    for (const [i, row] of alone.entries()) {
      expect(
        await finishAttempt(s.ctx.db, row.id, 'owner-1', outcomes[i]!, {
          state: 'pending',
          step: row.step,
          nextAttemptAt: row.nextAttemptAt,
        }),
      ).toBe(true);
    }
    const advanced = await finishAttempts(
      s.ctx.db,
      'owner-1',
      batched.map((row, i) => ({ id: row.id, ...outcomes[i]!, expectStep: row.step, expectNextAttemptAt: row.nextAttemptAt })),
    );
    expect([...advanced].sort()).toEqual(batched.map((row) => row.id).sort());

    // Every column but the row's own identity and its event's is the same as its twin's.
    const written = async (id: string) => {
      const row = (await s.ctx.db.get<Record<string, unknown>>('SELECT * FROM deliveries WHERE id = ?', [id]))!;
      const { id: _id, event_id: _eventId, created_at: _createdAt, event_tx: _eventTx, resource_key: _resourceKey, ...rest } = row;
      // PostgreSQL's bigint columns come back as strings.
      return Object.fromEntries(Object.entries(rest).map(([k, v]) => [k, typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : v]));
    };
    for (let i = 0; i < outcomes.length; i++) {
      const twin = await written(alone[i]!.id);
      expect(await written(batched[i]!.id)).toEqual(twin);
      const o = outcomes[i]!;
      expect(twin).toMatchObject({
        state: o.state,
        attempts: o.attempts,
        step: o.step,
        next_attempt_at: o.nextAttemptAt,
        last_status: o.lastStatus,
        last_error: o.lastError,
        delivered_at: o.deliveredAt,
        updated_at: o.at,
        claimed_by: null,
        lease_until: null,
      });
    }
  });
});
