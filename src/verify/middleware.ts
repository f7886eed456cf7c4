import type { IncomingMessage, ServerResponse } from 'node:http';
import type { NextFunction, Request, Response } from 'express';
import { WebhookVerificationError } from './errors.js';
import type { AnyWebhookEvent } from './events.js';
import { fetchPublicKey, type ClientCredentials, type PublicKeySource } from './public-key.js';
import { headerValue, verifyWebhook, type PublicKeyInput } from './signature.js';

/**
 * Express middleware that reads the raw body itself (so it works with or without express.json
 * elsewhere), verifies it and puts the event on `req.webhookEvent` before calling next().
 * Express is a type import only: this file loads without express installed.
 */
export type WebhookMiddlewareOptions = (
  | { publicKey: PublicKeyInput; publicKeyUrl?: undefined }
  | { publicKeyUrl: string; credentials: ClientCredentials; publicKey?: undefined; minRefreshIntervalMs?: number }
  | { keySource: PublicKeySource; publicKey?: undefined; publicKeyUrl?: undefined }
) & {
  /** Largest body accepted (default 1 MiB). */
  limitBytes?: number;
};

export interface WebhookRequest extends Request {
  webhookEvent?: AnyWebhookEvent;
  rawBody?: Buffer;
}

declare module 'express-serve-static-core' {
  interface Request {
    /** Set by createWebhookMiddleware: the verified event. */
    webhookEvent?: AnyWebhookEvent;
  }
}

class BodyTooLarge extends Error {}

function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > limit) {
        reject(new BodyTooLarge());
        req.destroy();
      } else chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function problem(res: ServerResponse, status: number, code: string, detail: string): void {
  res.statusCode = status;
  res.setHeader('content-type', 'application/problem+json');
  res.end(JSON.stringify({ type: 'about:blank', title: code, status, code, detail }));
}

export function createWebhookMiddleware(opts: WebhookMiddlewareOptions): (req: Request, res: Response, next: NextFunction) => void {
  const limit = opts.limitBytes ?? 1024 * 1024;
  let source: PublicKeySource | undefined;
  if ('keySource' in opts && opts.keySource) source = opts.keySource;
  else if (opts.publicKeyUrl) {
    source = fetchPublicKey(opts.publicKeyUrl, opts.credentials, { minRefreshIntervalMs: opts.minRefreshIntervalMs });
  }
  const verifyWith = async (raw: Buffer, headers: Request['headers']): Promise<AnyWebhookEvent> =>
    source ? source.verify<AnyWebhookEvent>(raw, headers) : verifyWebhook<AnyWebhookEvent>(raw, headers, opts.publicKey!);

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
        return problem(res, 500, 'body_not_raw', 'the body was consumed by another parser before createWebhookMiddleware; mount it before express.json()');
      } else {
        try {
          raw = await readBody(req, limit);
        } catch (err) {
          if (err instanceof BodyTooLarge) return problem(res, 413, 'payload_too_large', `body larger than ${limit} bytes`);
          throw err;
        }
      }
      try {
        const event = await verifyWith(raw, req.headers);
        (req as WebhookRequest).rawBody = raw;
        req.webhookEvent = event;
        req.body = event;
        next();
      } catch (err) {
        if (!(err instanceof WebhookVerificationError)) throw err;
        if (err.code === 'invalid_json') return problem(res, 415, 'invalid_json', err.message);
        if (err.code === 'no_public_key') return problem(res, 503, err.code, err.message);
        return problem(res, 400, err.code, err.message);
      }
    })().catch(next);
  };
}
