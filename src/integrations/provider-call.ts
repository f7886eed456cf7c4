import { request } from 'undici';
import { BorderdError, badRequest } from '../domain/errors.js';

/**
 * One POST to a provider, shared by the adapters: a timeout, no redirects, and the provider's
 * answer mapped to what the caller should be told. The body is never logged (it holds credentials).
 */
export interface ProviderCall {
  baseUrl: string;
  path: string;
  timeoutMs: number;
  headers?: Record<string, string>;
  body: string;
  contentType?: string;
}

export async function postToProvider(call: ProviderCall): Promise<unknown> {
  let res: Awaited<ReturnType<typeof request>>;
  try {
    res = await request(new URL(call.path, call.baseUrl.endsWith('/') ? call.baseUrl : call.baseUrl + '/'), {
      method: 'POST',
      headers: { 'content-type': call.contentType ?? 'application/json', accept: 'application/json', ...call.headers },
      body: call.body,
      headersTimeout: call.timeoutMs,
      bodyTimeout: call.timeoutMs,
    });
  } catch (err) {
    throw new BorderdError(502, 'provider_unreachable', `the provider could not be reached (${(err as Error).name})`);
  }
  const text = await res.body.text();
  if (res.statusCode === 401 || res.statusCode === 403) {
    throw badRequest('provider_rejected_credentials', 'the provider refused these credentials', [{ path: 'body', message: 'credentials refused by the provider' }]);
  }
  if (res.statusCode < 200 || res.statusCode >= 300) throw new BorderdError(502, 'provider_error', `the provider answered ${res.statusCode}`);
  if (!text) return {};
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new BorderdError(502, 'provider_error', 'the provider answered with a body that is not JSON');
  }
}
