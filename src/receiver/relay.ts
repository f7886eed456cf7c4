/**
 * What both modes do with a verified delivery: filter by type, capture, dedupe, forward, report.
 * The status returned is what the sender should see: the local app's own status, so the service's
 * retries cover a local app that is down.
 *
 * @module receiver/relay
 */
import type { CaptureLog } from './capture-log.js';
import type { Reporter } from './console-report.js';
import { typeMatches } from '../domain/event-type-filter.js';
import type { Forwarder } from './forwarder.js';
import { activeTraceparent } from '../tracing/spans.js';

export interface VerifiedDelivery {
  eventId: string;
  eventType: string;
  /**
   * The exact bytes that were signed: listen mode's Buffer as received (a body need not be valid
   * UTF-8, and decoding would change it), or a tunnel's string, whose UTF-8 bytes were signed.
   */
  body: string | Buffer;
  /** Headers to forward (hop-by-hop already removed). */
  headers: Record<string, string>;
}

/** A `--route TYPE=URL`: events whose type the pattern takes (exact, or a prefix ending in `*`) go to its forwarder. */
export interface Route {
  pattern: string;
  forwarder: Forwarder;
}

export interface RelayOptions {
  /** Where events no route takes go (--forward-to); without it they are answered 200 and skipped. */
  forwarder: Forwarder | undefined;
  /** Tried in order before `forwarder`: the first whose pattern takes the type. */
  routes?: readonly Route[];
  capture: CaptureLog;
  reporter: Reporter;
  dedupe: boolean;
  /** Only these types are forwarded; others are answered 200 and skipped. Empty means all. */
  eventTypes: readonly string[];
  now?: () => Date;
}

export interface RelayOutcome {
  status: number;
  outcome: 'forwarded' | 'failed' | 'duplicate' | 'skipped';
  /** How long the forward to the local app took (fractional ms), when there was one. */
  forwardMs?: number;
  /**
   * Resolves once the console line is out and the capture log holds the result. Both happen just
   * after handle() returns, so listen mode answers the sender first (they are off the latency
   * path); the tunnel awaits it before it moves its cursor.
   */
  recorded: Promise<void>;
}

const RECORDED = Promise.resolve();

/**
 * With tracing on, the app's `traceparent` names the receiver's own span (listen mode's request,
 * the tunnel's event), so the app's spans sit under it; without, the sender's goes on as received.
 */
function withOwnTraceparent(headers: Record<string, string>): Record<string, string> {
  const own = activeTraceparent();
  return own === undefined ? headers : { ...headers, traceparent: own };
}

export class Relay {
  /**
   * Deliveries of the same event in flight, until their result is in the capture log: a second one
   * waits for the first, then dedupes against it.
   */
  readonly #inFlight = new Map<string, Promise<void>>();

  constructor(private readonly opts: RelayOptions) {}

  async handle(d: VerifiedDelivery): Promise<RelayOutcome> {
    while (this.#inFlight.has(d.eventId)) await this.#inFlight.get(d.eventId);
    let settle!: () => void;
    this.#inFlight.set(d.eventId, new Promise<void>((r) => (settle = r)));
    const release = () => {
      this.#inFlight.delete(d.eventId);
      settle();
    };
    let result: { status: number; outcome: RelayOutcome['outcome']; forwardMs?: number; write?: () => void };
    try {
      result = await this.#handle(d);
    } catch (err) {
      release();
      throw err;
    }
    const { write, ...answer } = result;
    if (!write) {
      release();
      return { ...answer, recorded: RECORDED };
    }
    const recorded = new Promise<void>((resolve) =>
      setImmediate(() => {
        try {
          write();
        } catch (err) {
          // The app has its answer; only the local log missed it (disk full, file removed).
          this.opts.reporter.error(`capture log: could not record ${d.eventId}: ${(err as Error).message}`, { eventId: d.eventId });
        } finally {
          release();
          resolve();
        }
      }),
    );
    return { ...answer, recorded };
  }

  async #handle(
    d: VerifiedDelivery,
  ): Promise<{ status: number; outcome: RelayOutcome['outcome']; forwardMs?: number; write?: () => void }> {
    const { capture, reporter } = this.opts;
    const now = () => (this.opts.now?.() ?? new Date()).toISOString();
    const receivedAt = now();
    // Answered 200 and not forwarded: the sender must not retry what this receiver was told to leave out.
    const skip = (detail: string) => {
      reporter.event({
        time: receivedAt,
        eventId: d.eventId,
        eventType: d.eventType,
        outcome: 'skipped',
        status: 200,
        latencyMs: null,
        target: null,
        detail,
      });
      return { status: 200, outcome: 'skipped' as const };
    };
    if (this.opts.eventTypes.length > 0 && !this.opts.eventTypes.includes(d.eventType)) return skip('not in --events');
    const forwarder = this.opts.routes?.find((r) => typeMatches(r.pattern, d.eventType))?.forwarder ?? this.opts.forwarder;
    if (!forwarder) return skip('no --route takes this type');
    if (this.opts.dedupe && capture.alreadyDelivered(d.eventId)) {
      reporter.event({
        time: receivedAt,
        eventId: d.eventId,
        eventType: d.eventType,
        outcome: 'duplicate',
        status: 200,
        latencyMs: null,
        target: null,
        detail: 'already forwarded',
      });
      return { status: 200, outcome: 'duplicate' };
    }
    const result = await forwarder.forward(d.body, withOwnTraceparent(d.headers));
    const at = now();
    // One write per delivery, after the forward (see handle()): a crash before it loses nothing that
    // matters, the sender was not answered yet or the tunnel's cursor has not moved.
    // The console line too: stdout is a synchronous write when it is a pipe or a file.
    const ok = result.status >= 200 && result.status < 300;
    const write = () => {
      reporter.event({
        time: at,
        eventId: d.eventId,
        eventType: d.eventType,
        outcome: ok ? 'forwarded' : 'failed',
        status: result.status,
        target: forwarder.displayTarget,
        latencyMs: result.latencyMs,
        ...(result.error ? { detail: result.error } : {}),
      });
      capture.record({
        eventId: d.eventId,
        eventType: d.eventType,
        body: d.body,
        headers: d.headers,
        receivedAt,
        target: forwarder.target,
        status: result.status,
        at,
      });
    };
    return { status: result.status, outcome: ok ? 'forwarded' : 'failed', forwardMs: result.latencyMs, write };
  }
}
