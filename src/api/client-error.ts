/**
 * `server.on('clientError')`: Node's own handler answers a request its parser refused (headers over
 * 16 KiB, a Content-Length that is not a number) with a bare status line; this one answers with the
 * same status as problem JSON and an x-request-id, like every other error. Nothing is written when
 * the peer is gone or a response has already started on the socket.
 *
 * @module api/client-error
 */
import type { Socket } from 'node:net';
import type { Logger } from '../logging/logger.js';
import { newId } from '../domain/ids.js';
import { BorderdError } from '../domain/errors.js';
import { toProblem } from './problems.js';

/** The answer to a request Node's HTTP parser refused before express saw it, by the parser's code. */
function clientErrorProblem(code: string | undefined): BorderdError {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      return new BorderdError(431, 'headers_too_large', 'the request line and headers are larger than this server accepts (16 KiB)', {
        title: 'Request Header Fields Too Large',
      });
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return new BorderdError(408, 'request_timeout', 'the request did not arrive in time', { title: 'Request Timeout' });
    default:
      return new BorderdError(400, 'malformed_request', 'the request is not valid HTTP/1.1', { title: 'Bad Request' });
  }
}

export function answerClientError(err: Error & { code?: string }, socket: Socket, log: Logger): void {
  const inProgress = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent === true;
  if (err.code === 'ECONNRESET' || !socket.writable || inProgress) {
    socket.destroy();
    return;
  }
  const problem = clientErrorProblem(err.code);
  const requestId = newId('req');
  const body = JSON.stringify(toProblem(problem, undefined, requestId));
  log.debug({ requestId, code: err.code, status: problem.status }, 'request refused by the HTTP parser');
  socket.end(
    `HTTP/1.1 ${problem.status} ${problem.extra.title}\r\n` +
      'content-type: application/problem+json\r\n' +
      `content-length: ${Buffer.byteLength(body)}\r\n` +
      `x-request-id: ${requestId}\r\n` +
      'connection: close\r\n\r\n' +
      body,
  );
}
