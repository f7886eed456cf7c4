import { decodeJwt } from 'jose';
import { expect } from 'vitest';
import type { RunningBorderd } from './process.js';

// Why: many process tests need an M2M access token from a running borderd before the part they test; one place asks for it and checks the answer.

/**
 * POSTs client credentials (the first-start ones printed by `serve` unless others are given) to
 * `/v1/auth/m2m/token` of a running daemon; fails the test unless it answers 201 with an access token.
 */
export async function daemonToken(
  daemon: Pick<RunningBorderd, 'url' | 'credentials'>,
  credentials: { clientId: string; clientSecret: string } | undefined = daemon.credentials,
): Promise<{ accessToken: string; orgId: string }> {
  expect(credentials, 'client credentials (the daemon printed none?)').toBeDefined();
  const res = await fetch(`${daemon.url}/v1/auth/m2m/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ clientId: credentials!.clientId, clientSecret: credentials!.clientSecret }),
  });
  const body = (await res.json()) as { accessToken?: unknown };
  expect(res.status, JSON.stringify(body)).toBe(201);
  expect(body.accessToken, JSON.stringify(body)).toEqual(expect.any(String));
  const accessToken = body.accessToken as string;
  return { accessToken, orgId: String(decodeJwt(accessToken).org) };
}
