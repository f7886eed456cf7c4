/**
 * GET /v1/notifications/events/stream: the organization's events as server-sent events, for
 * `borderd receive --tunnel` and anyone who cannot expose a public webhook URL. Each message is
 * `id: <event id>`, `event: <type>`, `data: {"body", "signature", "keyId", "traceparent"?}` with the body embedded
 * as a string so its bytes (the ones signed) survive. Before the events, and again after a key
 * rotation, an `event: signing-key` message carries the public key the signatures verify with.
 *
 * @module api/routes/event-stream
 */
import type { Response } from 'express';
import { decodeJwt } from 'jose';
import { z } from 'zod';
import type { AppContext } from '../../context.js';
import { currentSigningKey, ensureSigningKey, pairIfKeyless } from '../../delivery/signing-keys.js';
import type { Commit } from '../../db/group-commit.js';
import type { EventSignatures } from '../../delivery/event-signatures.js';
import { BorderdError, badRequest } from '../../domain/errors.js';
import { getClientStanding } from '../../store/api-clients.js';
import { idLowerBound } from '../../domain/ids.js';
import { ISO_TIME_HINT, parseIsoTime } from '../../domain/iso-time.js';
import { latestEventId, readEventsAfter, replayStartAt, streamPositionAfter, type StreamPosition } from '../../store/events.js';
import type { Worker } from '../../worker.js';
import type { RouteModule } from '../route.js';

const EVENT_ID = /^evt_[0-9a-z]{10,40}$/;

/** The first wait before a stream looks again for events held back behind a running transaction. */
const HELD_BACK_FIRST_MS = 5;
/** With no events yet, "now" starts this far back, so an event whose id was made just before the connection (its transaction still open) is not skipped. */
const NOW_SLACK_MS = 1000;

const streamQuery = z.strictObject({
  after: z
    .string()
    .regex(EVENT_ID, 'must be an event id (evt_…)')
    .optional()
    .describe('resume after this event id (same as the Last-Event-ID header)'),
  since: z
    .string()
    .refine((v) => parseIsoTime(v) !== undefined, `must be ${ISO_TIME_HINT}`)
    .optional()
    .describe('replay the events created at or after this ISO 8601 time; ignored when Last-Event-ID or after is given'),
});

type StartMode = 'now' | 'after' | 'since';

type EndStream = (shutdown?: boolean) => void;

/**
 * Open streams per context, each with the client it serves: the daemon's shutdown ends them instead
 * of waiting out its grace, and a client's count is capped (eventStream.maxStreamsPerClient).
 */
const openStreams = new WeakMap<AppContext, Map<EndStream, string>>();

function streamsOf(ctx: AppContext): Map<EndStream, string> {
  let streams = openStreams.get(ctx);
  if (!streams) openStreams.set(ctx, (streams = new Map()));
  return streams;
}

/** Event streams open on this context now (borderd_event_stream_clients). */
export const openStreamCount = (ctx: AppContext): number => openStreams.get(ctx)?.size ?? 0;

/**
 * Each open stream holds a socket, two timers and a query per wake-up, so one client (a leaked
 * credential, a reconnect loop that never closes the old stream) cannot open them without bound.
 * Counted per process: each daemon on the same database has its own.
 */
function refuseOverCap(ctx: AppContext, clientId: string): void {
  const max = ctx.config.eventStream.maxStreamsPerClient;
  let open = 0;
  for (const client of streamsOf(ctx).values()) if (client === clientId) open++;
  if (open >= max) {
    throw new BorderdError(
      429,
      'too_many_streams',
      `this client already has ${open} event streams open on this daemon (eventStream.maxStreamsPerClient: ${max}); close one first`,
      {
        // Nothing tells when one closes; a reconnect loop whose old stream is about to end gets in then.
        headers: { 'Retry-After': '5' },
      },
    );
  }
}

/** A worker with nothing to run: its stop() ends open event streams so SIGTERM is not held up by them. */
export function eventStreamCloser(ctx: AppContext): Worker {
  return {
    name: 'event-stream',
    start: () => undefined,
    stop: async () => {
      for (const end of [...streamsOf(ctx).keys()]) end(true);
    },
  };
}

