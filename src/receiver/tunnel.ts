import { createParser, type EventSourceMessage } from 'eventsource-parser';
import type { KeyObject } from 'node:crypto';
import { createPublicKey } from 'node:crypto';
import { fetchAccessToken, type ClientCredentials } from '../verify/public-key.js';
import { verifySignature } from '../verify/signature.js';
import type { CaptureLog } from './capture-log.js';
import type { Reporter } from './console-report.js';
import type { Relay } from './relay.js';

/**
 * Tunnel mode: follows GET /v1/notifications/events/stream on a remote borderd, verifies each event
 * and relays it like listen mode, so a laptop with no public address receives the organization's
 * events. The last relayed id is kept in the capture log: a reconnect (or a restart of the
 * receiver) resumes after it with Last-Event-ID, so nothing is missed.
 */
export const STREAM_PATH = '/v1/notifications/events/stream';

export interface TunnelOptions {
  baseUrl: string;
  credentials: ClientCredentials;
  relay: Relay;
  capture: CaptureLog;
  reporter: Reporter;
  /** Trusted keys given by the operator; when absent, the keys the authenticated stream announces are used. */
  publicKeys?: KeyObject[];
  /** Reconnect when nothing (not even a heartbeat) arrived for this long. */
  heartbeatTimeoutMs?: number;
  /** First reconnect delay; doubles up to maxBackoffMs, reset by a good connection. */
  initialBackoffMs?: number;
  maxBackoffMs?: number;
  /** Tries per event when the local app fails, before moving on (the event stays replayable). */
  forwardAttempts?: number;
}

interface StreamData {
  body: string;
  signature: string;
  keyId: string;
}

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
  });

/** fatal: retrying cannot help (refused credentials, no such route); the tunnel stops with it. */
export class StreamError extends Error {
  constructor(
    message: string,
    readonly fatal = false,
  ) {
    super(message);
  }
}

export class TunnelClient {
  readonly #stop = new AbortController();
  readonly #announced = new Map<string, KeyObject>();
  readonly #source: string;
  #token: string | undefined;
  #cursor: string | undefined;
  #connections = 0;
  #done: Promise<void> | undefined;

  constructor(private readonly opts: TunnelOptions) {
    this.#source = opts.baseUrl.replace(/\/+$/, '');
    this.#cursor = opts.capture.cursor(this.#source);
  }

  get cursor(): string | undefined {
    return this.#cursor;
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
    const initial = this.opts.initialBackoffMs ?? 500;
    let backoff = initial;
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
      if (this.#connections > before) backoff = initial;
      reporter.note(`tunnel reconnecting in ${backoff}ms`, { backoffMs: backoff });
      await sleep(backoff, this.#stop.signal);
      backoff = Math.min(backoff * 2, this.opts.maxBackoffMs ?? 15_000);
    }
  }

  async #token_(): Promise<string> {
    try {
      this.#token ??= await fetchAccessToken(this.#source, this.opts.credentials);
    } catch (err) {
      throw new StreamError(`could not get a token from ${this.#source}: ${(err as Error).message}`, /failed with 40[013]/.test((err as Error).message));
    }
    return this.#token;
  }

  /** One connection, followed until it breaks (throws) or the client is stopped (returns). */
  async #connectOnce(): Promise<void> {
    const { reporter } = this.opts;
    const abort = new AbortController();
    const onStop = () => abort.abort();
    this.#stop.signal.addEventListener('abort', onStop, { once: true });
    const timeoutMs = this.opts.heartbeatTimeoutMs ?? 45_000;
    let watchdog: NodeJS.Timeout | undefined;
    const feedWatchdog = () => {
      clearTimeout(watchdog);
      watchdog = setTimeout(() => abort.abort(new StreamError(`no data or heartbeat for ${timeoutMs}ms`)), timeoutMs);
    };
    try {
      const open = async () => {
        const headers: Record<string, string> = { authorization: `Bearer ${await this.#token_()}`, accept: 'text/event-stream' };
        if (this.#cursor) headers['last-event-id'] = this.#cursor;
        return fetch(this.#source + STREAM_PATH, { headers, signal: abort.signal });
      };
      feedWatchdog();
      let res = await open();
      if (res.status === 401) {
        // The cached token expired (streams end at expiry) or its key rotated: one retry with a new one.
        await res.body?.cancel();
        this.#token = undefined;
        res = await open();
        if (res.status === 401) throw new StreamError('the stream refused a fresh token (401)', true);
      }
      if (!res.ok || !res.body) throw new StreamError(`stream answered ${res.status}`, res.status === 403 || res.status === 404);
      this.#connections++;
      const resumed = this.#cursor ? `, resumed after ${this.#cursor}` : '';
      reporter.note(`tunnel ${this.#connections === 1 ? 'connected' : 'reconnected'} to ${this.#source}${resumed}`, {
        connection: this.#connections,
        resumedAfter: this.#cursor ?? null,
      });

      const queue: EventSourceMessage[] = [];
      const parser = createParser({
        onEvent: (m) => queue.push(m),
        onComment: () => undefined,
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
          await this.#handle(message);
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

  async #handle(message: EventSourceMessage): Promise<void> {
    const { reporter, relay, capture } = this.opts;
    if (message.event === 'signing-key') {
      const key = JSON.parse(message.data) as { keyId: string; publicKey: string };
      this.#announced.set(key.keyId, createPublicKey(key.publicKey));
      return;
    }
    const eventId = message.id;
    if (!eventId) return;
    const data = JSON.parse(message.data) as StreamData;
    const keys = this.#keysFor(data.keyId);
    let valid = false;
    try {
      valid = keys.length > 0 && verifySignature(data.body, data.signature, keys);
    } catch {
      valid = false;
    }
    const eventType = message.event ?? 'message';
    if (!valid) {
      reporter.event({ time: new Date().toISOString(), eventId, eventType, outcome: 'rejected', status: 401, target: null, latencyMs: null, detail: 'signature does not verify' });
    } else {
      const headers = {
        'content-type': 'application/json',
        'user-agent': 'borderd-receive',
        'x-signature': data.signature,
        'x-signature-key-id': data.keyId,
        'x-event-id': eventId,
        'x-event-type': eventType,
        'x-delivery-attempt': '1',
      };
      const attempts = Math.max(1, this.opts.forwardAttempts ?? 5);
      for (let attempt = 1; attempt <= attempts && !this.#stop.signal.aborted; attempt++) {
        const outcome = await relay.handle({ eventId, eventType, body: data.body, headers: { ...headers, 'x-delivery-attempt': String(attempt) } });
        if (outcome.status >= 200 && outcome.status < 300) break;
        if (attempt < attempts) await sleep(Math.min(500 * 2 ** (attempt - 1), 8000), this.#stop.signal);
      }
    }
    if (this.#stop.signal.aborted) return;
    this.#cursor = eventId;
    capture.saveCursor(this.#source, eventId, new Date().toISOString());
  }
}
