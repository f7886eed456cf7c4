/**
 * One HTTP attempt of a delivery: its POST on the webhook's own pool, under a deadline, and what
 * came of it as a SendResult (an answer of any status, or no answer and why). Also what a stop
 * does to sends: none starts once it is cut off, and those in flight are ended.
 *
 * @module delivery/dispatch/send
 */
import { storedHeaders } from '../../domain/delivery-headers.js';
import { post, type PostExchange } from '../../http/post.js';
import type { EndpointPools } from './endpoint-pools.js';
import { REFUSED_ADDRESS, type Job, type SendResult } from './job.js';

/** Bytes of an answer's body kept with the attempt. */
const RESPONSE_BODY_BYTES = 1024;
/** Past this many bytes the rest of a response is dropped (the connection is then not reused). */
const RESPONSE_READ_LIMIT = 64 * 1024;
/** A send's deadline timer that fires this much late gives a held-up answer this long more to be read. */
export const LATE_TIMER_MS = 100;

export class Sender {
  readonly #pools: EndpointPools;
  readonly #delivery: { readonly timeoutMs: number };
  readonly #exchanges = new Set<PostExchange>();
  #cutOff = false;

  constructor(pools: EndpointPools, delivery: { readonly timeoutMs: number }) {
    this.#pools = pools;
    this.#delivery = delivery;
  }

  /** Whether a stop's grace is over: nothing more is sent, and a send it ended has no known outcome. */
  get cutOff(): boolean {
    return this.#cutOff;
  }

  /** Ends every send in flight and lets none start (a stop whose grace is over). */
  cutOffAll(): void {
    this.#cutOff = true;
    for (const x of this.#exchanges) x.abort(new Error('shutting down'));
  }

  async send(job: Job, headers: Record<string, string>): Promise<SendResult> {
    const t0 = performance.now();
    const done = (r: Omit<SendResult, 'durationMs'>): SendResult => ({ ...r, durationMs: Math.round(performance.now() - t0) });
    const target = this.#pools.target(job.webhook.url);
    if (target.refused) {
      return done({
        statusCode: null,
        error: `${REFUSED_ADDRESS}private, loopback or link-local target`,
        responseBody: null,
        retryAfter: undefined,
      });
    }
    // A stop's grace ended while this job waited for its signature: send nothing (the stop gives the lease back).
    if (this.#cutOff) return done({ statusCode: null, error: 'not sent: shutting down', responseBody: null, retryAfter: undefined });
    const entry = this.#pools.acquire(job.webhook.id, target);
    const { timeoutMs } = this.#delivery;
    const exchange = post(entry.pool, {
      path: target.path,
      headers,
      body: job.body,
      keepBytes: RESPONSE_BODY_BYTES,
      readLimit: RESPONSE_READ_LIMIT,
    });
    // What the attempt records of its request, taken now from the headers made for it.
    const requestHeaders = storedHeaders(headers);
    const signature = headers['x-signature'];
    let timer: NodeJS.Timeout;
    const expire = (late: boolean) => {
      // Fired well past its time: the event loop was held (a long garbage collection, a write that
      // waited for a lock). The answer may have arrived meanwhile, unread; timers run before I/O, so
      // it gets one more short wait to be read rather than being recorded as a timeout.
      if (!late && performance.now() - t0 > timeoutMs + LATE_TIMER_MS) {
        timer = setTimeout(() => expire(true), LATE_TIMER_MS);
        return;
      }
      // Said apart: an endpoint that took no connection in time, and one that did not answer in time.
      const e = new Error(exchange.connected ? `no complete answer within ${timeoutMs} ms` : `no connection within ${timeoutMs} ms`);
      e.name = 'TimeoutError';
      exchange.abort(e);
    };
    // The webhook's own pool has a socket for each of its slots, so the clock starts when the request can go.
    timer = setTimeout(() => expire(false), timeoutMs);
    this.#exchanges.add(exchange);
    try {
      const answer = await exchange.answer;
      return done({
        statusCode: answer.statusCode,
        error: null,
        responseBody: answer.body,
        retryAfter: answer.retryAfter,
        requestHeaders,
        signature,
      });
    } catch (err) {
      const e = err as Error & { code?: string; cause?: { code?: string; message?: string } };
      const code = e.code ?? e.cause?.code ?? e.name;
      return done({
        statusCode: null,
        error: `${code}: ${e.cause?.message ?? e.message}`.slice(0, 500),
        responseBody: null,
        retryAfter: undefined,
        requestHeaders,
        signature,
      });
    } finally {
      clearTimeout(timer);
      this.#exchanges.delete(exchange);
      this.#pools.release(entry);
    }
  }
}
