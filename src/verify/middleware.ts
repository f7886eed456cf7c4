/**
 * Express-style middleware that reads the raw body itself (so it works with or without
 * express.json elsewhere), verifies it and puts the event on `req.webhookEvent` before calling
 * next(). With a webhook secret every delivery must carry valid Standard Webhooks headers
 * (`webhook-signature`, with the replay window of `webhook-timestamp`): one with `x-signature` alone
 * is refused, since stripping the headers would otherwise skip the window. `allowXSignatureOnly`
 * lets such a delivery through on the public key, for a sender not yet migrated. With a `jwksUrl`
 * and no secret, a delivery's `v1a` signature is verified when it has one. The request, response and next it needs are described structurally below: express's
 * objects (and node's own IncomingMessage / ServerResponse) satisfy them, and the published types
 * never mention express, so an integrator without @types/express compiles them.
 *
 * @module verify/middleware
 */
import { WebhookVerificationError } from './errors.js';
import type { AnyWebhookEvent } from './events.js';
import { fetchJwks } from './jwks.js';
import { fetchPublicKey, type ClientCredentials, type PublicKeySource } from './public-key.js';
import { hasV1aSignature } from './standard-webhooks-v1a.js';
import { headerValue, toKeyList, verifyWebhook, type PublicKeyInput } from './signature.js';
import {
  needsStandardWebhooks,
  secretKeys,
  toleranceOf,
  verifyStandardWebhook,
  type StandardWebhookOptions,
  type WebhookSecretInput,
} from './standard-webhooks.js';

export type WebhookMiddlewareOptions = (
  | { publicKey: PublicKeyInput; publicKeyUrl?: undefined }
  | { publicKeyUrl: string; credentials: ClientCredentials; publicKey?: undefined; minRefreshIntervalMs?: number }
  | { keySource: PublicKeySource; publicKey?: undefined; publicKeyUrl?: undefined }
  /** The organization's JWKS (no credentials): x-signature by its key id, and v1a when there is no webhookSecret. */
  | { jwksUrl: string; publicKey?: undefined; publicKeyUrl?: undefined; keySource?: undefined; minRefreshIntervalMs?: number }
  /** Standard Webhooks alone: a delivery without its headers is refused (400 missing_header). */
  | { webhookSecret: WebhookSecretInput; publicKey?: undefined; publicKeyUrl?: undefined; keySource?: undefined }
) & {
  /** Largest body accepted (default 1 MiB). */
  limitBytes?: number;
  /**
   * The webhook's `whsec_…` secret (or several): every delivery is verified with it, timestamp
   * included; one without the Standard Webhooks headers is refused (400 missing_header).
   */
  webhookSecret?: WebhookSecretInput;
  /**
   * With a webhook secret and a public key: a delivery without the Standard Webhooks headers is
   * verified by `x-signature` alone, with no replay window. Only for a sender that does not send
   * those headers yet; off by default.
   */
  allowXSignatureOnly?: boolean;
  /** Refuse a delivery without the Standard Webhooks headers (400 missing_header): the default with a webhook secret. */
  requireStandardWebhooks?: boolean;
} & StandardWebhookOptions;

/** What the middleware reads from the request: express's Request and node's IncomingMessage fit. */
export interface WebhookRequest {
  headers: Record<string, string | string[] | undefined>;
  /** A Buffer left by express.raw() is used; anything else already parsed is refused (500 body_not_raw). */
  body?: unknown;
  /** True once another parser consumed the stream. */
  readableEnded?: boolean;
  on(event: 'data', listener: (chunk: Buffer) => void): unknown;
  on(event: 'end', listener: () => void): unknown;
  on(event: 'error', listener: (err: Error) => void): unknown;
  /** Set by the middleware: the verified event. */
  webhookEvent?: AnyWebhookEvent;
  /** Set by the middleware: the exact bytes that were verified. */
  rawBody?: Buffer;
}

/** What the middleware writes when it answers itself (415, 400, 413, 500, 503). */
export interface WebhookResponse {
  statusCode: number;
  setHeader(name: string, value: string): unknown;
  end(chunk: string): unknown;
}

export type WebhookNext = (err?: unknown) => void;

export type WebhookMiddleware = (req: WebhookRequest, res: WebhookResponse, next: WebhookNext) => void;

// Express users get a typed `req.webhookEvent` without this package importing express: express's
// own types merge their Request with this global interface (as passport does for req.user).
// Without express it is an unused empty interface.
declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      /** Set by createWebhookMiddleware (borderd/verify): the verified event. */
      webhookEvent?: AnyWebhookEvent;
    }
  }
}

class BodyTooLarge extends Error {}

/**
 * Reads the body up to `limit` bytes. Past it, the rest is read and dropped instead of destroying
 * the request: a destroyed socket would take the 413 with it, and the sender would see a reset.
 * The 413 then closes the connection (node discards what is left of the body meanwhile).
 */
