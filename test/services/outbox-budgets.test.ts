import { describe, expect, it } from 'vitest';
import { webhooksSchema } from '../../src/config/schema.js';
import { ManualClock } from '../../src/domain/clock.js';
import { BorderdError } from '../../src/domain/errors.js';
import { OutboxBudgets } from '../../src/services/outbox-budgets.js';

const budgets = (overrides: Record<string, unknown> = {}) => {
  const clock = new ManualClock();
  return { clock, budgets: new OutboxBudgets(webhooksSchema.parse(overrides), clock) };
};

const refusal = async (p: Promise<unknown>) => {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(BorderdError);
  const e = err as BorderdError;
  return { status: e.status, code: e.code, retryAfter: e.extra.headers?.['Retry-After'] };
};

describe('the budgets of replays and test events', () => {
  it('runs one replay per webhook at a time; another webhook, or another organization, is not held', async () => {
    const { budgets: b } = budgets();
    let finish!: () => void;
    const first = b.replay('org_a', 'whk_1', () => new Promise<string>((r) => (finish = () => r('first done'))));
    expect(await refusal(b.replay('org_a', 'whk_1', async () => 'second'))).toEqual({
      status: 429,
      code: 'replay_in_progress',
      retryAfter: '1',
    });
    expect(await b.replay('org_a', 'whk_2', async () => 'other webhook')).toBe('other webhook');
    expect(await b.replay('org_b', 'whk_1', async () => 'other organization')).toBe('other organization');
    finish();
    expect(await first).toBe('first done');
    // Over once it ended, whether it succeeded or failed.
    await expect(
      b.replay('org_a', 'whk_1', async () => {
        throw new Error('replay failed');
      }),
    ).rejects.toThrow('replay failed');
    expect(await b.replay('org_a', 'whk_1', async () => 'again')).toBe('again');
  });

  it('counts the events a replay names against the hour, gives back what it did not queue, and refills', async () => {
    const { clock, budgets: b } = budgets({ replayEventsPerHour: 10 });
    await b.replay('org_a', 'whk_1', async (charge) => charge(8)(8));
    expect(await refusal(b.replay('org_a', 'whk_2', async (charge) => charge(3)(3)))).toEqual({
      status: 429,
      code: 'replay_budget_exhausted',
      retryAfter: '360', // one event refills every 6 minutes
    });
    // Another organization has its own budget.
    await b.replay('org_b', 'whk_9', async (charge) => charge(10)(10));
    // Named 2, queued none (already pending): both given back.
    await b.replay('org_a', 'whk_1', async (charge) => charge(2)(0));
    await b.replay('org_a', 'whk_1', async (charge) => charge(2)(2));
    expect((await refusal(b.replay('org_a', 'whk_1', async (charge) => charge(1)(1)))).code).toBe('replay_budget_exhausted');
    clock.advance(360_000);
    await b.replay('org_a', 'whk_1', async (charge) => charge(1)(1));
    // More than an hour's budget can never fit: a 400, not a wait.
    expect(await refusal(b.replay('org_a', 'whk_1', async (charge) => charge(11)(11)))).toEqual({
      status: 400,
      code: 'replay_too_large',
      retryAfter: undefined,
    });
  });

  it('counts test events per minute, giving back one that was refused', async () => {
    const { clock, budgets: b } = budgets({ testEventsPerMinute: 2 });
    await b.testEvent('org_a', async () => 'sent');
    await expect(
      b.testEvent('org_a', async () => {
        throw new BorderdError(409, 'webhook_disabled', 'disabled');
      }),
    ).rejects.toThrow('disabled');
    await b.testEvent('org_a', async () => 'sent');
    expect(await refusal(b.testEvent('org_a', async () => 'sent'))).toEqual({
      status: 429,
      code: 'test_event_budget_exhausted',
      retryAfter: '30',
    });
    expect(await b.testEvent('org_b', async () => 'other organization')).toBe('other organization');
    clock.advance(30_000);
    expect(await b.testEvent('org_a', async () => 'refilled')).toBe('refilled');
  });
});
