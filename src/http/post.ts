/**
 * Sends one POST on an undici pool and reads its answer with a dispatch handler: the dispatcher's
 * deliveries and `borderd receive`'s forwards to the local app.
 *
 * Not `pool.request()`: that one wraps the answer in a Readable stream and follows an AbortSignal,
 * which neither caller needs (they keep at most a kilobyte of the answer and end on a timer of
 * their own), and which about doubles the client's CPU per POST (docs/webhooks.md, "Speed").
 *
 * @module http/post
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { Dispatcher } from 'undici';

/** What an endpoint answered, as much of it as a delivery keeps. */
export interface PostAnswer {
  statusCode: number;
  /** The first `keepBytes` of the answer's body, as UTF-8. */
  body: string;
  retryAfter: string | undefined;
}

/** One POST in flight: its answer, and a way to give up on it. */
export interface PostExchange {
  readonly answer: Promise<PostAnswer>;
  /** Rejects `answer` with `reason` at once and ends the request, wherever it is (queued, connecting, sending, reading). */
  abort(reason: Error): void;
  /** The request got a connection: false while it waits for one (queued in the pool, or connecting). */
  readonly connected: boolean;
}

export interface PostRequest {
  path: string;
  headers: Record<string, string>;
  body: string | Buffer;
  /** Bytes of the answer's body kept. */
  keepBytes: number;
  /** Past this many bytes read, the rest of the answer is dropped (the connection is then not reused). */
  readLimit: number;
  /**
   * An answer whose body breaks off (the connection reset or closed) after a final status came:
   * true resolves with that status, as an answered request; false (the default) rejects with the
   * connection's error, since only a complete answer counts. Either way the caller's own abort rejects.
   */
  statusOnBodyError?: boolean;
}

export function post(pool: Dispatcher, request: PostRequest): PostExchange {
  const reader = new AnswerReader(request.keepBytes, request.readLimit, request.statusOnBodyError ?? false);
  pool.dispatch({ method: 'POST', path: request.path, headers: request.headers, body: request.body }, reader);
  return reader;
}

class AnswerReader implements Dispatcher.DispatchHandler, PostExchange {
  readonly answer: Promise<PostAnswer>;
  #resolve!: (a: PostAnswer) => void;
  #reject!: (e: Error) => void;
  #settled = false;
  #controller: Dispatcher.DispatchController | undefined;
  /** Given before the request reached a socket: it is ended there. */
  #abortReason: Error | undefined;
  #statusCode = 0;
  #retryAfter: string | undefined;
  readonly #chunks: Buffer[] = [];
  #kept = 0;
  #read = 0;

  readonly #keepBytes: number;
  readonly #readLimit: number;
  readonly #statusOnBodyError: boolean;

  constructor(keepBytes: number, readLimit: number, statusOnBodyError: boolean) {
    this.#keepBytes = keepBytes;
    this.#readLimit = readLimit;
    this.#statusOnBodyError = statusOnBodyError;
    this.answer = new Promise<PostAnswer>((resolve, reject) => {
      this.#resolve = resolve;
      this.#reject = reject;
    });
  }

  get connected(): boolean {
    return this.#controller !== undefined;
  }

  abort(reason: Error): void {
    if (this.#settled) return;
    this.#fail(reason);
    if (this.#controller) this.#controller.abort(reason);
    else this.#abortReason = reason;
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.#controller = controller;
    if (this.#abortReason) controller.abort(this.#abortReason);
  }

  onResponseStart(_controller: Dispatcher.DispatchController, statusCode: number, headers: IncomingHttpHeaders): void {
    // A 1xx answer is followed by the real one, which sets these again.
    this.#statusCode = statusCode;
    const retryAfter = headers['retry-after'];
    this.#retryAfter = Array.isArray(retryAfter) ? retryAfter[0] : retryAfter;
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.#settled) return;
    if (this.#kept < this.#keepBytes) {
      const part = chunk.subarray(0, this.#keepBytes - this.#kept);
      this.#chunks.push(part);
      this.#kept += part.length;
    }
    this.#read += chunk.length;
    if (this.#read > this.#readLimit) {
      // Answered, and long: what was kept is the answer; the rest is not read.
      this.#succeed();
      controller.abort(new Error('answer longer than the read limit'));
    }
  }

  onResponseEnd(): void {
    this.#succeed();
  }

  onResponseError(_controller: Dispatcher.DispatchController | undefined, err: Error): void {
    // A caller's abort settled the answer already; this is the connection's own error.
    if (this.#statusOnBodyError && this.#statusCode >= 200) this.#succeed();
    else this.#fail(err);
  }

  #succeed(): void {
    if (this.#settled) return;
    this.#settled = true;
    this.#resolve({
      statusCode: this.#statusCode,
      body: this.#chunks.length === 1 ? this.#chunks[0]!.toString('utf8') : Buffer.concat(this.#chunks).toString('utf8'),
      retryAfter: this.#retryAfter,
    });
  }

  #fail(err: Error): void {
    if (this.#settled) return;
    this.#settled = true;
    this.#reject(err);
  }
}
