/**
 * One HTTP attempt of a delivery: its POST on the webhook's own pool, under a deadline, and what
 * came of it as a SendResult (an answer of any status, or no answer and why). Also what a stop
 * does to sends: none starts once it is cut off, and those in flight are ended. The deadlines of
 * the sends in flight share one timer (send-deadlines.ts).
 *
 * @module delivery/dispatch/send
 */
import { post, type PostExchange } from '../../http/post.js';
import type { EndpointPools } from './endpoint-pools.js';
import { REFUSED_ADDRESS, type Job, type SendResult } from './job.js';
import { SendDeadlines } from './send-deadlines.js';

/** Bytes of an answer's body kept with the attempt. */
const RESPONSE_BODY_BYTES = 1024;
/** Past this many bytes the rest of a response is dropped (the connection is then not reused). */
const RESPONSE_READ_LIMIT = 64 * 1024;

/** A send in flight, as its deadline sees it. */
interface InFlight {
  readonly exchange: PostExchange;
  readonly timeoutMs: number;
}

/** Ends a send whose deadline passed, saying apart an endpoint that took no connection in time and one that did not answer in time. */
function expire({ exchange, timeoutMs }: InFlight): void {
  const e = new Error(exchange.connected ? `no complete answer within ${timeoutMs} ms` : `no connection within ${timeoutMs} ms`);
  e.name = 'TimeoutError';
  exchange.abort(e);
}

/** A send's result, `durationMs` counted from `t0` (performance.now()). */
function resultOf(
  t0: number,
  statusCode: number | null,
  error: string | null,
  responseBody: string | null,
  retryAfter: string | undefined,
  requestHeaders?: Readonly<Record<string, string>>,
): SendResult {
  const durationMs = Math.round(performance.now() - t0);
  return requestHeaders
    ? { statusCode, error, responseBody, retryAfter, durationMs, requestHeaders }
    : { statusCode, error, responseBody, retryAfter, durationMs };
}

export class Sender {
  readonly #pools: EndpointPools;
  readonly #delivery: { readonly timeoutMs: number };
  readonly #deadlines = new SendDeadlines<InFlight>(expire);
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
    for (const x of [...this.#deadlines.items()]) x.exchange.abort(new Error('shutting down'));
  }

  async send(job: Job, headers: Record<string, string>): Promise<SendResult> {
    const t0 = performance.now();
    const target = this.#pools.target(job.webhook.url);
    if (target.refused) return resultOf(t0, null, `${REFUSED_ADDRESS}private, loopback or link-local target`, null, undefined);
    // A stop's grace ended while this job waited for its signature: send nothing (the stop gives the lease back).
    if (this.#cutOff) return resultOf(t0, null, 'not sent: shutting down', null, undefined);
    const entry = this.#pools.acquire(job.webhook.id, target);
    const { timeoutMs } = this.#delivery;
    const exchange = post(entry.pool, {
      path: target.path,
      headers,
      body: job.body,
      keepBytes: RESPONSE_BODY_BYTES,
      readLimit: RESPONSE_READ_LIMIT,
    });
    // The webhook's own pool has a socket for each of its slots, so the clock starts when the request can go.
    const deadline = this.#deadlines.add({ exchange, timeoutMs }, timeoutMs, t0);
    try {
      const answer = await exchange.answer;
      return resultOf(t0, answer.statusCode, null, answer.body, answer.retryAfter, headers);
    } catch (err) {
      const e = err as Error & { code?: string; cause?: { code?: string; message?: string } };
      const code = e.code ?? e.cause?.code ?? e.name;
      return resultOf(t0, null, `${code}: ${e.cause?.message ?? e.message}`.slice(0, 500), null, undefined, headers);
    } finally {
      this.#deadlines.remove(deadline);
      this.#pools.release(entry);
    }
  }
}
