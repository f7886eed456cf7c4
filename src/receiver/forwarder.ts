import { Agent, request, errors } from 'undici';

/**
 * Sends a verified delivery to the local app: the byte-exact body, the sender's headers minus
 * hop-by-hop ones, plus the operator's -H headers. One keep-alive pool for the whole process.
 */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'host',
  'content-length',
  'expect',
]);

export interface ForwardResult {
  /** The local app's status; 502 when it could not be reached, 504 when it did not answer in time. */
  status: number;
  latencyMs: number;
  error?: string;
}

export function forwardableHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  const connectionListed = new Set(
    String(headers.connection ?? '')
      .split(',')
      .map((h) => h.trim().toLowerCase())
      .filter(Boolean),
  );
  for (const [k, v] of Object.entries(headers)) {
    const name = k.toLowerCase();
    if (v === undefined || HOP_BY_HOP.has(name) || connectionListed.has(name)) continue;
    out[name] = Array.isArray(v) ? v.join(', ') : v;
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
  readonly #agent: Agent;

  constructor(
    readonly target: string,
    private readonly extraHeaders: Record<string, string> = {},
    private readonly timeoutMs = 30_000,
  ) {
    this.#agent = new Agent({ keepAliveTimeout: 10_000, connections: 16 });
  }

  async forward(body: string | Buffer, headers: Record<string, string>): Promise<ForwardResult> {
    const started = performance.now();
    const latency = () => Math.round(performance.now() - started);
    try {
      const res = await request(this.target, {
        method: 'POST',
        body,
        headers: { ...headers, ...this.extraHeaders },
        dispatcher: this.#agent,
        headersTimeout: this.timeoutMs,
        bodyTimeout: this.timeoutMs,
      });
      // Read the answer to the end so the connection goes back to the pool.
      await res.body.dump();
      return { status: res.statusCode, latencyMs: latency() };
    } catch (err) {
      const timedOut = err instanceof errors.HeadersTimeoutError || err instanceof errors.BodyTimeoutError;
      return { status: timedOut ? 504 : 502, latencyMs: latency(), error: (err as Error).message };
    }
  }

  close(): Promise<void> {
    return this.#agent.close();
  }
}
