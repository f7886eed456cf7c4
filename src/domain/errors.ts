/**
 * The one error type that crosses layers. `code` is stable (tests and clients match on it); the HTTP
 * layer turns it into an RFC 9457 problem with `status`. Services throw these; nothing else is
 * shown to a caller (any other error is a 500 whose details stay in the log).
 *
 * @module domain/errors
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
/** 401: the caller's credentials are missing or not accepted; the HTTP layer adds the Bearer challenge. */
export const unauthorized = (code: string, message: string) => new BorderdError(401, code, message);
export const forbidden = (code: string, message: string) => new BorderdError(403, code, message);
export const notFound = (what: string) => new BorderdError(404, 'not_found', `${what} was not found`);
export const conflict = (code: string, message: string) => new BorderdError(409, code, message);
