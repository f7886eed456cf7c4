/**
 * The one error type that crosses layers. `code` is stable (tests and clients match on it); the HTTP
 * layer turns it into an RFC 9457 problem with `status`. Services throw these; nothing else is
 * shown to a caller (any other error is a 500 whose details stay in the log).
 */
export interface FieldError {
  path: string;
  message: string;
}

export class BorderdError extends Error {
  override name = 'BorderdError';
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly extra: { errors?: FieldError[]; headers?: Record<string, string>; title?: string } = {},
  ) {
    super(message);
  }
}

export const badRequest = (code: string, message: string, errors?: FieldError[]) =>
  new BorderdError(400, code, message, errors ? { errors } : {});
/**
 * RFC 6750's error_description allows printable ASCII except `"` and `\`. The message may quote what
 * an unauthenticated caller sent (a token's alg): a newline or non-Latin-1 character there made
 * Node refuse the header (a 500), and a backslash escaped the closing quote.
 */
const challengeText = (message: string): string => message.replace(/"/g, "'").replace(/[^\x20\x21\x23-\x5b\x5d-\x7e]/g, '?');
export const unauthorized = (code: string, message: string) =>
  new BorderdError(401, code, message, {
    headers: { 'WWW-Authenticate': `Bearer error="invalid_token", error_description="${challengeText(message)}"` },
  });
/** A request with no credentials at all: the bare challenge, since RFC 6750 (3.1) asks for no error code then. */
export const credentialsMissing = (code: string, message: string) =>
  new BorderdError(401, code, message, { headers: { 'WWW-Authenticate': 'Bearer' } });
export const forbidden = (code: string, message: string) => new BorderdError(403, code, message);
export const notFound = (what: string) => new BorderdError(404, 'not_found', `${what} was not found`);
export const conflict = (code: string, message: string) => new BorderdError(409, code, message);
