/**
 * One POST to a provider, shared by the adapters: a timeout, no redirects, and the provider's
 * answer mapped to what the caller should be told. The body is never logged (it holds credentials).
 *
 * @module integrations/provider-call
 */
import { z } from 'zod';
import { request } from 'undici';
import { BorderdError, badRequest } from '../domain/errors.js';

export interface ProviderCall {
  baseUrl: string;
  path: string;
  timeoutMs: number;
  headers?: Record<string, string>;
  body: string;
  contentType?: string;
}

/** A provider's answer is a small JSON object; past this the call fails instead of reading on. */
const ANSWER_LIMIT_BYTES = 1024 * 1024;

/** The answer's text, at most ANSWER_LIMIT_BYTES; a longer one is a 502, and the rest is not read. */
async function readAnswer(body: AsyncIterable<Buffer> & { destroy(): unknown }): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > ANSWER_LIMIT_BYTES) {
      body.destroy();
      throw new BorderdError(502, 'provider_error', `the provider answered with a body larger than ${ANSWER_LIMIT_BYTES} bytes`);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * timeoutMs bounds the whole call, the answer's body included. undici's headersTimeout and
 * bodyTimeout only bound the wait for the headers and between two chunks, so a provider sending a
 * byte a second would hold the API request open without end.
 */
export async function postToProvider(call: ProviderCall): Promise<unknown> {
  let res: Awaited<ReturnType<typeof request>>;
  let text: string;
  const deadline = AbortSignal.timeout(call.timeoutMs);
  try {
    res = await request(new URL(call.path, call.baseUrl.endsWith('/') ? call.baseUrl : call.baseUrl + '/'), {
      method: 'POST',
      headers: { 'content-type': call.contentType ?? 'application/json', accept: 'application/json', ...call.headers },
      body: call.body,
      headersTimeout: call.timeoutMs,
      bodyTimeout: call.timeoutMs,
      signal: deadline,
    });
    // Inside the try: a connection that breaks or stalls mid-answer is the provider's failure too.
    text = await readAnswer(res.body);
  } catch (err) {
    if (err instanceof BorderdError) throw err;
    if (deadline.aborted)
      throw new BorderdError(
        502,
        'provider_unreachable',
        `the provider did not answer in full within ${call.timeoutMs} ms (integrations.timeoutMs)`,
      );
    throw new BorderdError(
      502,
      'provider_unreachable',
      `the provider could not be reached or broke off its answer (${(err as Error).name})`,
    );
  }
  if (res.statusCode === 401 || res.statusCode === 403) {
    throw badRequest('provider_rejected_credentials', 'the provider refused these credentials', [
      { path: 'body', message: 'credentials refused by the provider' },
    ]);
  }
  if (res.statusCode < 200 || res.statusCode >= 300)
    throw new BorderdError(502, 'provider_error', `the provider answered ${res.statusCode}`);
  if (!text) return {};
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new BorderdError(502, 'provider_error', 'the provider answered with a body that is not JSON');
  }
}

/**
 * A credential sent to a provider as an HTTP header value: printable ASCII, no space at either end.
 * A control character (CR, LF) cannot go into a header at all; refused here it is a 400 naming the
 * field, not a request that fails as if the provider were down.
 */
export const headerCredential = (max: number) =>
  z
    .string()
    .min(1)
    .max(max)
    .regex(
      /^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/,
      'must be printable ASCII, without spaces at either end (it is sent as an HTTP header)',
    );
