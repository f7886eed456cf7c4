import type { Response } from 'express';
import { decodeJwt } from 'jose';
import { z } from 'zod';
import type { AppContext } from '../../context.js';
import { currentSigningKey, ensureSigningKey, Signer } from '../../delivery/signing-keys.js';
import { badRequest } from '../../domain/errors.js';
import { getApiClient } from '../../store/api-clients.js';
import { listEventsAfter, type EventRow } from '../../store/events.js';
import type { Worker } from '../../workers.js';
import type { RouteModule } from '../route.js';

/**
 * GET /v1/notifications/events/stream: the organization's events as server-sent events, for
 * `borderd receive --tunnel` and anyone who cannot expose a public webhook URL. Each message is
 * `id: <event id>`, `event: <type>`, `data: {"body", "signature", "keyId"}` with the body embedded
 * as a string so its bytes (the ones signed) survive. Before the events, and again after a key
 * rotation, an `event: signing-key` message carries the public key the signatures verify with.
 * Resume with Last-Event-ID (or ?after=): everything after that id is sent, then new events follow.
 */
const EVENT_ID = /^evt_[0-9a-z]{10,40}$/;

const streamQuery = z.strictObject({
  after: z.string().regex(EVENT_ID, 'must be an event id (evt_…)').optional(),
});

/** Open streams per context, so the daemon's shutdown can end them instead of waiting out its grace. */
const openStreams = new WeakMap<AppContext, Set<(shutdown?: boolean) => void>>();

function streamsOf(ctx: AppContext): Set<(shutdown?: boolean) => void> {
  let set = openStreams.get(ctx);
  if (!set) openStreams.set(ctx, (set = new Set()));
  return set;
}

/** A worker with nothing to run: its stop() ends open event streams so SIGTERM is not held up by them. */
export function eventStreamCloser(ctx: AppContext): Worker {
  return {
    name: 'event-stream',
    start: () => undefined,
    stop: async () => {
      for (const end of [...streamsOf(ctx)]) end(true);
    },
  };
}

