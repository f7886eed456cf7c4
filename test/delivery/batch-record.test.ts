/**
 * The statements that record a batch of results at once (dispatch/record.ts): attempt rows,
 * signatures and row states, each from one JSON parameter, on both engines. A batch statement that
 * failed would still end in recorded rows (the recorder falls back to one savepoint per result), so
 * these are checked on their own.
 */
import { describe, expect, it } from 'vitest';
import { getDelivery } from '../../src/store/deliveries.js';
import { claimDue } from '../../src/store/delivery-claims.js';
import { finishAttempts } from '../../src/store/delivery-results.js';
import { listDeliveries } from '../../src/store/delivery-views.js';
import { insertAttempts, listAttempts } from '../../src/store/delivery-attempts.js';
import { signaturesOf, storeSignatures } from '../../src/store/event-signatures.js';
import { newTx, setup } from './dispatch/support.js';

describe('recording a batch of results', () => {
  it('writes every attempt and signature in one statement each, and advances only the rows still as expected', async () => {
    const s = await setup();
    for (let i = 0; i < 3; i++) await newTx(s.ctx, s.org.org.id);
    const now = s.ctx.clock.now();
    const claimed = await claimDue(s.ctx.db, s.webhookId, 'owner-1', now, now + 60_000, 10);
    expect(claimed).toHaveLength(3);
    const at = new Date(now).toISOString();
    await insertAttempts(
      s.ctx.db,
      claimed.map((c, i) => ({
        id: `att_batch_${i}`,
        deliveryId: c.id,
        attempt: 1,
        startedAt: at,
        durationMs: 12,
        statusCode: i === 2 ? 500 : 200,
        error: i === 2 ? 'HTTP 500' : null,
        responseBody: i === 2 ? 'oops' : null,
        keyId: null,
        requestHeaders: i === 2 ? JSON.stringify({ 'webhook-id': c.eventId, traceparent: '00-ab-cd-01' }) : '{}',
      })),
    );
    await storeSignatures(s.ctx.db, [
      ...claimed.map((c) => ({ eventId: c.eventId, keyId: 'key_batch', signature: `sig-${c.eventId}` })),
      { eventId: 'evt_gone', keyId: 'key_batch', signature: 'kept only while its event exists' },
    ]);
    const [a, b, c] = claimed;
    const row = (id: string, state: 'delivered' | 'pending', expectStep: number) => ({
      id,
      state,
      attempts: 1,
      step: 1,
      nextAttemptAt: now + (state === 'pending' ? 5000 : 0),
      lastStatus: state === 'delivered' ? 200 : 500,
      lastError: state === 'delivered' ? null : 'HTTP 500',
      deliveredAt: state === 'delivered' ? at : null,
      at,
      expectStep,
      expectNextAttemptAt: claimed.find((x) => x.id === id)!.nextAttemptAt,
    });
    // b's row is expected at a step it is not at (an operator moved it): left for the slow path.
    const advanced = await finishAttempts(s.ctx.db, 'owner-1', [
      row(a!.id, 'delivered', 0),
      row(b!.id, 'delivered', 7),
      row(c!.id, 'pending', 0),
    ]);
    expect([...advanced].sort()).toEqual([a!.id, c!.id].sort());
    expect(await getDelivery(s.ctx.db, a!.id)).toMatchObject({ state: 'delivered', attempts: 1, lastStatus: 200, deliveredAt: at });
    expect(await getDelivery(s.ctx.db, c!.id)).toMatchObject({ state: 'pending', attempts: 1, step: 1, lastError: 'HTTP 500' });
    expect(await getDelivery(s.ctx.db, b!.id)).toMatchObject({ state: 'pending', attempts: 0 });
    expect((await listAttempts(s.ctx.db, c!.id)).map((x) => [x.statusCode, x.responseBody, x.durationMs])).toEqual([[500, 'oops', 12]]);
    // The headers as sent come back as the same compact JSON.
    expect((await listAttempts(s.ctx.db, c!.id))[0]!.requestHeaders).toBe(
      JSON.stringify({ 'webhook-id': c!.eventId, traceparent: '00-ab-cd-01' }),
    );
    expect((await listAttempts(s.ctx.db, a!.id))[0]!.requestHeaders).toBe('{}');
    expect(
      (
        await signaturesOf(
          s.ctx.db,
          claimed.map((x) => x.eventId),
        )
      ).filter((x) => x.keyId === 'key_batch'),
    ).toHaveLength(3);
    // Someone else's lease: nothing advances.
    expect(await finishAttempts(s.ctx.db, 'owner-2', [row(b!.id, 'delivered', 0)])).toEqual(new Set());
    expect((await listDeliveries(s.ctx.db, { limit: 10 })).filter((d) => d.state === 'delivered')).toHaveLength(1);
  });
});
