/**
 * Listen mode: an HTTP server that takes borderd's deliveries, verifies each and relays it. The
 * answer waits for the forward, so a 5xx from (or no answer by) the local app reaches the sender,
 * whose retry schedule then covers it. A bad signature is 401 and never forwarded.
 *
 * @module receiver/listen
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebhookVerificationError } from '../verify/errors.js';
import type { AnyWebhookEvent } from '../verify/events.js';
import type { HeaderBag } from '../verify/signature.js';
import { annotate, contextOf, inSpan, SpanKind, tracingOn } from '../tracing/spans.js';
import { forwardedHeaders } from './forwarder.js';
import type { Relay } from './relay.js';

export type Verifier = (rawBody: Buffer, headers: HeaderBag) => Promise<AnyWebhookEvent> | AnyWebhookEvent;

export interface ListenOptions {
  host: string;
  port: number;
  verify: Verifier;
  relay: Relay;
  /** Unsigned headers of the sender's request passed on as received, by name (`--pass-header`). */
  passHeaders?: readonly string[];
  limitBytes?: number;
  /** A delivery answered without forwarding it: 401 for its signature, 503 when the key could not be had. */
  onRejected?: (reason: string, eventId: string | undefined, status: 401 | 503) => void;
}

export interface Listener {
  server: Server;
  url: string;
  close(): Promise<void>;
}

function reply(
  res: ServerResponse,
  status: number,
  body: Record<string, unknown>,
  problem = false,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { 'content-type': problem ? 'application/problem+json' : 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

/**
 * Server-Timing (W3C) of a relayed delivery: `receive` is the receiver's own time (reading the body,
 * verifying, deduplicating, answering), `forward` the round trip to the local app. A sender, or a
 * developer's curl -v, sees what the receiver adds apart from the app and the network.
 */
function serverTiming(totalMs: number, forwardMs: number | undefined): string {
  const own = `receive;dur=${(totalMs - (forwardMs ?? 0)).toFixed(2)}`;
  return forwardMs === undefined ? own : `${own}, forward;dur=${forwardMs.toFixed(2)}`;
}

function readBody(req: IncomingMessage, limit: number): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size <= limit) chunks.push(c);
    });
    req.on('end', () => resolve(size > limit ? undefined : Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

export async function startListener(opts: ListenOptions): Promise<Listener> {
  const limit = opts.limitBytes ?? 1024 * 1024;
  /**
   * One server span per request while tracing is on, continuing the sender's `traceparent` (the
   * delivery attempt's span); the relay forwards the app a `traceparent` naming this span.
   */
  const traced = (req: IncomingMessage, res: ServerResponse): Promise<void> =>
    inSpan(
      'borderd receive',
      {
        kind: SpanKind.SERVER,
        parent: tracingOn() ? contextOf(req.headers) : undefined,
        attributes: { 'http.request.method': req.method ?? '' },
      },
      async (span) => {
        await handle(req, res);
        span?.setAttribute('http.response.status_code', res.statusCode);
      },
    );
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const started = performance.now();
    if (req.method !== 'POST')
      return reply(res, 405, { status: 405, title: 'method not allowed', detail: 'POST webhook deliveries here' }, true);
    const raw = await readBody(req, limit);
    if (!raw) return reply(res, 413, { status: 413, title: 'payload too large', detail: `body larger than ${limit} bytes` }, true);
    let event: AnyWebhookEvent;
    try {
      event = await opts.verify(raw, req.headers);
    } catch (err) {
      if (!(err instanceof WebhookVerificationError)) throw err;
      const claimed = req.headers['x-event-id'];
      const eventId = typeof claimed === 'string' ? claimed : undefined;
      annotate({ 'borderd.outcome': 'rejected', 'borderd.rejected': err.code });
      // The key could not be fetched: nothing was judged about the signature, so this is the
      // receiver's own trouble (503, retried by the sender), not a 401 recorded as a forgery.
      if (err.code === 'no_public_key') {
        opts.onRejected?.(err.code, eventId, 503);
        return reply(res, 503, { status: 503, title: 'public key unavailable', code: err.code, detail: err.message }, true, {
          'retry-after': '5',
        });
      }
      opts.onRejected?.(err.code, eventId, 401);
      return reply(res, 401, { status: 401, title: 'signature verification failed', code: err.code, detail: err.message }, true);
    }
    if (typeof event?.id !== 'string' || typeof event.type !== 'string') {
      return reply(res, 400, { status: 400, title: 'not an event', detail: 'the signed body has no id or type' }, true);
    }
    annotate({ 'borderd.event_id': event.id, 'borderd.event_type': event.type });
    // The bytes as received, not a decoded string: a body that is not UTF-8 would not survive decoding.
    const outcome = await opts.relay.handle({
      eventId: event.id,
      eventType: event.type,
      body: raw,
      headers: forwardedHeaders(req.headers, event, opts.passHeaders),
    });
    annotate({ 'borderd.outcome': outcome.outcome });
    reply(res, outcome.status, { eventId: event.id, outcome: outcome.outcome, status: outcome.status }, false, {
      'server-timing': serverTiming(performance.now() - started, outcome.forwardMs),
    });
  };
  const server = createServer({ keepAliveTimeout: 5000 }, (req, res) => {
    traced(req, res).catch((err: Error) => {
      if (!res.headersSent) reply(res, 500, { status: 500, title: 'receiver error', detail: err.message }, true);
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const host = opts.host.includes(':') ? `[${opts.host}]` : opts.host;
  return {
    server,
    url: `http://${host}:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      }),
  };
}
