/**
 * The delivery rules: what an attempt's result does to its delivery (delivered, failed for good,
 * retried and when), the label it is counted by, and the SQL of "succeeded" agreeing with the 2xx rule.
 */
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import {
  attemptOutcomeLabel,
  attemptVerdict,
  delivered,
  endsWebhook,
  gone,
  nextAttemptAt,
  REFUSED_ADDRESS,
  retryable,
  SIGNING_FAILED,
  succeededSql,
  type AttemptResult,
} from '../../src/domain/delivery-rules.js';

const policy = { scheduleSeconds: [0, 5, 60], jitter: 0.2 };
const answer = (statusCode: number, retryAfter?: string): AttemptResult => ({ statusCode, error: null, retryAfter });
const noAnswer: AttemptResult = { statusCode: null, error: 'TimeoutError: no complete answer within 10000 ms' };
const borderdFault: AttemptResult = { statusCode: null, error: `${SIGNING_FAILED}bad key`, borderdFault: true };
const never = () => {
  throw new Error('no jitter is drawn for a row that is not retried');
};

describe('delivered', () => {
  it('is a 2xx and nothing else', () => {
    expect([200, 201, 204, 299].map(delivered)).toEqual([true, true, true, true]);
    expect([null, 100, 199, 300, 304, 410, 500].map(delivered)).toEqual([false, false, false, false, false, false, false]);
  });

  it('is what the SQL of "succeeded" counts, for every status and for none', () => {
    const db = new Database(':memory:');
    try {
      const statuses = [null, 100, 199, 200, 204, 299, 300, 410, 503];
      const succeeded = db.prepare(`SELECT COALESCE(${succeededSql('s')}, 0) FROM (SELECT ? AS s)`).pluck();
      expect(statuses.map((s) => succeeded.get(s) === 1)).toEqual(statuses.map(delivered));
    } finally {
      db.close();
    }
  });
});

describe('what a result does to its delivery', () => {
  it('ends the webhook on a 410 or a failed last attempt of the cycle, never on a success or on borderd’s own fault', () => {
    expect(gone(410)).toBe(true);
    expect(gone(404)).toBe(false);
    expect(endsWebhook(policy, { step: 0 }, answer(410))).toBe(true);
    expect(endsWebhook(policy, { step: 2 }, answer(500))).toBe(true);
    expect(endsWebhook(policy, { step: 2 }, noAnswer)).toBe(true);
    expect(endsWebhook(policy, { step: 1 }, answer(500))).toBe(false);
    expect(endsWebhook(policy, { step: 2 }, answer(204))).toBe(false);
    expect(endsWebhook(policy, { step: 2 }, borderdFault)).toBe(false);
  });

  it('is delivered, failed for good, or retried', () => {
    expect(attemptVerdict(policy, { step: 2 }, answer(204))).toBe('delivered');
    expect(attemptVerdict(policy, { step: 0 }, answer(410))).toBe('failed');
    expect(attemptVerdict(policy, { step: 2 }, noAnswer)).toBe('failed');
    expect(attemptVerdict(policy, { step: 1 }, answer(503))).toBe('retry');
    expect(attemptVerdict(policy, { step: 2 }, borderdFault)).toBe('retry');
    expect(retryable(policy, { step: 1 }, noAnswer)).toBe(true);
    expect(retryable(policy, { step: 1 }, answer(200))).toBe(false);
    expect(retryable(policy, { step: 1 }, answer(410))).toBe(false);
  });

  it('is due again after the schedule’s next delay, jittered; not retried when delivered or ended', () => {
    const now = 1_000_000;
    expect(nextAttemptAt(policy, { step: 0 }, answer(500), now, () => 0.5, 0)).toBe(now + 5_000);
    expect(nextAttemptAt(policy, { step: 0 }, noAnswer, now, () => 0.9, 0)).toBe(now + 5_800);
    expect(nextAttemptAt(policy, { step: 1 }, answer(500), now, () => 0.1, 0)).toBe(now + 50_400);
    expect(nextAttemptAt(policy, { step: 0 }, answer(200), now, never, 0)).toBe(now);
    expect(nextAttemptAt(policy, { step: 0 }, answer(410), now, never, 0)).toBe(now);
    expect(nextAttemptAt(policy, { step: 2 }, answer(500), now, never, 0)).toBe(now);
  });

  it('stretches the wait by a 429 or 503’s Retry-After, within 1x to 2x of the scheduled delay, and ignores it on other statuses', () => {
    const now = 1_000_000;
    expect(nextAttemptAt(policy, { step: 0 }, answer(503, '3600'), now, () => 0.5, 0)).toBe(now + 10_000);
    expect(nextAttemptAt(policy, { step: 0 }, answer(429, '7'), now, () => 0.5, 0)).toBe(now + 7_000);
    expect(nextAttemptAt(policy, { step: 1 }, answer(429, '7'), now, () => 0.5, 0)).toBe(now + 60_000);
    expect(nextAttemptAt(policy, { step: 0 }, answer(500, '3600'), now, () => 0.5, 0)).toBe(now + 5_000);
  });

  it('backs a signing failure off by how many came in a row, never past the schedule’s end, whatever the endpoint’s step', () => {
    const now = 1_000_000;
    expect(nextAttemptAt(policy, { step: 0 }, borderdFault, now, () => 0.5, 1)).toBe(now + 5_000);
    expect(nextAttemptAt(policy, { step: 0 }, borderdFault, now, () => 0.5, 2)).toBe(now + 60_000);
    expect(nextAttemptAt(policy, { step: 0 }, borderdFault, now, () => 0.5, 9)).toBe(now + 60_000);
    expect(nextAttemptAt(policy, { step: 2 }, borderdFault, now, () => 0.5, 1)).toBe(now + 60_000);
  });
});

describe('the outcome label', () => {
  it('names an answer by its class and no answer by why', () => {
    expect(attemptOutcomeLabel(answer(204))).toBe('success');
    expect(attemptOutcomeLabel(answer(410))).toBe('http_error');
    expect(attemptOutcomeLabel(noAnswer)).toBe('timeout');
    expect(attemptOutcomeLabel({ statusCode: null, error: 'UND_ERR_CONNECT_TIMEOUT: connect timeout' })).toBe('timeout');
    expect(attemptOutcomeLabel({ statusCode: null, error: 'ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:9' })).toBe('connect_error');
    expect(attemptOutcomeLabel({ statusCode: null, error: `${REFUSED_ADDRESS}private, loopback or link-local target` })).toBe(
      'refused_address',
    );
    expect(attemptOutcomeLabel(borderdFault)).toBe('signing_error');
  });
});
