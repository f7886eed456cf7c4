/**
 * Sends a verified delivery to the local app: the byte-exact body, the signed headers and those
 * derived from the verified body (forwardedHeaders), plus the operator's -H headers. One keep-alive
 * pool for the whole process.
 *
 * @module receiver/forwarder
 */
import { Pool } from 'undici';
import { post } from '../http/post.js';
import { redactedUrl } from '../domain/url-redaction.js';

/** Bytes of the app's answer read (and dropped); past them its connection is closed instead of reused. */
const ANSWER_READ_LIMIT = 128 * 1024;

export interface ForwardResult {
  /** The local app's status; 502 when it could not be reached, 504 when it did not answer in time. */
  status: number;
  /** From handing the request to the pool to the end of the app's answer, in fractional ms. */
  latencyMs: number;
  error?: string;
}

/**
 * Headers the signature covers, or that carry it: passed on as received, once the signature verified.
 * Standard Webhooks' three are among them for a sender that signs that way.
 */
const SIGNED_HEADERS = ['x-signature', 'x-signature-key-id', 'webhook-id', 'webhook-timestamp', 'webhook-signature'] as const;

/**
 * What the app receives with a verified delivery, the same in listen and tunnel mode: content-type,
 * the signature headers, the event id and type taken from the verified body (never the sender's
 * headers of those names), and the delivery attempt when it is a plain count. Nothing else the
 * sender wrote reaches the app: a replayed genuine delivery with an added `authorization`, `cookie`
 * or `x-event-type` must not smuggle them past the signature.
 */
export function forwardedHeaders(
  received: Record<string, string | string[] | undefined>,
  event: { id: string; type: string },
  pass: readonly string[] = [],
): Record<string, string> {
  const single = (name: string): string | undefined => {
    const v = received[name];
    return typeof v === 'string' ? v : undefined;
  };
  const out: Record<string, string> = { 'content-type': single('content-type') ?? 'application/json', 'user-agent': 'borderd-receive' };
  for (const name of SIGNED_HEADERS) {
    const v = single(name);
    if (v !== undefined) out[name] = v;
  }
  out['x-event-id'] = event.id;
  out['x-event-type'] = event.type;
  const attempt = single('x-delivery-attempt');
  if (attempt !== undefined && /^[1-9]\d{0,5}$/.test(attempt)) out['x-delivery-attempt'] = attempt;
  // Unsigned, but only ever a well-formed W3C trace context: the app's spans continue the delivery's trace.
  const traceparent = single('traceparent');
  if (traceparent !== undefined && /^00-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$/.test(traceparent)) out.traceparent = traceparent;
  // Named by the operator (--pass-header): the sender's value, unsigned, never one of the headers above.
  for (const name of pass) {
    const v = single(name.toLowerCase());
    if (v !== undefined && !(name.toLowerCase() in out)) out[name.toLowerCase()] = v;
  }
  return out;
}

/** Parses repeated `-H "Name: value"` options. */
export function parseHeaderOptions(values: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const raw of values) {
    const i = raw.indexOf(':');
    const name = i > 0 ? raw.slice(0, i).trim().toLowerCase() : '';
    if (!name || !/^[!#$%&'*+.^_`|~0-9a-z-]+$/.test(name)) throw new Error(`-H "${raw}" is not "Name: value"`);
    out[name] = raw.slice(i + 1).trim();
  }
  return out;
}

export class Forwarder {
  /** One pool for the target's origin: keep-alive connections reused across deliveries. */
  readonly #pool: Pool;
  readonly #path: string;
  readonly #headers: Record<string, string>;
  readonly #timeoutMs: number;
  /** The target with any password masked: for the console, JSON lines and reports. */
  readonly displayTarget: string;

  constructor(
    readonly target: string,
    extraHeaders: Record<string, string> = {},
    timeoutMs = 30_000,
  ) {
    const url = new URL(target);
    this.displayTarget = redactedUrl(target);
    this.#path = url.pathname + url.search;
    // undici ignores user:password in a URL; a developer who wrote it expects basic auth (as curl does).
    const userinfo: Record<string, string> = {};
    if (url.username || url.password) {
      const credentials = `${decodeUserinfo(url.username)}:${decodeUserinfo(url.password)}`;
      userinfo.authorization = `Basic ${Buffer.from(credentials).toString('base64')}`;
    }
    this.#headers = { ...userinfo, ...extraHeaders };
    this.#timeoutMs = timeoutMs;
    // undici's own headersTimeout / bodyTimeout run on coarse timers (a short timeout can fire
    // about a second late) and each covers only one phase; forward() keeps one deadline of its own
    // instead.
    this.#pool = new Pool(url.origin, { connections: 16, keepAliveTimeout: 10_000, headersTimeout: 0, bodyTimeout: 0 });
  }

  /**
   * POSTs the delivery. The timeout is a deadline over the whole forward (connecting, sending, the
   * app's headers and body): past it the request is aborted and the result is a 504.
   */
  async forward(body: string | Buffer, headers: Record<string, string>): Promise<ForwardResult> {
    const started = performance.now();
    const latency = () => performance.now() - started;
    // Read the answer to the end so the connection goes back to the pool; a longer answer than the
    // limit closes its connection instead. The app's status is what counts: an answer whose body
    // breaks off after it was still answered (a 502 would have the sender deliver it again).
    const exchange = post(this.#pool, {
      path: this.#path,
      body,
      headers: { ...headers, ...this.#headers },
      keepBytes: 0,
      readLimit: ANSWER_READ_LIMIT,
      statusOnBodyError: true,
    });
    let timedOut = false;
    // A timer cleared as soon as the forward ends, not AbortSignal.timeout: that one stays armed for
    // the whole timeout (30 s by default), one per delivery.
    const timer = setTimeout(() => {
      timedOut = true;
      exchange.abort(new Error(`no answer within ${this.#timeoutMs} ms`));
    }, this.#timeoutMs);
    try {
      const answer = await exchange.answer;
      return { status: answer.statusCode, latencyMs: latency() };
    } catch (err) {
      if (timedOut) return { status: 504, latencyMs: latency(), error: `no answer within ${this.#timeoutMs} ms` };
      return { status: 502, latencyMs: latency(), error: (err as Error).message };
    } finally {
      clearTimeout(timer);
    }
  }

  close(): Promise<void> {
    return this.#pool.close();
  }
}

/** Percent-decoded userinfo; a malformed escape (a literal %) is taken as written, as curl does. */
function decodeUserinfo(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}
