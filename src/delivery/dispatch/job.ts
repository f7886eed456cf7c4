/**
 * What one delivery carries through a dispatch, stage by stage: a claimed `Job` waits for its send
 * slot and signature and is checked before it goes; its one send gives a `SendResult`, an answer or
 * none; a `Sent` job waits for that result to be recorded with its batch.
 *
 * @module delivery/dispatch/job
 */
import type { KeyObject } from 'node:crypto';
import type { DueWebhook } from '../../store/deliveries.js';

/** How an attempt that could not be signed starts its error: borderd's fault, not the endpoint's. */
export const SIGNING_FAILED = 'signing failed: ';
/** How the error of an attempt to a refused target (private, loopback or link-local) starts. */
export const REFUSED_ADDRESS = 'address refused: ';

/** One claimed delivery on its way: what its send needs. */
export interface Job {
  /** Resolves once the result is recorded (or the job is dropped at shutdown). */
  done: Promise<void>;
  resolve: () => void;
  id: string;
  eventId: string;
  webhook: DueWebhook;
  attempts: number;
  step: number;
  /** The row's due time when it was claimed, or when a replay reset it while it waited: which cycle this attempt belongs to. */
  nextAttemptAt: number;
  eventType: string;
  body: string;
  /** The traceparent the event was written under, or null. */
  traceContext: string | null;
  keyId: string | null;
  signature: Promise<string>;
  /** The webhook's Standard Webhooks secret keys signing now (current first), none before its first secret, or why they could not be opened. */
  secretKeys: readonly Buffer[] | Error;
  /** For a webhook that opted in to v1a: its organization's current Ed25519 private key, or why it could not be had. */
  v1aKey?: KeyObject | Error;
}

/** What one attempt came to: an endpoint's answer (any status), or no answer and why. */
export interface SendResult {
  statusCode: number | null;
  error: string | null;
  responseBody: string | null;
  retryAfter: string | undefined;
  durationMs: number;
  /** Nothing was sent because of a fault on borderd's side (signing): never counted against the endpoint. */
  ours?: boolean;
  /** The headers of the request made, exactly as they went out; absent when no request was made. */
  requestHeaders?: Readonly<Record<string, string>>;
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

/** Whether an endpoint's answer counts as delivered: a 2xx, nothing else. */
export const delivered = (statusCode: number | null): boolean => statusCode !== null && statusCode >= 200 && statusCode < 300;

/** The result of an attempt that sent nothing because it could not be signed (the key could not be opened, the event is gone). */
export function signingFailed(err: unknown): SendResult {
  const message = err instanceof Error ? err.message : String(err);
  return {
    statusCode: null,
    error: `${SIGNING_FAILED}${message}`.slice(0, 500),
    responseBody: null,
    retryAfter: undefined,
    durationMs: 0,
    ours: true,
  };
}

/** What an attempt came to, in the few words operators count by (the `outcome` label of borderd_delivery_attempts_total). */
export type AttemptOutcome = 'success' | 'http_error' | 'timeout' | 'connect_error' | 'refused_address' | 'signing_error';

export function attemptOutcome(result: SendResult): AttemptOutcome {
  if (result.ours) return 'signing_error';
  if (result.statusCode !== null) return delivered(result.statusCode) ? 'success' : 'http_error';
  if (result.error?.startsWith(REFUSED_ADDRESS)) return 'refused_address';
  if (result.error?.startsWith('TimeoutError') || result.error?.startsWith('UND_ERR_CONNECT_TIMEOUT')) return 'timeout';
  return 'connect_error';
}
