import { describe, expect, it } from 'vitest';
import { webhooksSchema } from '../../src/config/schema.js';
import type { Db } from '../../src/db/database.js';
import { ManualClock } from '../../src/domain/clock.js';
import { BorderdError } from '../../src/domain/errors.js';
import { OutboxBudgets } from '../../src/services/outbox-budgets.js';
import { makeContext } from '../support/context.js';

/** The budgets, and the test's database: a handle outside any transaction (`db`), whose rollbacks give nothing back. */
const budgets = async (overrides: Record<string, unknown> = {}) => {
  const clock = new ManualClock();
  const { db } = await makeContext();
  return { clock, db, budgets: new OutboxBudgets(webhooksSchema.parse(overrides), clock) };
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
    const { db, budgets: b } = await budgets();
    let finish!: () => void;
    const first = b.replay(db, 'org_a', 'whk_1', () => new Promise<string>((r) => (finish = () => r('first done'))));
    expect(await refusal(b.replay(db, 'org_a', 'whk_1', async () => 'second'))).toEqual({
      status: 429,
      code: 'replay_in_progress',
      retryAfter: '1',
    });
    expect(await b.replay(db, 'org_a', 'whk_2', async () => 'other webhook')).toBe('other webhook');
    expect(await b.replay(db, 'org_b', 'whk_1', async () => 'other organization')).toBe('other organization');
    finish();
    expect(await first).toBe('first done');
    // Over once it ended, whether it succeeded or failed.
    await expect(
      b.replay(db, 'org_a', 'whk_1', async () => {
        throw new Error('replay failed');
      }),
    ).rejects.toThrow('replay failed');
    expect(await b.replay(db, 'org_a', 'whk_1', async () => 'again')).toBe('again');
  });

  it('counts the events a replay names against the hour, gives back what it did not queue, and refills', async () => {
    const { clock, db, budgets: b } = await budgets({ replayEventsPerHour: 10 });
    await b.replay(db, 'org_a', 'whk_1', async (charge) => charge(8)(8));
    expect(await refusal(b.replay(db, 'org_a', 'whk_2', async (charge) => charge(3)(3)))).toEqual({
      status: 429,
      code: 'replay_budget_exhausted',
      retryAfter: '360', // one event refills every 6 minutes
    });
    // Another organization has its own budget.
    await b.replay(db, 'org_b', 'whk_9', async (charge) => charge(10)(10));
    // Named 2, queued none (already pending): both given back.
    await b.replay(db, 'org_a', 'whk_1', async (charge) => charge(2)(0));
    await b.replay(db, 'org_a', 'whk_1', async (charge) => charge(2)(2));
    expect((await refusal(b.replay(db, 'org_a', 'whk_1', async (charge) => charge(1)(1)))).code).toBe('replay_budget_exhausted');
    clock.advance(360_000);
    await b.replay(db, 'org_a', 'whk_1', async (charge) => charge(1)(1));
    // More than an hour's budget can never fit: a 400, not a wait.
    expect(await refusal(b.replay(db, 'org_a', 'whk_1', async (charge) => charge(11)(11)))).toEqual({
      status: 400,
      code: 'replay_too_large',
      retryAfter: undefined,
    });
  });

  it('counts test events per minute, giving back one that was refused', async () => {
    const { clock, db, budgets: b } = await budgets({ testEventsPerMinute: 2 });
    await b.testEvent(db, 'org_a', async () => 'sent');
    await expect(
      b.testEvent(db, 'org_a', async () => {
        throw new BorderdError(409, 'webhook_disabled', 'disabled');
      }),
    ).rejects.toThrow('disabled');
    await b.testEvent(db, 'org_a', async () => 'sent');
    expect(await refusal(b.testEvent(db, 'org_a', async () => 'sent'))).toEqual({
      status: 429,
      code: 'test_event_budget_exhausted',
      retryAfter: '30',
    });
    expect(await b.testEvent(db, 'org_b', async () => 'other organization')).toBe('other organization');
    clock.advance(30_000);
    expect(await b.testEvent(db, 'org_a', async () => 'refilled')).toBe('refilled');
  });

  it('gives a test event back whatever error its send throws, a raw database error too (storage_full)', async () => {
    const { db, budgets: b } = await budgets({ testEventsPerMinute: 1 });
    const full = Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' });
    await expect(
      b.testEvent(db, 'org_a', async () => {
        throw full;
      }),
    ).rejects.toBe(full);
    expect(await b.testEvent(db, 'org_a', async () => 'sent')).toBe('sent');
    expect((await refusal(b.testEvent(db, 'org_a', async () => 'sent'))).code).toBe('test_event_budget_exhausted');
  });

  it('gives back a replay that threw: the events it was charged for, less what it had given back', async () => {
    const { db, budgets: b } = await budgets({ replayEventsPerHour: 10 });
    await expect(
      b.replay(db, 'org_a', 'whk_1', async (charge) => {
        charge(8)(6);
        throw new Error('requeue failed');
      }),
    ).rejects.toThrow('requeue failed');
    await b.replay(db, 'org_a', 'whk_1', async (charge) => charge(10)(10));
    expect((await refusal(b.replay(db, 'org_a', 'whk_1', async (charge) => charge(1)(1)))).code).toBe('replay_budget_exhausted');
  });

  it('keeps what committed, and gives back what the transaction it ran in rolled back, savepoints and a failed COMMIT included', async () => {
    const { db, budgets: b } = await budgets({ testEventsPerMinute: 1, replayEventsPerHour: 10 });
    const fails = (err: unknown) => expect(err).toBeInstanceOf(Error);
    // Rolled back after the work succeeded: the whole transaction, or the savepoint around it.
    await db
      .transaction(async (tx) => {
        await b.testEvent(tx, 'org_a', async () => 'sent');
        await b.replay(tx, 'org_a', 'whk_1', async (charge) => charge(10)(10));
        throw new Error('rolled back');
      })
      .catch(fails);
    await db
      .transaction(async (tx) => {
        const inner = await tx.savepoint(async (sp: Db) => {
          await b.testEvent(sp, 'org_a', async () => 'sent');
          throw new Error('savepoint rolled back');
        });
        expect(inner.ok).toBe(false);
        // Released into the transaction, then rolled back with it.
        await tx.transaction(async (sp) => {
          await b.replay(sp, 'org_a', 'whk_1', async (charge) => charge(10)(10));
        });
        throw new Error('rolled back after the savepoint was released');
      })
      .catch(fails);
    // COMMIT itself fails (a deferred check, as a full disk fails it): nothing committed, nothing kept.
    await db.exec('CREATE TABLE budget_parent (id INTEGER PRIMARY KEY)');
    await db.exec('CREATE TABLE budget_child (p INTEGER NOT NULL REFERENCES budget_parent(id) DEFERRABLE INITIALLY DEFERRED)');
    await expect(
      db.transaction(async (tx) => {
        await b.testEvent(tx, 'org_a', async () => tx.run('INSERT INTO budget_child (p) VALUES (1)'));
      }),
    ).rejects.toThrow(/foreign key/i);
    // All of it given back: the full budgets fit, and once committed they are kept.
    await db.transaction(async (tx) => {
      await b.testEvent(tx, 'org_a', async () => 'sent');
      await b.replay(tx, 'org_a', 'whk_1', async (charge) => charge(10)(10));
    });
    expect((await refusal(b.testEvent(db, 'org_a', async () => 'sent'))).code).toBe('test_event_budget_exhausted');
    expect((await refusal(b.replay(db, 'org_a', 'whk_1', async (charge) => charge(1)(1)))).code).toBe('replay_budget_exhausted');
  });
});
