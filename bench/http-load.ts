import { performance } from 'node:perf_hooks';
import autocannon from 'autocannon';

/** What one autocannon run measured, in the units the tables print. */
export interface LoadResult {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  requests: number;
  non2xx: number;
  errors: number;
}

export interface LoadOptions {
  url: string;
  headers?: Record<string, string>;
  method?: 'GET' | 'POST';
  /** For POST: a fresh body per request (unique ids). */
  body?: () => string;
  /** Headers of each request besides `headers` (a fresh Idempotency-Key per request). */
  requestHeaders?: () => Record<string, string>;
  connections?: number;
  durationSeconds?: number;
  /** Stop after this many requests instead of after a duration. */
  amount?: number;
  /** Requests/s offered in total (open-ish loop); unset = as fast as the server answers. */
  overallRate?: number;
  /** Per request; autocannon's default is 10 s. */
  timeoutSeconds?: number;
}

/** Drives one URL with autocannon from this process (127.0.0.1 only) and returns its figures. */
export async function load(opts: LoadOptions): Promise<LoadResult> {
  const body = opts.body;
  const t0 = performance.now();
  let lastResponse = t0;
  const options: autocannon.Options = {
    url: opts.url,
    method: opts.method ?? 'GET',
    headers: { ...(body ? { 'content-type': 'application/json' } : {}), ...opts.headers },
    connections: opts.connections ?? 10,
    ...(opts.amount !== undefined ? { amount: opts.amount } : { duration: opts.durationSeconds ?? 5 }),
    ...(opts.overallRate !== undefined ? { overallRate: opts.overallRate } : {}),
    ...(opts.timeoutSeconds !== undefined ? { timeout: opts.timeoutSeconds } : {}),
    ...(body
      ? {
          requests: [
            {
              method: 'POST' as const,
              setupRequest: (req: autocannon.Request) => ({
                ...req,
                body: body(),
                ...(opts.requestHeaders ? { headers: { ...req.headers, ...opts.requestHeaders() } } : {}),
              }),
            },
          ],
        }
      : {}),
  };
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(options, (err: unknown, r: autocannon.Result) =>
      err ? reject(err instanceof Error ? err : new Error(String(err))) : resolve(r),
    );
    instance.on('response', () => {
      lastResponse = performance.now();
    });
  });
  // autocannon's requests.average is per-second samples, and a run bounded by `amount` lasts at least
  // one of its 1 s ticks; completed requests over the time to the last answer is the honest rate.
  const completed = result['2xx'] + result.non2xx;
  const seconds = (lastResponse - t0) / 1000;
  return {
    requestsPerSecond: seconds > 0 ? completed / seconds : 0,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    requests: completed,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
  };
}
