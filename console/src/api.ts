/**
 * The console's one way to the API: the session (who signed in, with which token) and calls that
 * turn problem answers into errors a page can show. The session lives in sessionStorage (this tab
 * only, gone when it closes); the token is sent in the Authorization header, never in a URL.
 *
 * @module console/api
 */
import type { IssuedToken, Organizations } from './types.js';

export interface Session {
  mode: 'operator' | 'tenant';
  token: string;
  /** Who signed in, as the header shows it (the client id, or "operator"). */
  label: string;
  /** The operator's chosen organization. */
  orgId?: string;
}

const KEY = 'borderd.console.session';

export function loadSession(): Session | undefined {
  const raw = sessionStorage.getItem(KEY);
  if (!raw) return undefined;
  try {
    return JSON.parse(raw) as Session;
  } catch {
    return undefined;
  }
}

export function saveSession(s: Session | undefined): void {
  if (s) sessionStorage.setItem(KEY, JSON.stringify(s));
  else sessionStorage.removeItem(KEY);
}

/** A problem answer (RFC 9457) or a failed request. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** Called when the token is refused: the console signs out. */
let onUnauthorized: () => void = () => undefined;
export const whenUnauthorized = (fn: () => void): void => void (onUnauthorized = fn);

/** `signingIn`: a refused token is the sign-in's own error to show, not the end of a session. */
export async function call<T>(session: Session | undefined, method: string, path: string, body?: unknown, signingIn = false): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (session) headers.authorization = `Bearer ${session.token}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(path, { method, headers, body: body === undefined ? null : JSON.stringify(body), credentials: 'omit' });
  const text = await res.text();
  const json = text ? (JSON.parse(text) as unknown) : undefined;
  if (!res.ok) {
    const p = (json ?? {}) as { code?: string; detail?: string; title?: string };
    if (res.status === 401 && session && !signingIn) onUnauthorized();
    throw new ApiError(res.status, p.code ?? 'error', p.detail ?? p.title ?? `${res.status} ${res.statusText}`);
  }
  return json as T;
}

/** Where the organization's outbox routes are for this session. */
export function notifications(s: Session): string {
  return s.mode === 'tenant' ? '/v1/notifications' : `/admin/v1/organizations/${encodeURIComponent(s.orgId ?? '')}/notifications`;
}

/** A query string of the defined values. */
export function query(params: Record<string, string | number | undefined>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== '') q.set(k, String(v));
  const s = q.toString();
  return s ? `?${s}` : '';
}

export async function signInTenant(clientId: string, clientSecret: string): Promise<Session> {
  const t = await call<IssuedToken>(undefined, 'POST', '/v1/auth/m2m/token', { clientId, clientSecret });
  return { mode: 'tenant', token: t.accessToken, label: clientId };
}

export async function signInOperator(token: string): Promise<Session> {
  const s: Session = { mode: 'operator', token, label: 'operator' };
  const orgs = await call<Organizations>(s, 'GET', '/admin/v1/organizations', undefined, true);
  const first = orgs.data[0];
  return first ? { ...s, orgId: first.id } : s;
}
