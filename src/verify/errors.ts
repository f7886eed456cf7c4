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
  | 'no_public_key';

export class WebhookVerificationError extends Error {
  override readonly name = 'WebhookVerificationError';
  constructor(
    readonly code: WebhookVerificationCode,
    message: string,
  ) {
    super(message);
  }
}

export const isWebhookVerificationError = (err: unknown): err is WebhookVerificationError => err instanceof WebhookVerificationError;
