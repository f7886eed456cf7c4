/**
 * RFC 9457 problem details. `type` is a stable URN per error code (not dereferenced), `code`
 * repeats it for clients that switch on a short string, and `requestId` ties the answer to a log line.
 *
 * @module api/problems
 */
import type { Response } from 'express';
import { BorderdError, type FieldError } from '../domain/errors.js';

export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: string;
  instance?: string;
  requestId?: string;
  errors?: FieldError[];
}

const TITLES: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  410: 'Gone',
  413: 'Content Too Large',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Content',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
};

export const problemType = (code: string): string => `urn:borderd:problem:${code}`;

export function toProblem(err: BorderdError, instance?: string, requestId?: string): Problem {
  const problem: Problem = {
    type: problemType(err.code),
    title: err.extra.title ?? TITLES[err.status] ?? 'Error',
    status: err.status,
    detail: err.message,
    code: err.code,
  };
  if (instance) problem.instance = instance;
  if (requestId) problem.requestId = requestId;
  if (err.extra.errors) problem.errors = err.extra.errors;
  return problem;
}

/** The code of a 401 for a request with no credentials at all. */
export const MISSING_TOKEN = 'missing_token';

/**
 * RFC 6750's error_description allows printable ASCII except `"` and `\`. The message may quote
 * what an unauthenticated caller sent (a token's alg): a newline or non-Latin-1 character there
 * would make Node refuse the header (a 500), and a backslash would escape the closing quote.
 */
const challengeText = (message: string): string => message.replace(/"/g, "'").replace(/[^\x20\x21\x23-\x5b\x5d-\x7e]/g, '?');

/**
 * The WWW-Authenticate challenge of a 401: the bare `Bearer` for a request with no credentials
 * (RFC 6750 3.1 asks for no error code then), `invalid_token` with the reason otherwise.
 */
const challengeOf = (err: BorderdError): string =>
  err.code === MISSING_TOKEN ? 'Bearer' : `Bearer error="invalid_token", error_description="${challengeText(err.message)}"`;

export function sendProblem(res: Response, err: BorderdError): void {
  for (const [k, v] of Object.entries(err.extra.headers ?? {})) res.setHeader(k, v);
  if (err.status === 401) res.setHeader('WWW-Authenticate', challengeOf(err));
  const requestId = res.getHeader('x-request-id');
  const problem = toProblem(err, res.req.originalUrl.split('?')[0], typeof requestId === 'string' ? requestId : undefined);
  res.status(err.status).type('application/problem+json').send(JSON.stringify(problem));
}

export { BorderdError };
