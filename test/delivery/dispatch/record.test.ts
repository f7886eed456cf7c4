/**
 * Recording results: the batching of results into one transaction (and their wait while another
 * process holds the lock). What a result does to its row: test/domain/delivery-rules.test.ts.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { SendResult, Sent } from '../../../src/delivery/dispatch/job.js';
import { BUSY_RETRY_MS, FLUSH_BATCH, FLUSH_DELAY_MS, ORDERED_FLUSH_DELAY_MS, Recorder } from '../../../src/delivery/dispatch/record.js';
import { EventSignatures } from '../../../src/delivery/event-signatures.js';
import { endsWebhook } from '../../../src/domain/delivery-rules.js';
import { getDelivery } from '../../../src/store/deliveries.js';
import { listAttempts } from '../../../src/store/delivery-attempts.js';
import { getWebhookById } from '../../../src/store/webhooks.js';
import { onPostgres } from '../../support/postgres.js';
import { holdWriteLock } from '../../support/write-lock.js';
import { claimedJobs, SHORT } from './support.js';

const policy = { scheduleSeconds: [0, 5, 60], jitter: 0.2 };
const answer = (statusCode: number, retryAfter?: string): SendResult => ({
  statusCode,
  error: null,
  responseBody: '',
  retryAfter,
  durationMs: 3,
});
const noAnswer: SendResult = {
  statusCode: null,
  error: 'TimeoutError: no complete answer within 10000 ms',
  responseBody: null,
  retryAfter: undefined,
  durationMs: 3,
};

describe('the recorder', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  /** Claimed rows, a recorder for them, and how each of their results is handed to it. */
  async function recording(n: number) {
    const s = await claimedJobs(n, 'me', SHORT);
    const ended: string[] = [];
    const recorder = new Recorder(s.ctx, {
      owner: 'me',
      policy,
      random: () => 0.5,
      signatures: new EventSignatures(s.ctx),
      ended: (id) => ended.push(id),
    });
    const recorded: string[] = [];
    const add = (i: number, result: SendResult): Sent => {
      const job = s.jobs[i]!;
      const sent = {
        job,
        startedMs: s.ctx.clock.now(),
        result,
        done: () => recorded.push(job.id),
        endsWebhook: endsWebhook(policy, job, result),
      };
      recorder.add(sent);
      return sent;
    };
    return { ...s, recorder, ended, recorded, add };
  }

  it('records results that finish close together in one transaction, at most FLUSH_DELAY_MS after the first', async () => {
    const { ctx, jobs, recorder, recorded, add } = await recording(3);
    // While the dispatcher runs, a flush's transaction is one that does not wait for another process's lock.
    const transactions = vi.spyOn(ctx.db, 'tryTransaction');
    const flushes = vi.spyOn(recorder, 'flush');
    add(0, answer(200));
    add(1, answer(500));
    add(2, noAnswer);
    expect([recorder.waiting, recorded.length, (await listAttempts(ctx.db, jobs[0]!.id)).length]).toEqual([3, 0, 0]);
    await new Promise((r) => setTimeout(r, FLUSH_DELAY_MS + 50));
    // The flush began within those milliseconds; it is async, so its end is waited for, not guessed.
    expect(flushes).toHaveBeenCalledTimes(1);
    await flushes.mock.results[0]!.value;
    expect(transactions).toHaveBeenCalledTimes(1);
    expect(recorded).toEqual(jobs.map((j) => j.id));
    expect(recorder.waiting).toBe(0);
    expect(await getDelivery(ctx.db, jobs[0]!.id)).toMatchObject({ state: 'delivered', attempts: 1, lastStatus: 200 });
    expect(await getDelivery(ctx.db, jobs[1]!.id)).toMatchObject({ state: 'pending', attempts: 1, step: 1, lastStatus: 500 });
    expect(Date.parse((await getDelivery(ctx.db, jobs[1]!.id))!.nextAttemptAt) - ctx.clock.now()).toBe(5_000);
    expect(await getDelivery(ctx.db, jobs[2]!.id)).toMatchObject({ state: 'pending', attempts: 1, lastStatus: null });
    expect((await listAttempts(ctx.db, jobs[2]!.id)).map((a) => a.error)).toEqual([noAnswer.error]);
  });

  it('records a full batch at once, without waiting for the delay', async () => {
    const { ctx, jobs, recorder, recorded, add } = await recording(FLUSH_BATCH);
    const flushes = vi.spyOn(recorder, 'flush');
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    for (let i = 0; i < FLUSH_BATCH - 1; i++) add(i, answer(200));
    await new Promise((r) => setImmediate(r));
    // One short of a batch: it waits for the delay, which has not passed.
    expect(flushes).not.toHaveBeenCalled();
    expect(recorded).toHaveLength(0);
    add(FLUSH_BATCH - 1, answer(200));
    await new Promise((r) => setImmediate(r));
    // Begun at once (the delay's timer is fake and never fires); the flush is async, so its end is waited for.
    expect(flushes).toHaveBeenCalledTimes(1);
    await flushes.mock.results[0]!.value;
    expect(recorded).toHaveLength(FLUSH_BATCH);
    const states = new Set<string>();
    for (const j of jobs) states.add((await getDelivery(ctx.db, j.id))!.state);
    expect([...states]).toEqual(['delivered']);
  });

  it("waits longer for company in a batch of unordered results than with an ordered webhook's result in it", async () => {
    expect(FLUSH_DELAY_MS).toBeGreaterThan(ORDERED_FLUSH_DELAY_MS);
    const { jobs, recorder, recorded, add } = await recording(3);
    const flushes = vi.spyOn(recorder, 'flush');
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    add(0, answer(200));
    vi.advanceTimersByTime(ORDERED_FLUSH_DELAY_MS);
    // Unordered: more results may still share its transaction (and its WAL writes).
    expect(flushes).not.toHaveBeenCalled();
    vi.advanceTimersByTime(FLUSH_DELAY_MS - ORDERED_FLUSH_DELAY_MS - 1);
    expect(flushes).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(flushes).toHaveBeenCalledTimes(1);
    await flushes.mock.results[0]!.value;
    expect(recorded).toEqual([jobs[0]!.id]);

    // A result of an ordered webhook shortens the wait of the batch it joins: the next row of its line waits for it.
    add(1, answer(200));
    vi.advanceTimersByTime(1);
    jobs[2]!.webhook = { ...jobs[2]!.webhook, ordering: 'resource' };
    add(2, answer(200));
    vi.advanceTimersByTime(ORDERED_FLUSH_DELAY_MS);
    expect(flushes).toHaveBeenCalledTimes(2);
    await flushes.mock.results[1]!.value;
    expect(recorded).toEqual(jobs.map((j) => j.id));
  });

  it('writes a batch waiting for company at once when the dispatcher stops, and waits for none after', async () => {
    const { jobs, recorder, recorded, add } = await recording(3);
    const flushes = vi.spyOn(recorder, 'flush');
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    add(0, answer(200));
    add(1, answer(200));
    vi.advanceTimersByTime(FLUSH_DELAY_MS - 1);
    expect(flushes).not.toHaveBeenCalled();
    recorder.stopping();
    expect(flushes).toHaveBeenCalledTimes(1);
    await flushes.mock.results[0]!.value;
    expect(recorded).toEqual(jobs.slice(0, 2).map((j) => j.id));
    // A send that ends during the stop: its result is written on the next turn, not FLUSH_DELAY_MS later.
    add(2, answer(200));
    vi.advanceTimersByTime(0);
    expect(flushes).toHaveBeenCalledTimes(2);
    await flushes.mock.results[1]!.value;
    expect(recorded).toEqual(jobs.map((j) => j.id));
  });

  it('disables the webhook a result ends, and tells it once that result is recorded', async () => {
    const { ctx, webhook, jobs, recorder, ended, recorded, add } = await recording(2);
    add(0, answer(200));
    add(1, answer(410));
    expect(ended).toEqual([]);
    await recorder.flush();
    expect(ended).toEqual([webhook.id]);
    expect(recorded).toEqual(jobs.map((j) => j.id));
    expect(await getDelivery(ctx.db, jobs[1]!.id)).toMatchObject({ state: 'failed', attempts: 1, lastStatus: 410 });
    expect(await getWebhookById(ctx.db, webhook.id)).toMatchObject({ enabled: false, disabledReason: 'endpoint answered 410 Gone' });
  });

  // PostgreSQL has no database-wide write lock: tryTransaction always runs there.
  it.skipIf(onPostgres)(
    'keeps results in memory while another process holds the write lock, and records them once it is free',
    async () => {
      const { ctx, jobs, recorder, recorded, add } = await recording(2);
      const other = holdWriteLock(ctx.config.database.path);
      try {
        add(0, answer(200));
        add(1, answer(200));
        await recorder.flush();
        // Not recorded, not lost: tried again on a timer, never in SQLite's busy wait.
        expect([recorder.waiting, recorded.length, (await listAttempts(ctx.db, jobs[0]!.id)).length]).toEqual([2, 0, 0]);
        await new Promise((r) => setTimeout(r, 3 * BUSY_RETRY_MS));
        expect(recorded).toHaveLength(0);
        other.release();
        await vi.waitFor(() => expect(recorded).toHaveLength(2));
        const states: string[] = [];
        const attempts: number[] = [];
        for (const j of jobs) {
          states.push((await getDelivery(ctx.db, j.id))!.state);
          attempts.push((await listAttempts(ctx.db, j.id)).length);
        }
        expect(states).toEqual(['delivered', 'delivered']);
        expect(attempts).toEqual([1, 1]);
      } finally {
        other.release();
      }
    },
  );
});
