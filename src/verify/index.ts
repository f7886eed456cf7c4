/**
 * borderd/verify: check that a webhook delivery was signed by borderd and get its typed event.
 * Runtime dependencies: node:crypto only (and the global fetch for fetchPublicKey and fetchJwks).
 *
 * @module verify/index
 */
export * from './events.js';
export { WebhookVerificationError, isWebhookVerificationError, type WebhookVerificationCode } from './errors.js';
export {
  verifySignature,
  verifyWebhook,
  headerValue,
  SIGNATURE_HEADER,
  KEY_ID_HEADER,
  EVENT_ID_HEADER,
  EVENT_TYPE_HEADER,
  type PublicKeyInput,
  type RawBody,
  type HeaderBag,
} from './signature.js';
export {
  verifyStandardWebhook,
  standardWebhookHeaders,
  hasStandardWebhookHeaders,
  signatureV1,
  secretKey,
  WEBHOOK_ID_HEADER,
  WEBHOOK_TIMESTAMP_HEADER,
  WEBHOOK_SIGNATURE_HEADER,
  SECRET_PREFIX,
  DEFAULT_TOLERANCE_SECONDS,
  type WebhookSecretInput,
  type StandardWebhookOptions,
} from './standard-webhooks.js';
export {
  verifyStandardWebhookV1a,
  signatureV1a,
  hasV1aSignature,
  PUBLIC_KEY_PREFIX,
  type Ed25519PublicKeyInput,
  type Ed25519Jwk,
} from './standard-webhooks-v1a.js';
export { fetchJwks, jwksPath, type JwksSource } from './jwks.js';
export {
  fetchPublicKey,
  fetchAccessToken,
  PUBLIC_KEY_PATH,
  TOKEN_PATH,
  DEFAULT_MIN_REFRESH_INTERVAL_MS,
  type OrgPublicKey,
  type ClientCredentials,
  type PublicKeySource,
  type FetchPublicKeyOptions,
} from './public-key.js';
export {
  createWebhookMiddleware,
  type WebhookMiddleware,
  type WebhookMiddlewareOptions,
  type WebhookRequest,
  type WebhookResponse,
  type WebhookNext,
} from './middleware.js';
export { createTestSigner, type TestSigner, type SignedDelivery } from './test-signer.js';
export {
  isTestEvent,
  testEventType,
  TEST_EVENT_PREFIX,
  type TestEventType,
  type TestEventData,
  type TestWebhookEvent,
} from './test-events.js';