function readBody(req: WebhookRequest, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      if (size > limit) return;
      size += c.length;
      if (size > limit) {
        chunks.length = 0;
        reject(new BodyTooLarge());
      } else chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function problem(res: WebhookResponse, status: number, code: string, detail: string): void {
  res.statusCode = status;
  res.setHeader('content-type', 'application/problem+json');
  res.end(JSON.stringify({ type: 'about:blank', title: code, status, code, detail }));
}

/**
 * Throws WebhookVerificationError `invalid_public_key` at once when a `publicKey` given here cannot
 * be read (a broken PEM, an unset environment variable): the app fails where it is set up instead
 * of answering every delivery with an error. A key that only comes later (a `keySource`) and
 * cannot be read is answered 500 `invalid_public_key`, like the other setup errors.
 */
export function createWebhookMiddleware(opts: WebhookMiddlewareOptions): WebhookMiddleware {
  const limit = opts.limitBytes ?? 1024 * 1024;
  let source: Pick<PublicKeySource, 'verify'> | undefined;
  const jwks = 'jwksUrl' in opts && opts.jwksUrl ? fetchJwks(opts.jwksUrl, { minRefreshIntervalMs: opts.minRefreshIntervalMs }) : undefined;
  let keys: PublicKeyInput | undefined;
  const secret = opts.webhookSecret;
  if (secret !== undefined || 'webhookSecret' in opts) secretKeys(secret);
  else if (opts.requireStandardWebhooks) {
    throw new WebhookVerificationError('invalid_secret', 'requireStandardWebhooks needs webhookSecret (the webhook’s whsec_… secret)');
  } else if (opts.allowXSignatureOnly) {
    throw new WebhookVerificationError('invalid_secret', 'allowXSignatureOnly needs webhookSecret (the webhook’s whsec_… secret)');
  }
  if (opts.allowXSignatureOnly && opts.requireStandardWebhooks) {
    throw new WebhookVerificationError('invalid_secret', 'allowXSignatureOnly and requireStandardWebhooks contradict each other: give one');
  }
  const swOptions: StandardWebhookOptions = { toleranceSeconds: opts.toleranceSeconds, now: opts.now };
  toleranceOf(swOptions);
  if (jwks) source = jwks;
  else if ('keySource' in opts && opts.keySource) source = opts.keySource;
  else if (opts.publicKeyUrl) {
    source = fetchPublicKey(opts.publicKeyUrl, opts.credentials, { minRefreshIntervalMs: opts.minRefreshIntervalMs });
  } else if (opts.publicKey !== undefined || secret === undefined) keys = toKeyList(opts.publicKey);
  if (opts.allowXSignatureOnly && !source && !keys) {
    throw new WebhookVerificationError('invalid_public_key', 'allowXSignatureOnly needs a public key to verify x-signature with');
  }
  const verifyWith = async (raw: Buffer, headers: WebhookRequest['headers']): Promise<AnyWebhookEvent> => {
    if (secret !== undefined && needsStandardWebhooks(headers, opts.allowXSignatureOnly)) {
      return verifyStandardWebhook<AnyWebhookEvent>(raw, headers, secret, swOptions);
    }
    if (jwks && hasV1aSignature(headers)) return jwks.verifyV1a<AnyWebhookEvent>(raw, headers, swOptions);
    return source ? source.verify<AnyWebhookEvent>(raw, headers) : verifyWebhook<AnyWebhookEvent>(raw, headers, keys!);
  };

  return (req, res, next) => {
    void (async () => {
      const contentType = headerValue(req.headers, 'content-type') ?? '';
      if (!/^application\/([\w.+-]*\+)?json\b/i.test(contentType)) {
        return problem(res, 415, 'unsupported_media_type', 'webhook deliveries are application/json');
      }
      let raw: Buffer;
      // A body parser that ran before us may have left the bytes; a parsed object is useless.
      if (Buffer.isBuffer(req.body)) raw = req.body;
      else if (req.readableEnded) {
        // A server setup error, not the sender's: 500, with what to change.
        return problem(
          res,
          500,
          'body_not_raw',
          'the request body was already consumed by another parser (express.json()?) before createWebhookMiddleware, so the signed bytes are gone: ' +
            "mount the middleware before any JSON parser, or put express.raw({ type: 'application/json' }) in front of it on the webhook route",
        );
      } else {
        const tooLarge = () => {
          res.setHeader('connection', 'close');
          problem(res, 413, 'payload_too_large', `body larger than ${limit} bytes`);
        };
        // A declared length over the limit is refused before a byte of it is read.
        if (Number(headerValue(req.headers, 'content-length') ?? 0) > limit) return tooLarge();
        try {
          raw = await readBody(req, limit);
        } catch (err) {
          if (err instanceof BodyTooLarge) return tooLarge();
          throw err;
        }
      }
      try {
        const event = await verifyWith(raw, req.headers);
        req.rawBody = raw;
        req.webhookEvent = event;
        req.body = event;
        next();
      } catch (err) {
        if (!(err instanceof WebhookVerificationError)) throw err;
        if (err.code === 'invalid_json') return problem(res, 415, 'invalid_json', err.message);
        if (err.code === 'no_public_key') return problem(res, 503, err.code, err.message);
        // The receiver's own key or secret, as body_not_raw is its own setup: 500, and borderd retries meanwhile.
        if (err.code === 'invalid_public_key' || err.code === 'invalid_secret') return problem(res, 500, err.code, err.message);
        return problem(res, 400, err.code, err.message);
      }
    })().catch(next);
  };
}
