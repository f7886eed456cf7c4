/**
 * What one delivery carries through a dispatch, stage by stage: a claimed `Job` waits for its send
 * slot and signature and is checked before it goes; its one send gives a `SendResult`, an answer or
 * none; a `Sent` job waits for that result to be recorded with its batch.
 *
 * @module delivery/dispatch/job
 */
import type { KeyObject } from 'node:crypto';
import { SIGNING_FAILED, type AttemptResult } from '../../domain/delivery-rules.js';
import type { ClaimedDelivery, DueWebhook } from '../../store/delivery-claims.js';
import type { LeasedRow } from './leases.js';

export { REFUSED_ADDRESS } from '../../domain/delivery-rules.js';

/** One claimed delivery on its way: its leased row (leases.ts) and what its send needs. */
export interface Job extends LeasedRow {
  /** Resolves once the result is recorded (or the job is dropped at shutdown). */
  done: Promise<void>;
  resolve: () => void;
  webhook: DueWebhook;
  attempts: number;
  /** The row's due time when it was claimed, or when a replay reset it while it waited: which cycle this attempt belongs to. */
  nextAttemptAt: number;
  eventType: string;
  body: string;
  /** The traceparent the event was written under, or null. */
  traceContext: string | null;
  signature: Promise<string>;
  /** The webhook's Standard Webhooks secret keys signing now (current first), none before its first secret, or why they could not be opened. */
  secretKeys: readonly Buffer[] | Error;
  /** For a webhook that opted in to v1a: its organization's current Ed25519 private key, or why it could not be had. */
  v1aKey?: KeyObject | Error;
}

/** What a pass adds to a claimed row to make its job: the event it sends, how it is signed, what its claim read. */
export type JobParts = Pick<Job, 'eventType' | 'body' | 'traceContext' | 'keyId' | 'signature' | 'secretKeys' | 'claim' | 'v1aKey'>;

/**
 * A claimed row as a job. `onOver` runs first when the job is over (recorded or dropped), before
 * `done` resolves: the dispatcher lets go of the row's lease there, so the row may be claimed again
 * at once, not a microtask later.
 */
export function jobOf(row: ClaimedDelivery, webhook: DueWebhook, parts: JobParts, onOver?: () => void): Job {
  let settle!: () => void;
  const done = new Promise<void>((r) => (settle = r));
  return {
    done,
    resolve: () => {
      onOver?.();
      settle();
    },
    id: row.id,
    eventId: row.eventId,
    webhook,
    attempts: row.attempts,
    step: row.step,
    nextAttemptAt: row.nextAttemptAt,
    ...parts,
  };
}

/** What one attempt came to: an endpoint's answer (any status), or no answer and why. */
export interface SendResult extends AttemptResult {
  responseBody: string | null;
  retryAfter: string | undefined;
  durationMs: number;
  /**
   * What the attempt stores of the headers its request went out with (delivery-headers.ts
   * storedHeaders; the others are derived when it is read); absent when no request was made.
   */
  requestHeaders?: Readonly<Record<string, string>>;
  /** The x-signature the request carried: recorded with the attempt, so the attempts view always finds it in event_signatures. */
  signature?: string;
}

/** A job whose send is over, waiting for its result to be recorded. */
export interface Sent {
  job: Job;
  startedMs: number;
  result: SendResult;
  /** Called once the result's batch is recorded (or could not be). */
  done: () => void;
  /** This result disables the webhook once recorded (410, or the last attempt of its cycle failed). */
  endsWebhook: boolean;
}

/** The result of an attempt that sent nothing because it could not be signed (the key could not be opened, the event is gone). */
export function signingFailed(err: unknown): SendResult {
  const message = err instanceof Error ? err.message : String(err);
  return {
    statusCode: null,
    error: `${SIGNING_FAILED}${message}`.slice(0, 500),
    responseBody: null,
    retryAfter: undefined,
    durationMs: 0,
    borderdFault: true,
  };
}
