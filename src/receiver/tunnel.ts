/**
 * Tunnel mode: follows GET /v1/notifications/events/stream on a remote borderd, verifies each event
 * and relays it like listen mode, so a laptop with no public address receives the organization's
 * events. Where it starts: the cursor saved in the capture log (a restart resumes), else `since`,
 * else now (the stream's `ready` message gives that position, and it is saved at once so a restart
 * misses nothing). Everything that steers the relay (type filter, dedupe, cursor) comes from the
 * verified body, never from the unsigned SSE `id:` / `event:` fields.
 *
 * @module receiver/tunnel
 */
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import type { KeyObject } from 'node:crypto';
import { createPublicKey } from 'node:crypto';
import { isRefusedByBorderd, WebhookVerificationError } from '../verify/errors.js';
import { fetchFailure } from '../verify/fetch-failure.js';
import { fetchAccessToken, type ClientCredentials } from '../verify/public-key.js';
import { verifySignature } from '../verify/signature.js';
import { deliveryHeaders } from '../domain/delivery-headers.js';
import { annotate, contextOf, inSpan, SpanKind, tracingOn } from '../tracing/spans.js';
import { abortableSleep } from './abortable-sleep.js';
import { backoffDelay, DEFAULT_BACKOFF, type BackoffPolicy } from './backoff.js';
import type { CaptureLog } from './capture-log.js';
import type { Reporter } from './console-report.js';
import type { Relay, RelayOutcome } from './relay.js';

/** Retries of a forward the local app refused: the reconnect backoff's formula, with a lower ceiling. */
const FORWARD_BACKOFF: BackoffPolicy = { initialMs: 500, maxMs: 8_000 };

export const STREAM_PATH = '/v1/notifications/events/stream';

const EVENT_ID = /^evt_[0-9a-z]{10,40}$/;

export interface TunnelOptions {
  baseUrl: string;
  credentials: ClientCredentials;
  relay: Relay;
  capture: CaptureLog;
  reporter: Reporter;
  /** Trusted keys given by the operator; when absent, the keys the authenticated stream announces are used. */
  publicKeys?: KeyObject[];
  /** ISO time: with no saved cursor (or always on the first connection), replay the events created from then on. */
  since?: string;
  /** Reconnect when nothing (not even a heartbeat) arrived for this long; paused while an event is forwarded. */
  heartbeatTimeoutMs?: number;
  /** First reconnect delay; doubles up to maxBackoffMs (with jitter), reset by a good connection. */
  initialBackoffMs?: number;
  maxBackoffMs?: number;
  /** Tries per event when the local app fails, before moving on (the event stays replayable). */
  forwardAttempts?: number;
  /** Delay before forward retry n (1-based); default 500 ms doubling (0.5, 1, 2, 4 s), each jittered to 50-100%. */
  forwardRetryDelayMs?: (attempt: number) => number;
  /** The capture log's path, for the replay command printed when an event could not be delivered. */
  captureDbPath?: string;
  /** [0, 1) source for the backoff jitter (tests pass a constant). */
  random?: () => number;
  /** Called after the cursor moved and was saved (tests wait on it). */
  onCursor?: (eventId: string) => void;
}

interface StreamData {
  body: string;
  signature: string;
  keyId: string;
  /** The W3C trace context the event was written under, when the daemon traces (unsigned). */
  traceparent?: string;
}

const TRACEPARENT = /^00-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$/;

/** fatal: retrying cannot help (refused credentials, no such route); the tunnel stops with it. */
export class StreamError extends Error {
  constructor(
    message: string,
    readonly fatal = false,
  ) {
    super(message);
  }
}

function parseStreamData(raw: string): StreamData | undefined {
  try {
    const d = JSON.parse(raw) as Partial<StreamData> | null;
    if (d && typeof d.body === 'string' && typeof d.signature === 'string' && typeof d.keyId === 'string')
      return {
        body: d.body,
        signature: d.signature,
        keyId: d.keyId,
        ...(typeof d.traceparent === 'string' && TRACEPARENT.test(d.traceparent) && { traceparent: d.traceparent }),
      };
  } catch {
    // reported by the caller
  }
  return undefined;
}

