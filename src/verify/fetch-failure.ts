/**
 * Why a `fetch` to borderd failed, in words naming the URL: undici rejects every network failure
 * with the same "fetch failed" and keeps the reason (a refused connection, a name that does not
 * resolve) in `cause`.
 *
 * @module verify/fetch-failure
 */

/** The words for the network errors a developer meets first; others keep their own message. */
const REASONS: Record<string, (url: string, host: string) => string> = {
  ECONNREFUSED: (url) => `connection refused to ${url}`,
  ECONNRESET: (url) => `connection reset by ${url}`,
  ENOTFOUND: (_url, host) => `${host} does not resolve`,
  EAI_AGAIN: (_url, host) => `${host} could not be resolved now`,
  ETIMEDOUT: (url) => `connection to ${url} timed out`,
  EHOSTUNREACH: (url) => `no route to ${url}`,
  UND_ERR_CONNECT_TIMEOUT: (url) => `connection to ${url} timed out`,
};

const codeOf = (err: unknown): string | undefined => {
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code === 'string') return code;
  // Several addresses tried for one name (IPv6 and IPv4): the first error speaks for all.
  const errors = (err as { errors?: unknown[] } | null)?.errors;
  return Array.isArray(errors) ? codeOf(errors[0]) : undefined;
};

/** The reason a fetch of `url` was rejected: "connection refused to <url>" and the like, else the error's own message. */
export function fetchFailure(err: unknown, url: string): string {
  const cause = (err as { cause?: unknown } | null)?.cause;
  const code = codeOf(cause) ?? codeOf(err);
  const reason = code ? REASONS[code] : undefined;
  if (reason) return reason(url, URL.canParse(url) ? new URL(url).host : url);
  const message = err instanceof Error ? err.message : String(err);
  return cause instanceof Error && cause.message ? `${message}: ${cause.message}` : message;
}