const sseMessage = (event: string, data: unknown, id?: string): string =>
  `${id ? `id: ${id}\n` : ''}event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;

/**
 * Where a stream starts (decision, like `stripe listen`): with no position it starts **now**, only
 * events written after the connection are sent; `?since=<ISO time>` replays history from that time;
 * Last-Event-ID (or ?after=) resumes after an event and wins over `since`, so a reconnecting
 * EventSource whose URL still says `since` resumes instead of replaying again. The first message,
 * `ready`, carries the starting position as its id, so a client that saves ids from the first
 * message on resumes correctly even if no event came before it disconnected.
 */
export const eventStreamRoutes: RouteModule = (api, { signatures }) => {
  api.route({
    method: 'get',
    path: '/v1/notifications/events/stream',
    summary: "Follow the organization's events as server-sent events",
    description:
      'text/event-stream. Where it starts: with no position, now (only events written after the connection, like `stripe listen`); ' +
      '`?since=<ISO time>` replays the events created from that time on; Last-Event-ID (or ?after=) resumes after that event and wins over since. ' +
      'Messages: `ready` first (id = the starting position, data {from: now|after|since, after}), then `signing-key` (data {keyId, publicKey, algorithm}) ' +
      'before any event and after each rotation, then one message per event, oldest first ' +
      '(id = event id, event = event type, data = {body, signature, keyId, traceparent?}; body is the exact signed JSON as a string; ' +
      'traceparent, when borderd traces, is the W3C trace context the event was written under, unsigned). ' +
      'Resume with the id of the last message received. A `: heartbeat` comment is sent every eventStream.heartbeatMs.',
    tags: ['notifications'],
    auth: 'bearer',
    query: streamQuery,
    responses: {
      200: {
        description: 'the stream',
        contentType: 'text/event-stream',
        schema: z
          .string()
          .describe(
            'SSE messages: ready (the starting position), signing-key, then one per event (data {body, signature, keyId, traceparent?}), and heartbeat comments',
          ),
      },
      400: { description: 'Last-Event-ID or after is not an event id, or since is not an ISO 8601 time' },
      401: { description: 'missing or invalid token' },
      429: { description: 'the client already has eventStream.maxStreamsPerClient streams open on this daemon' },
    },
    handler: async ({ ctx, query, auth, req, res, commit }) => {
      const header = req.get('last-event-id')?.trim();
      if (header && !EVENT_ID.test(header)) {
        throw badRequest('validation_failed', 'Last-Event-ID must be an event id', [
          { path: 'headers.last-event-id', message: 'must be an event id (evt_…)' },
        ]);
      }
      refuseOverCap(ctx, auth.clientId);
      // The token was verified for this request; its exp bounds how long the stream may stay open.
      const exp = decodeJwt(req.get('authorization')!.replace(/^Bearer\s+/i, '')).exp;
      const resumeAfter = header || query.after;
      let start: { mode: StartMode; after: string | null };
      if (resumeAfter) start = { mode: 'after', after: resumeAfter };
      else if (query.since) {
        // Not "the last event created before the time": under clock skew an event created after it
        // can be numbered before such an event, and finding it would walk every event being
        // replayed, on the main thread. With no event before the time, the time itself is the
        // position: `ready` then still carries an id to resume from.
        start = { mode: 'since', after: await replayStartAt(ctx.db, auth.orgId, new Date(parseIsoTime(query.since)!).toISOString()) };
      } else
        start = { mode: 'now', after: (await latestEventId(ctx.db, auth.orgId)) ?? idLowerBound('evt', ctx.clock.now() - NOW_SLACK_MS) };
      follow(
        { ctx, signatures, commit },
        { orgId: auth.orgId, clientId: auth.clientId, expiresAtMs: exp ? exp * 1000 : undefined },
        { ...start, position: await streamPositionAfter(ctx.db, auth.orgId, start.after) },
        res,
      );
      return undefined;
    },
  });
};

interface StreamAuth {
  orgId: string;
  clientId: string;
  expiresAtMs: number | undefined;
}

/** What a stream uses of the daemon: the context, the process's signatures, and the group commit for its key's first write. */
interface StreamDeps {
  ctx: AppContext;
  signatures: EventSignatures;
  commit: Commit;
}

/**
 * A stream outlives its request's authentication check, so it re-checks: it ends when the token
 * expires, and when the client was revoked, seen before each batch of events and at each
 * heartbeat. Clients reconnect with a fresh token.
 */
function follow(
  { ctx, signatures, commit }: StreamDeps,
  auth: StreamAuth,
  start: { mode: StartMode; after: string | null; position: StreamPosition },
  res: Response,
): void {
  const { orgId } = auth;
  const { heartbeatMs, pollIntervalMs, batchSize } = ctx.config.eventStream;
  res.status(200);
  res.set({
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-store',
    'x-accel-buffering': 'no',
    connection: 'keep-alive',
  });
  res.flushHeaders();
  res.socket?.setNoDelay(true);

  /** The id a client resumes after; `position` is where in commit order that is. */
  let cursor = start.after;
  let position = start.position;
  let announcedKey: string | undefined;
  let closed = false;
  let pending = false;
  /** The wait before looking again for events held back in commit order; 0: none are. */
  let heldBackMs = 0;
  /** Ends the poll wait early: a new event was signalled. */
  let wake: (() => void) | undefined;
  /** Ends whichever wait the loop is in (for events, or for the socket to drain): set while it waits. */
  let interrupt: (() => void) | undefined;
  /**
   * One wait of the loop: arm() starts it and returns how to disarm it. end() interrupts it, so a
   * stream whose client stopped reading (its socket never drains) still ends its loop at once.
   */
  const waitUntil = (arm: (resume: () => void) => () => void): Promise<void> =>
    new Promise<void>((resolve) => {
      const resume = (): void => {
        disarm();
        interrupt = undefined;
        resolve();
      };
      const disarm = arm(resume);
      interrupt = resume;
    });

  const onSignal = () => {
    pending = true;
    wake?.();
  };
  // A throw inside a timer would take the whole daemon down: a check that fails ends this stream only.
  const beat = async (): Promise<void> => {
    try {
      const revoked = (await getClientStanding(ctx.db, auth.clientId))?.revoked;
      if (closed) return;
      if (revoked) return end();
      res.write(': heartbeat\n\n');
    } catch (err) {
      ctx.log.error({ err, orgId }, 'event stream heartbeat failed');
      end();
    }
  };
  const heartbeat = setInterval(() => void beat(), heartbeatMs);
  const expiry =
    auth.expiresAtMs === undefined
      ? undefined
      : setTimeout(() => end(), Math.min(2 ** 31 - 1, Math.max(0, auth.expiresAtMs - ctx.clock.now())));
  const end = (shutdown = false) => {
    if (closed) return;
    closed = true;
    clearInterval(heartbeat);
    clearTimeout(expiry);
    unlisten();
    interrupt?.();
    res.end();
    // At shutdown the keep-alive socket would otherwise hold server.close() for the whole grace period.
    if (shutdown) res.socket?.end();
  };
  const unlisten = ctx.signals.outbox.listen(onSignal);
  streamsOf(ctx).set(end, auth.clientId);
  res.on('close', () => end());

  /** Announces the current key unless already announced; returns its id. */
  const announceKey = async (): Promise<string | undefined> => {
    const key = await currentSigningKey(ctx, orgId);
    if (key && key.keyId !== announcedKey) {
      announcedKey = key.keyId;
      res.write(sseMessage('signing-key', { keyId: key.keyId, publicKey: key.publicKey, algorithm: key.algorithm }));
    }
    return key?.keyId;
  };

  const sendBatch = async (): Promise<number> => {
    const { rows, heldBack } = await readEventsAfter(ctx.db, orgId, position, batchSize);
    // Events committed behind a transaction still running (PostgreSQL) become readable when it
    // ends, which signals nothing here: they are looked for again soon, backing off to the poll.
    heldBackMs = heldBack ? Math.min(heldBackMs * 2 || HELD_BACK_FIRST_MS, pollIntervalMs) : 0;
    if (rows.length === 0) return 0;
    // Revocation takes effect at once, as for every API request: one primary-key read per batch
    // sent (an idle stream reads nothing more), so a revoked client receives no further event.
    if ((await getClientStanding(ctx.db, auth.clientId))?.revoked !== false) {
      end();
      return 0;
    }
    // The process's signatures, shared with the dispatcher: stored ones reused, the others made on
    // the thread pool one stream's batch at a time, and stored (docs/receiver.md).
    const signed = await signatures.signBatch(orgId, rows);
    if (closed) return 0;
    // A rotation while the batch was signed: announce the new key, and sign the batch again with it.
    if (signed.keyId !== announcedKey && (await announceKey()) !== signed.keyId) return sendBatch();
    rows.forEach((row, i) =>
      res.write(
        sseMessage(
          row.type,
          {
            body: row.body,
            signature: signed.signatures[i],
            keyId: signed.keyId,
            // The trace the event was written under: a tunnel's span continues it, as a delivery's does.
            ...(row.trace_context && { traceparent: row.trace_context }),
          },
          row.id,
        ),
      ),
    );
    const last = rows.at(-1)!;
    cursor = last.id;
    position = { tx: Number(last.tx_id ?? 0), id: last.id };
    return rows.length;
  };

  const loop = async () => {
    try {
      // The starting position first (its id is where a client resumes), then the key, even before
      // any event, so a client can verify from the first event on.
      res.write(sseMessage('ready', { from: start.mode, after: cursor }, cursor ?? undefined));
      // An organization without a webhook has no key yet: its pair is made off the main thread.
      const pair = await pairIfKeyless(ctx, orgId);
      if (pair) await commit((db) => ensureSigningKey({ ...ctx, db }, orgId, pair));
      await announceKey();
      while (!closed) {
        pending = false;
        while (!closed && (await sendBatch()) === batchSize) {
          // Let the socket drain between full batches of a long catch-up, and the event loop take a
          // turn: batches whose signatures are all known would otherwise follow each other at once.
          if (res.writableNeedDrain) {
            await waitUntil((resume) => {
              res.once('drain', resume);
              return () => res.off('drain', resume);
            });
          } else await new Promise((resolve) => setImmediate(resolve));
        }
        if (closed || pending) continue;
        await waitUntil((resume) => {
          const timer = setTimeout(resume, heldBackMs || pollIntervalMs);
          wake = resume;
          return () => {
            clearTimeout(timer);
            wake = undefined;
          };
        });
      }
    } catch (err) {
      ctx.log.error({ err, orgId }, 'event stream failed');
      end();
    } finally {
      // The client's slot is freed when the loop has stopped, not merely when the stream was told
      // to end: a loop stuck waiting would otherwise hold its socket and buffers unseen.
      streamsOf(ctx).delete(end);
    }
  };
  void loop();
}
