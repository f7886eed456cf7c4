/**
 * How borderd prints a URL: the one redaction for logs, errors, /metrics and the CLI. A password in
 * the userinfo, and the value of any query parameter whose name says it holds a secret
 * (`password`, `sslpassword`, `token`, `api_key`, `client_secret`, `signature`…), become `***`.
 * The user name, host, path and the other parameters stay, so two targets can still be told apart.
 *
 * @module domain/url-redaction
 */

/** What a masked part reads as. */
export const REDACTED = '***';

/** A query parameter name that may carry a credential. */
const SECRET_PARAM = /pass|secret|token|key|sig|auth|credential|session|cookie/i;

/** Whether a query parameter of this name is masked when its URL is printed. */
export const isSecretParam = (name: string): boolean => SECRET_PARAM.test(name);

/**
 * The URL as it may be printed. A string that does not parse as a URL is not echoed at all (it may
 * be a secret pasted in the wrong place): it reads `(unparsable URL)`.
 */
export function redactedUrl(url: string): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return '(unparsable URL)';
  }
  const secrets = [...u.searchParams.keys()].filter(isSecretParam);
  // Nothing to mask: the URL as it was written, which is how its owner knows it.
  if (!u.password && secrets.length === 0) return url;
  if (u.password) u.password = REDACTED;
  if (secrets.length === 0) return u.toString();
  // Rebuilt by hand: URLSearchParams would percent-encode the `*` of the mask.
  const query = [...u.searchParams.entries()]
    .map(([name, value]) => `${encodeURIComponent(name)}=${isSecretParam(name) ? REDACTED : encodeURIComponent(value)}`)
    .join('&');
  u.search = '';
  const hash = u.hash;
  u.hash = '';
  return `${u.toString()}?${query}${hash}`;
}