/** Signatures are cached per event and key: a reconnecting client re-reads recent events often. */
class SignatureCache {
  readonly #entries = new Map<string, { signature: string; keyId: string }>();
  constructor(
    private readonly signer: Signer,
    private readonly max = 5000,
  ) {}
  sign(row: EventRow): { signature: string; keyId: string } {
    const keyId = this.signer.currentKeyId(row.org_id) ?? '';
    const cacheKey = `${row.id}:${keyId}`;
    let hit = this.#entries.get(cacheKey);
    if (!hit) {
      hit = this.signer.sign(row.org_id, row.body);
      if (this.#entries.size >= this.max) this.#entries.delete(this.#entries.keys().next().value!);
      this.#entries.set(`${row.id}:${hit.keyId}`, hit);
    }
    return hit;
  }
}

const sseMessage = (event: string, data: unknown, id?: string): string =>
  `${id ? `id: ${id}\n` : ''}event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;

export const eventStreamRoutes: RouteModule = (api, { ctx }) => {
  const signatures = new SignatureCache(new Signer(ctx));

  api.route({
    method: 'get',
    path: '/v1/notifications/events/stream',
    summary: "Follow the organization's events as server-sent events",
    description:
      'text/event-stream. Messages: `signing-key` (data {keyId, publicKey, algorithm}) first and after each rotation, then one message per event ' +
      '(id = event id, event = event type, data = {body, signature, keyId}; body is the exact signed JSON as a string). ' +
      'Send Last-Event-ID (or ?after=) to resume after an event. A `: heartbeat` comment is sent every eventStream.heartbeatMs.',
    tags: ['notifications'],
    auth: 'bearer',
    query: streamQuery,
    responses: {
      200: {
        description: 'the stream',
        contentType: 'text/event-stream',
        schema: z.string().describe('SSE messages: signing-key, then one per event (data {body, signature, keyId}), and heartbeat comments'),
      },
      400: { description: 'Last-Event-ID or after is not an event id' },
      401: { description: 'missing or invalid token' },
    },
    handler: ({ query, auth, req, res }) => {
      const header = req.get('last-event-id')?.trim();
      if (header && !EVENT_ID.test(header)) {
        throw badRequest('validation_failed', 'Last-Event-ID must be an event id', [{ path: 'headers.last-event-id', message: 'must be an event id (evt_…)' }]);
      }
      // The token was verified for this request; its exp bounds how long the stream may stay open.
      const exp = decodeJwt(req.get('authorization')!.replace(/^Bearer\s+/i, '')).exp;
      follow(ctx, signatures, { orgId: auth.orgId, clientId: auth.clientId, expiresAtMs: exp ? exp * 1000 : undefined }, header || query.after || null, res);
      return undefined;
    },
  });
};

interface StreamAuth {
  orgId: string;
  clientId: string;
  expiresAtMs: number | undefined;
}

/**
 * A stream outlives its request's authentication check, so it re-checks: it ends when the token
 * expires and, at each heartbeat, when the client was revoked. Clients reconnect with a fresh token.
 */
function follow(ctx: AppContext, signatures: SignatureCache, auth: StreamAuth, after: string | null, res: Response): void {
  const { orgId } = auth;
  const { heartbeatMs, pollIntervalMs, batchSize } = ctx.config.eventStream;
  res.status(200);
  res.set({ 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store', 'x-accel-buffering': 'no', connection: 'keep-alive' });
  res.flushHeaders();
  res.socket?.setNoDelay(true);

  let cursor = after;
  let announcedKey: string | undefined;
  let closed = false;
  let pending = false;
  let wake: (() => void) | undefined;

  const onSignal = () => wake?.();
  // A throw inside a timer would take the whole daemon down: a check that fails ends this stream only.
  const heartbeat = setInterval(() => {
    try {
      if (getApiClient(ctx.db, auth.clientId)?.revokedAt) return end();
      res.write(': heartbeat\n\n');
    } catch (err) {
      ctx.log.error({ err, orgId }, 'event stream heartbeat failed');
      end();
    }
  }, heartbeatMs);
  const expiry = auth.expiresAtMs === undefined ? undefined : setTimeout(() => end(), Math.min(2 ** 31 - 1, Math.max(0, auth.expiresAtMs - ctx.clock.now())));
  const end = (shutdown = false) => {
    if (closed) return;
    closed = true;
    clearInterval(heartbeat);
    clearTimeout(expiry);
    ctx.signals.off('events', onSignal);
    ctx.signals.off('outbox', onSignal);
    streamsOf(ctx).delete(end);
    wake?.();
    res.end();
    // At shutdown the keep-alive socket would otherwise hold server.close() for the whole grace period.
    if (shutdown) res.socket?.end();
  };
  ctx.signals.on('events', onSignal);
  ctx.signals.on('outbox', onSignal);
  streamsOf(ctx).add(end);
  res.on('close', () => end());

  /** Announces the current key unless already announced; returns its id. */
  const announceKey = (): string | undefined => {
    const key = currentSigningKey(ctx, orgId);
    if (key && key.keyId !== announcedKey) {
      announcedKey = key.keyId;
      res.write(sseMessage('signing-key', { keyId: key.keyId, publicKey: key.publicKey, algorithm: key.algorithm }));
    }
    return key?.keyId;
  };

  const sendBatch = (): number => {
    const rows = listEventsAfter(ctx.db, orgId, cursor, batchSize);
    for (const row of rows) {
      let signed = signatures.sign(row);
      // A rotation between signing and announcing: sign again with the key just announced.
      if (signed.keyId !== announcedKey && announceKey() !== signed.keyId) signed = signatures.sign(row);
      res.write(sseMessage(row.type, { body: row.body, signature: signed.signature, keyId: signed.keyId }, row.id));
      cursor = row.id;
    }
    return rows.length;
  };

  const loop = async () => {
    try {
      // The key comes first even before any event, so a client can verify from the first message.
      ensureSigningKey(ctx, orgId);
      announceKey();
      while (!closed) {
        pending = false;
        while (!closed && sendBatch() === batchSize) {
          // Let the socket drain between full batches of a long catch-up.
          if (res.writableNeedDrain) await new Promise((r) => res.once('drain', r));
        }
        if (closed || pending) continue;
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, pollIntervalMs);
          wake = () => {
            pending = true;
            clearTimeout(timer);
            resolve();
          };
        });
        wake = undefined;
      }
    } catch (err) {
      ctx.log.error({ err, orgId }, 'event stream failed');
      end();
    }
  };
  void loop();
}
