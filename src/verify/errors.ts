/**
 * The error borderd/verify throws, and the helpers that tell its kinds apart.
 *
 * @module verify/errors
 */
/**
 * Why a delivery failed verification, as a stable `code` integrators can switch on (messages may
 * change; codes do not).
 */
export type WebhookVerificationCode =
  | 'missing_header'
  | 'malformed_signature'
  | 'no_key_matches'
  | 'body_not_raw'
  | 'invalid_json'
  | 'no_public_key'
  /** The key given to verify with is not a readable public key: the integrator's setup, not the delivery. */
  | 'invalid_public_key'
  /** The webhook secret given to verify with is not a `whsec_…` secret: the integrator's setup, not the delivery. */
  | 'invalid_secret'
  /** The tolerance given is not a finite number of seconds ≥ 0: the integrator's setup, refused before any delivery. */
  | 'invalid_tolerance'
  /** `webhook-timestamp` is not whole unix seconds. */
  | 'invalid_timestamp'
  /** `webhook-timestamp` is further in the past than the tolerance: a replay, or a receiver clock that runs ahead. */
  | 'timestamp_too_old'
  /** `webhook-timestamp` is further in the future than the tolerance: a sender clock that runs ahead. */
  | 'timestamp_too_new'
  /** No `v1` signature of `webhook-signature` matches a secret given. */
  | 'no_secret_matches';

export class WebhookVerificationError extends Error {
  override readonly name = 'WebhookVerificationError';
  constructor(
    readonly code: WebhookVerificationCode,
    message: string,
    /** For `no_public_key`: the HTTP status borderd answered the token or key request with, if it answered. */
    readonly status?: number,
  ) {
    super(message);
  }
}

/**
 * The key could not be had because borderd refused the credentials (or the request) itself: a
 * 400, 401 or 403 to the token or key request. Asking again cannot help; an unreachable borderd can.
 */
export const isRefusedByBorderd = (err: unknown): boolean =>
  err instanceof WebhookVerificationError && err.status !== undefined && [400, 401, 403].includes(err.status);

export const isWebhookVerificationError = (err: unknown): err is WebhookVerificationError => err instanceof WebhookVerificationError;