/** The id and type of a verified body; undefined when the signed JSON is not an event. */
function eventOf(body: string): { id: string; type: string } | undefined {
  try {
    const e = JSON.parse(body) as { id?: unknown; type?: unknown } | null;
    if (e && typeof e.id === 'string' && typeof e.type === 'string') return { id: e.id, type: e.type };
  } catch {
    // not JSON
  }
  return undefined;
}

export class TunnelClient {
  readonly #stop = new AbortController();
  readonly #announced = new Map<string, KeyObject>();
  readonly #source: string;
  /** The access token in use; undefined until one is fetched, and again once the stream refused it. */
  #accessToken: string | undefined;
  #tokenFetches = 0;
  #cursor: string | undefined;
  #connections = 0;
  #done: Promise<void> | undefined;

  constructor(private readonly opts: TunnelOptions) {
    this.#source = opts.baseUrl.replace(/\/+$/, '');
    // An explicit --since wins over the saved cursor: the developer asked for that history.
    this.#cursor = opts.since !== undefined ? undefined : opts.capture.cursor(this.#source);
  }

  /** `since` applies until the stream has given a position to resume from (then the cursor does). */
  #replayingSince(): string | undefined {
    return this.#cursor === undefined ? this.opts.since : undefined;
  }

  get cursor(): string | undefined {
    return this.#cursor;
  }

  /** How many connections the stream accepted; 0 means nothing was received, not even a position. */
  get connections(): number {
    return this.#connections;
  }

  /** How many tokens were fetched (a renewal after expiry makes it 2). */
  get tokenFetches(): number {
    return this.#tokenFetches;
  }

  /** Runs until stop(); resolves when stopped, rejects on a fatal error (bad credentials). */
  start(): Promise<void> {
    this.#done ??= this.#run();
    return this.#done;
  }

  async stop(): Promise<void> {
    this.#stop.abort();
    await this.#done?.catch(() => undefined);
  }

  async #run(): Promise<void> {
    const { reporter } = this.opts;
    const policy = {
      initialMs: this.opts.initialBackoffMs ?? DEFAULT_BACKOFF.initialMs,
      maxMs: this.opts.maxBackoffMs ?? DEFAULT_BACKOFF.maxMs,
    };
    let failures = 0;
    while (!this.#stop.signal.aborted) {
      const before = this.#connections;
      try {
        await this.#connectOnce();
      } catch (err) {
        if (err instanceof StreamError && err.fatal) throw err;
        if (this.#stop.signal.aborted) break;
        reporter.note(`tunnel disconnected: ${(err as Error).message}`, { reason: (err as Error).message });
      }
      if (this.#stop.signal.aborted) break;
      // A connection that got through resets the backoff; repeated refusals grow it.
      failures = this.#connections > before ? 0 : failures + 1;
      const delay = backoffDelay(failures, policy, (this.opts.random ?? Math.random)());
      reporter.note(`tunnel reconnecting in ${delay}ms`, { backoffMs: delay });
      await abortableSleep(delay, this.#stop.signal);
    }
  }

  /** The access token, fetched when there is none; `signal` is the connection's: a stop or the heartbeat watchdog also ends a token request that hangs. */
  async #currentToken(signal: AbortSignal): Promise<string> {
    if (this.#accessToken) return this.#accessToken;
    try {
      this.#tokenFetches++;
      this.#accessToken = await fetchAccessToken(this.#source, this.opts.credentials, { signal });
    } catch (err) {
      throw new StreamError(`could not get a token from ${this.#source}: ${(err as Error).message}`, isRefusedByBorderd(err));
    }
    return this.#accessToken;
  }

  #streamUrl(): string {
    const since = this.#replayingSince();
    return since ? `${this.#source}${STREAM_PATH}?since=${encodeURIComponent(since)}` : this.#source + STREAM_PATH;
  }

  /** One connection, followed until it breaks (throws) or the client is stopped (returns). */
  async #connectOnce(): Promise<void> {
    const { reporter } = this.opts;
    const abort = new AbortController();
    const onStop = () => abort.abort();
    this.#stop.signal.addEventListener('abort', onStop, { once: true });
    const timeoutMs = this.opts.heartbeatTimeoutMs ?? 45_000;
    let watchdog: NodeJS.Timeout | undefined;
    const pauseWatchdog = () => clearTimeout(watchdog);
    const feedWatchdog = () => {
      clearTimeout(watchdog);
      watchdog = setTimeout(() => abort.abort(new StreamError(`no data or heartbeat for ${timeoutMs}ms`)), timeoutMs);
    };
    try {
      const open = async () => {
        const headers: Record<string, string> = {
          authorization: `Bearer ${await this.#currentToken(abort.signal)}`,
          accept: 'text/event-stream',
        };
        if (this.#cursor) headers['last-event-id'] = this.#cursor;
        // redirect: manual, so the bearer token goes only to the URL given; a 3xx is a failed connection.
        const url = this.#streamUrl();
        return fetch(url, { headers, signal: abort.signal, redirect: 'manual' }).catch((err: unknown) => {
          throw abort.signal.aborted ? err : new StreamError(fetchFailure(err, url));
        });
      };
      feedWatchdog();
      let res = await open();
      if (res.status === 401) {
        // The cached token expired (streams end at expiry) or its key rotated: one retry with a new one.
        await res.body?.cancel();
        this.#accessToken = undefined;
        res = await open();
        if (res.status === 401) throw new StreamError('the stream refused a fresh token (401)', true);
      }
      if (!res.ok || !res.body) throw new StreamError(`stream answered ${res.status}`, res.status === 403 || res.status === 404);
      // Getting the token and connecting had their own allowance; the stream's starts now.
      feedWatchdog();
      this.#connections++;
      const since = this.#replayingSince();
      const from = since
        ? `, replaying events since ${since}`
        : this.#cursor
          ? `, resumed after ${this.#cursor}`
          : ', new events only (--since TIME replays history)';
      const connectedNote = {
        message: `tunnel ${this.#connections === 1 ? 'connected' : 'reconnected'} to ${this.#source}${from}`,
        fields: { connection: this.#connections, resumedAfter: this.#cursor ?? null, since: since ?? null },
      };
      // Said once the first message (normally `ready`, whose position is saved by then) was handled.
      let announced = false;

      const queue: EventSourceMessage[] = [];
      const parser = createParser({
        onEvent: (m) => queue.push(m),
        onComment: () => undefined,
        onError: (err) => reporter.error(`tunnel: unreadable stream data skipped: ${err.message}`),
      });
      const decoder = new TextDecoder();
      const reader = res.body.getReader();
      for (;;) {
        const { value, done } = await reader.read();
        if (done) throw new StreamError('stream ended by the server');
        feedWatchdog();
        parser.feed(decoder.decode(value, { stream: true }));
        while (queue.length) {
          const message = queue.shift()!;
          // A slow local app (5 tries wait up to 7.5 s between them) is not a dead stream: no watchdog while forwarding.
          pauseWatchdog();
          await this.#handle(message);
          if (this.#stop.signal.aborted) return;
          if (!announced) {
            announced = true;
            reporter.note(connectedNote.message, connectedNote.fields);
          }
          feedWatchdog();
        }
      }
    } catch (err) {
      const reason = abort.signal.reason instanceof StreamError ? abort.signal.reason : err;
      if (this.#stop.signal.aborted) return;
      throw reason instanceof Error ? reason : new StreamError(String(reason));
    } finally {
      clearTimeout(watchdog);
      this.#stop.signal.removeEventListener('abort', onStop);
      abort.abort();
    }
  }

  #keysFor(keyId: string): KeyObject[] {
    if (this.opts.publicKeys?.length) return this.opts.publicKeys;
    const key = this.#announced.get(keyId);
    return key ? [key] : [...this.#announced.values()];
  }

  #advance(eventId: string): void {
    if (this.#cursor === eventId) return;
    this.#cursor = eventId;
    this.opts.capture.saveCursor(this.#source, eventId, new Date().toISOString());
    this.opts.onCursor?.(eventId);
  }

  /** A message that cannot be used: say so and go on; move past it only when it names a plausible event id. */
  #skipMalformed(message: EventSourceMessage, why: string): void {
    const id = message.id && EVENT_ID.test(message.id) ? message.id : undefined;
    this.opts.reporter.error(`tunnel: skipped a malformed ${message.event ?? 'message'} message${id ? ` (${id})` : ''}: ${why}`, {
      eventId: id ?? null,
    });
    if (id && message.event !== 'signing-key' && message.event !== 'ready' && (!this.#cursor || id > this.#cursor)) this.#advance(id);
  }

  async #handle(message: EventSourceMessage): Promise<void> {
    const { reporter } = this.opts;
    if (message.event === 'ready') {
      // The stream's starting position: saved at once, so a restart before any event misses nothing.
      if (message.id && EVENT_ID.test(message.id)) this.#advance(message.id);
      return;
    }
    if (message.event === 'signing-key') {
      try {
        const key = JSON.parse(message.data) as { keyId: string; publicKey: string };
        this.#announced.set(key.keyId, createPublicKey(key.publicKey));
      } catch (err) {
        this.#skipMalformed(message, `not a public key (${(err as Error).message})`);
      }
      return;
    }
    if (!message.id) return;
    const data = parseStreamData(message.data);
    if (!data) return this.#skipMalformed(message, 'data is not {"body","signature","keyId"} JSON');
    const keys = this.#keysFor(data.keyId);
    let valid = false;
    let why = 'signature does not verify';
    try {
      valid = keys.length > 0 && verifySignature(data.body, data.signature, keys);
      if (keys.length === 0) why = `no key announced for ${data.keyId}`;
    } catch (err) {
      why = err instanceof WebhookVerificationError ? err.message : String(err);
    }
    const verified = valid ? eventOf(data.body) : undefined;
    if (!verified) {
      // Nothing unsigned moves the cursor: a bad message is reported and the stream goes on.
      reporter.event({
        time: new Date().toISOString(),
        eventId: message.id,
        eventType: message.event ?? 'message',
        outcome: 'rejected',
        status: 401,
        target: null,
        latencyMs: null,
        detail: valid ? 'the signed body is not an event' : why,
      });
      return;
    }
    // One span per event while tracing is on, its tries included, continuing the trace the event
    // was written under; the relay forwards the app a traceparent naming it.
    const parent = tracingOn() && data.traceparent ? contextOf({ traceparent: data.traceparent }) : undefined;
    const attributes = { 'borderd.event_id': verified.id, 'borderd.event_type': verified.type };
    await inSpan('borderd receive', { kind: SpanKind.CONSUMER, parent, attributes }, () => this.#relay(verified, data));
  }

  /** Forwards a verified event, retrying a failing app, then moves the cursor past it. */
  async #relay(verified: { id: string; type: string }, data: StreamData): Promise<void> {
    const { reporter, relay } = this.opts;
    const attempts = Math.max(1, this.opts.forwardAttempts ?? 5);
    const retryDelay =
      this.opts.forwardRetryDelayMs ?? ((n: number) => backoffDelay(n - 1, FORWARD_BACKOFF, (this.opts.random ?? Math.random)()));
    let last: RelayOutcome | undefined;
    let tries = 0;
    for (let attempt = 1; attempt <= attempts && !this.#stop.signal.aborted; attempt++) {
      tries = attempt;
      last = await relay.handle({
        eventId: verified.id,
        eventType: verified.type,
        body: data.body,
        // The headers a direct delivery has, with this try as its attempt.
        headers: deliveryHeaders({
          userAgent: 'borderd-receive',
          signature: data.signature,
          keyId: data.keyId,
          eventId: verified.id,
          eventType: verified.type,
          attempt,
        }),
      });
      await last.recorded;
      if (last.outcome !== 'failed') break;
      if (attempt < attempts) await abortableSleep(retryDelay(attempt), this.#stop.signal);
    }
    annotate({
      'borderd.outcome': last?.outcome ?? 'stopped',
      'borderd.forward_tries': tries,
      ...(last && { 'http.response.status_code': last.status }),
    });
    // Stopped in the middle of the retries: the event is not passed, a restart sends it again.
    if (this.#stop.signal.aborted && last?.outcome === 'failed') return;
    if (last?.outcome === 'failed') {
      // A stream cannot retry for us: the event stays in the capture log as failed, with its last status.
      const replay = `borderd receive replay ${verified.id}${this.opts.captureDbPath ? ` --capture-db ${this.opts.captureDbPath}` : ''}`;
      reporter.error(
        `${verified.type} ${verified.id} failed after ${tries} attempts (last status ${last.status}); moving on. Replay it with: ${replay}`,
        {
          eventId: verified.id,
          eventType: verified.type,
          attempts: tries,
          lastStatus: last.status,
          replay,
        },
      );
    }
    this.#advance(verified.id);
  }
}
