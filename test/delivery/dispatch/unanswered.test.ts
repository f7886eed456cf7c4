/**
 * Endpoints that stopped answering send one at a time until an answer comes back, and a process
 * that starts learns so from the database.
 */
import { describe, expect, it } from 'vitest';
import { SIGNING_FAILED } from '../../../src/domain/delivery-rules.js';
import { UnansweredEndpoints } from '../../../src/delivery/dispatch/unanswered.js';
import { finishAttempt } from '../../../src/store/delivery-results.js';
import { claimedJobs } from './support.js';

describe('endpoints that stop answering', () => {
  it('get one send slot after a send with no answer, and all of them back after any answer', async () => {
    const { ctx, webhook } = await claimedJobs(1, 'me');
    const endpoints = new UnansweredEndpoints(ctx.db, { perEndpointConcurrency: 4 });
    await endpoints.firstSight(webhook.id);
    expect(endpoints.slotsOf(webhook.id)).toBe(4);
    endpoints.heard(webhook.id, null);
    expect([endpoints.slotsOf(webhook.id), endpoints.slotsOf('another')]).toEqual([1, 4]);
    endpoints.heard(webhook.id, 500);
    expect(endpoints.slotsOf(webhook.id)).toBe(4);
  });

  it('on first sight, start at one slot when the webhook’s last retried send got no answer, not when it failed on borderd’s side', async () => {
    for (const [error, slots] of [
      ['TimeoutError: no complete answer within 10000 ms', 1],
      [`${SIGNING_FAILED}bad key`, 4],
    ] as const) {
      const { ctx, webhook, rows } = await claimedJobs(1, 'me');
      const row = rows[0]!;
      const at = new Date(ctx.clock.now()).toISOString();
      const next = {
        state: 'pending' as const,
        attempts: 1,
        step: 1,
        nextAttemptAt: ctx.clock.now() + 5_000,
        lastStatus: null,
        deliveredAt: null,
        at,
      };
      expect(await finishAttempt(ctx.db, row.id, 'me', { ...next, lastError: error })).toBe(true);
      const endpoints = new UnansweredEndpoints(ctx.db, { perEndpointConcurrency: 4 });
      await endpoints.firstSight(webhook.id);
      expect(endpoints.slotsOf(webhook.id)).toBe(slots);
      // Read once: after that, this process's own sends say.
      endpoints.heard(webhook.id, 200);
      await endpoints.firstSight(webhook.id);
      expect(endpoints.slotsOf(webhook.id)).toBe(4);
    }
  });

  it('forget the webhooks with nothing in hand, with what was known of them', async () => {
    const { ctx, webhook } = await claimedJobs(1, 'me');
    const endpoints = new UnansweredEndpoints(ctx.db, { perEndpointConcurrency: 4 });
    await endpoints.firstSight(webhook.id);
    await endpoints.firstSight('wh_other');
    endpoints.heard(webhook.id, null);
    endpoints.heard('wh_other', null);
    expect(endpoints.tracked).toBe(2);
    endpoints.forget((id) => id === 'wh_other');
    expect([endpoints.tracked, endpoints.slotsOf(webhook.id), endpoints.slotsOf('wh_other')]).toEqual([1, 1, 4]);
  });
});
