/**
 * Signs events the way borderd does, with a throwaway key pair, so integrators can test their
 * receivers without a running borderd. Never use it to verify production traffic.
 *
 * @module verify/test-signer
 */
import { generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';
import type { AnyWebhookEvent, EventDataByType, EventType, WebhookEvent } from './events.js';
import { SECRET_PREFIX, secretKey, standardWebhookHeaders } from './standard-webhooks.js';

export interface SignedDelivery<E = AnyWebhookEvent> {
  event: E;
  /** The exact bytes to POST. */
  body: string;
  headers: Record<string, string>;
}

export interface TestSigner {
  keyId: string;
  /** PEM (SPKI) to hand to verifyWebhook or createWebhookMiddleware. */
  publicKey: string;
  privateKey: KeyObject;
  /** A throwaway `whsec_…` secret: the webhook-signature of every delivery verifies with it (webhookSecret of the middleware). */
  webhookSecret: string;
  /** base64 RSA-SHA256 over the exact bytes. */
  sign(body: string | Buffer): string;
  /** Builds an event (id, organizationId and times filled in unless given) and signs its body. */
  signEvent<T extends EventType>(
    type: T,
    data: EventDataByType[T],
    overrides?: Partial<Omit<WebhookEvent<T>, 'type' | 'data'>>,
  ): SignedDelivery<WebhookEvent<T>>;
  /** Signs a body exactly as given (for tests of odd bodies). */
  signBody(body: string, extraHeaders?: Record<string, string>): SignedDelivery<unknown>;
}

const rid = (prefix: string) => `${prefix}_test${randomBytes(8).toString('hex')}`;

/**
 * `now` (ms, default Date.now) sets each delivery's `webhook-timestamp`: an old one makes a
 * delivery that a receiver's replay window refuses.
 */
export function createTestSigner(opts: { keyId?: string; modulusLength?: number; now?: () => number } = {}): TestSigner {
  const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: opts.modulusLength ?? 2048 });
  const keyId = opts.keyId ?? rid('wsk');
  const signBytes = (body: string | Buffer) =>
    sign('sha256', typeof body === 'string' ? Buffer.from(body) : body, privateKey).toString('base64');
  const webhookSecret = SECRET_PREFIX + randomBytes(32).toString('base64');
  const hmacKey = secretKey(webhookSecret);
  const headersFor = (body: string, id: string, type: string): Record<string, string> => ({
    'content-type': 'application/json',
    'user-agent': 'borderd-test-signer',
    'x-signature': signBytes(body),
    'x-signature-key-id': keyId,
    'x-event-id': id,
    'x-event-type': type,
    'x-delivery-attempt': '1',
    ...standardWebhookHeaders([hmacKey], id, Math.floor((opts.now ?? Date.now)() / 1000), body),
  });
  return {
    keyId,
    publicKey: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    privateKey,
    webhookSecret,
    sign: signBytes,
    signEvent(type, data, overrides = {}) {
      const createdAt = overrides.createdAt ?? new Date().toISOString();
      const event = {
        id: overrides.id ?? rid('evt'),
        type,
        organizationId: overrides.organizationId ?? rid('org'),
        createdAt,
        timestamp: overrides.timestamp ?? Date.parse(createdAt),
        data,
      } as WebhookEvent<typeof type>;
      const body = JSON.stringify(event);
      return { event, body, headers: headersFor(body, event.id, type) };
    },
    signBody(body, extraHeaders = {}) {
      let id = 'evt_unknown';
      let type = 'unknown';
      try {
        const parsed = JSON.parse(body) as { id?: unknown; type?: unknown };
        if (typeof parsed.id === 'string') id = parsed.id;
        if (typeof parsed.type === 'string') type = parsed.type;
      } catch {
        // Odd bodies are the point of this method.
      }
      return { event: undefined, body, headers: { ...headersFor(body, id, type), ...extraHeaders } };
    },
  };
}
