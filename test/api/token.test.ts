import { describe, expect, it, vi } from 'vitest';
import { scrypt } from 'node:crypto';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import { makeApi, makeContext } from '../support/context.js';
import { createApiClient, createOrganization, revokeClient } from '../../src/services/organizations.js';

// scrypt, recorded: the client-secret check must cost the same whether or not the client exists.
vi.mock('node:crypto', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:crypto')>();
  return { ...actual, scrypt: vi.fn(actual.scrypt) };
});
/** Each scrypt call since `from`: key length and cost parameters (N, r, p). */
const scryptWork = (from: number) =>
  vi
    .mocked(scrypt)
    .mock.calls.slice(from)
    .map((c) => {
      const [, , keylen, opts] = c as unknown as [unknown, unknown, number, { N: number; r: number; p: number }];
      return { keylen, N: opts.N, r: opts.r, p: opts.p };
    });

describe('POST /v1/auth/m2m/token', () => {
  it('issues an ES256 JWT with kid, org and piiAccess', async () => {
    const ctx = await makeContext();
    const { http } = makeApi(ctx);
    const org = await createOrganization(ctx, 'Acme');
    const client = await createApiClient(ctx, { orgId: org.id });
    const res = await http.post('/v1/auth/m2m/token').send({ clientId: client.id, clientSecret: client.clientSecret });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ tokenType: 'Bearer', expiresIn: 3600, piiAccess: 'all' });
    const header = decodeProtectedHeader(res.body.accessToken);
    expect(header.alg).toBe('ES256');
    expect(header.kid).toMatch(/^key_/);
    const claims = decodeJwt(res.body.accessToken);
    expect(claims.org).toBe(org.id);
    expect(claims.sub).toBe(client.id);
    expect(claims.exp! - claims.iat!).toBe(3600);
  });

  it('takes its lifetime from config', async () => {
    const ctx = await makeContext({ 'auth.tokenTtlSeconds': 120 });
    const { http } = makeApi(ctx);
    const org = await createOrganization(ctx, 'Acme');
    const client = await createApiClient(ctx, { orgId: org.id });
    const res = await http.post('/v1/auth/m2m/token').send({ clientId: client.id, clientSecret: client.clientSecret });
    expect(res.body.expiresIn).toBe(120);
  });

  it('answers wrong id and wrong secret with the same 401', async () => {
    const ctx = await makeContext();
    const { http } = makeApi(ctx);
    const org = await createOrganization(ctx, 'Acme');
    const client = await createApiClient(ctx, { orgId: org.id });
    const wrongSecret = await http.post('/v1/auth/m2m/token').send({ clientId: client.id, clientSecret: 'bsk_nope' });
    const wrongId = await http.post('/v1/auth/m2m/token').send({ clientId: 'cli_unknown', clientSecret: client.clientSecret });
    for (const res of [wrongSecret, wrongId]) {
      expect(res.status).toBe(401);
      expect(res.headers['content-type']).toMatch(/application\/problem\+json/);
      expect(res.body.code).toBe('invalid_client');
    }
    expect(wrongSecret.body.detail).toBe(wrongId.body.detail);
  });

  it('does the same scrypt work for an unknown client as for a wrong secret', async () => {
    const ctx = await makeContext();
    const { http } = makeApi(ctx);
    const org = await createOrganization(ctx, 'Acme');
    const client = await createApiClient(ctx, { orgId: org.id });
    let from = vi.mocked(scrypt).mock.calls.length;
    const wrongSecret = await http.post('/v1/auth/m2m/token').send({ clientId: client.id, clientSecret: 'bsk_nope' });
    const secretWork = scryptWork(from);
    from = vi.mocked(scrypt).mock.calls.length;
    const unknownClient = await http.post('/v1/auth/m2m/token').send({ clientId: 'cli_unknown', clientSecret: 'bsk_nope' });
    const unknownWork = scryptWork(from);
    expect(wrongSecret.status).toBe(401);
    expect(unknownClient.body).toEqual({
      ...wrongSecret.body,
      instance: unknownClient.body.instance,
      requestId: unknownClient.body.requestId,
    });
    expect(secretWork).toEqual([{ keylen: 32, N: 16384, r: 8, p: 1 }]);
    expect(unknownWork).toEqual(secretWork);
  });

  it('checks at most auth.secretChecksAtOnce secrets at once; the others wait their turn and are answered', async () => {
    const ctx = await makeContext({ 'auth.secretChecksAtOnce': 1 });
    const { http } = makeApi(ctx);
    const org = await createOrganization(ctx, 'Acme');
    const client = await createApiClient(ctx, { orgId: org.id });
    const actual = (await vi.importActual<typeof import('node:crypto')>('node:crypto')).scrypt;
    let active = 0;
    let most = 0;
    vi.mocked(scrypt).mockImplementation(((...args: unknown[]) => {
      const done = args.pop() as (err: Error | null, key: Buffer) => void;
      active++;
      most = Math.max(most, active);
      (actual as (...a: unknown[]) => void)(...args, (err: Error | null, key: Buffer) => {
        active--;
        done(err, key);
      });
    }) as typeof scrypt);
    try {
      const answers = await Promise.all(
        [client.clientSecret, client.clientSecret, 'wrong-secret', 'wrong-secret'].map((clientSecret) =>
          http.post('/v1/auth/m2m/token').send({ clientId: client.id, clientSecret }),
        ),
      );
      expect(answers.map((r) => r.status)).toEqual([201, 201, 401, 401]);
      expect(most).toBe(1);
    } finally {
      vi.mocked(scrypt).mockImplementation(actual as typeof scrypt);
    }
  });

  it('keeps a share of the secret checks for clients issued a token before: a flood of wrong secrets from many addresses does not lock them out', async () => {
    const ctx = await makeContext({ 'auth.secretChecksAtOnce': 2 });
    const { tokens } = makeApi(ctx);
    const org = await createOrganization(ctx, 'Acme');
    const client = await createApiClient(ctx, { orgId: org.id });
    const credentials = { clientId: client.id, clientSecret: client.clientSecret };
    await tokens.issue(credentials, '192.0.2.1');
    // 130 addresses, one wrong secret each, all at once: more than the checks running and waiting.
    const flood = Array.from({ length: 130 }, (_, i) =>
      tokens.issue({ clientId: `cli_${i}`, clientSecret: 'wrong' }, `127.0.${Math.floor(i / 250)}.${(i % 250) + 2}`).then(
        () => 201,
        (err: { status: number }) => err.status,
      ),
    );
    const genuine = tokens.issue(credentials, '192.0.2.1');
    await expect(genuine).resolves.toMatchObject({ tokenType: 'Bearer' });
    const statuses = await Promise.all(flood);
    expect(statuses.filter((s) => s === 503).length).toBeGreaterThan(0);
    expect(statuses.every((s) => s === 401 || s === 503)).toBe(true);
  });

  it('answers an address that sent auth.failedTokenRequestsPerMinute wrong credentials 429, before checking any secret; other addresses go on', async () => {
    const ctx = await makeContext({ 'auth.failedTokenRequestsPerMinute': 2, 'server.trustProxy': ['loopback'] });
    const { http } = makeApi(ctx);
    const org = await createOrganization(ctx, 'Acme');
    const client = await createApiClient(ctx, { orgId: org.id });
    const from = (address: string, clientSecret: string) =>
      http.post('/v1/auth/m2m/token').set('x-forwarded-for', address).send({ clientId: client.id, clientSecret });
    // Successes cost nothing.
    for (let i = 0; i < 3; i++) expect((await from('203.0.113.7', client.clientSecret)).status).toBe(201);
    expect((await from('203.0.113.7', 'wrong-secret')).status).toBe(401);
    expect((await from('203.0.113.7', 'wrong-secret')).status).toBe(401);
    const checks = vi.mocked(scrypt).mock.calls.length;
    // Now even the right secret is refused, and no secret is checked for it.
    const blocked = await from('203.0.113.7', client.clientSecret);
    expect(blocked.status).toBe(429);
    expect(blocked.headers['content-type']).toMatch(/application\/problem\+json/);
    expect(blocked.body).toMatchObject({ status: 429, code: 'too_many_failed_token_requests' });
    expect(Number(blocked.headers['retry-after'])).toBe(30); // one try refills every 30 s at 2 a minute
    expect(vi.mocked(scrypt).mock.calls.length).toBe(checks);
    // Another address, and another /64 for IPv6, are not held back; the same /64 is.
    expect((await from('203.0.113.8', client.clientSecret)).status).toBe(201);
    expect((await from('2001:db8:0:1::1', 'wrong-secret')).status).toBe(401);
    expect((await from('2001:db8:0:1::2', 'wrong-secret')).status).toBe(401);
    expect((await from('2001:db8:0:1:ffff::3', client.clientSecret)).status).toBe(429);
    expect((await from('2001:db8:0:2::1', client.clientSecret)).status).toBe(201);
  });

  it('a concurrent burst of wrong secrets from one address gets no more secret checks than the limit', async () => {
    const ctx = await makeContext({ 'auth.failedTokenRequestsPerMinute': 2, 'server.trustProxy': ['loopback'] });
    const { http } = makeApi(ctx);
    const client = await createApiClient(ctx, { orgId: (await createOrganization(ctx, 'Acme')).id });
    const checks = vi.mocked(scrypt).mock.calls.length;
    const answers = await Promise.all(
      Array.from({ length: 20 }, () =>
        http.post('/v1/auth/m2m/token').set('x-forwarded-for', '203.0.113.9').send({ clientId: client.id, clientSecret: 'wrong-secret' }),
      ),
    );
    expect(answers.filter((r) => r.status === 401)).toHaveLength(2);
    expect(answers.filter((r) => r.status === 429)).toHaveLength(18);
    expect(vi.mocked(scrypt).mock.calls.length - checks).toBe(2);
    // Right secrets give their try back: a burst of them within the limit leaves it whole.
    const other = await Promise.all(
      [1, 2].map(() =>
        http
          .post('/v1/auth/m2m/token')
          .set('x-forwarded-for', '203.0.113.10')
          .send({ clientId: client.id, clientSecret: client.clientSecret }),
      ),
    );
    expect(other.map((r) => r.status)).toEqual([201, 201]);
    expect(
      (
        await http
          .post('/v1/auth/m2m/token')
          .set('x-forwarded-for', '203.0.113.10')
          .send({ clientId: client.id, clientSecret: 'wrong-secret' })
      ).status,
    ).toBe(401);
    expect(
      (
        await http
          .post('/v1/auth/m2m/token')
          .set('x-forwarded-for', '203.0.113.10')
          .send({ clientId: client.id, clientSecret: 'wrong-secret' })
      ).status,
    ).toBe(401);
  });

  it('refuses a revoked client with the same problem as bad credentials', async () => {
    const ctx = await makeContext();
    const { http } = makeApi(ctx);
    const org = await createOrganization(ctx, 'Acme');
    const client = await createApiClient(ctx, { orgId: org.id });
    await revokeClient(ctx, client.id);
    const res = await http.post('/v1/auth/m2m/token').send({ clientId: client.id, clientSecret: client.clientSecret });
    expect(res.status).toBe(401);
    expect(res.headers['content-type']).toMatch(/application\/problem\+json/);
    // The route documents unknown client, wrong secret and revoked client as indistinguishable.
    expect(res.body).toMatchObject({
      type: 'urn:borderd:problem:invalid_client',
      code: 'invalid_client',
      status: 401,
      detail: 'clientId and clientSecret do not match an active client',
    });
    expect(res.body).not.toHaveProperty('accessToken');
  });

  it('limits a redacted client: default redacted, explicit all is 403', async () => {
    const ctx = await makeContext();
    const { http } = makeApi(ctx);
    const org = await createOrganization(ctx, 'Acme');
    const client = await createApiClient(ctx, { orgId: org.id, piiAccess: 'redacted' });
    const implicit = await http.post('/v1/auth/m2m/token').send({ clientId: client.id, clientSecret: client.clientSecret });
    expect(implicit.status).toBe(201);
    expect(implicit.body.piiAccess).toBe('redacted');
    const all = await http.post('/v1/auth/m2m/token').send({ clientId: client.id, clientSecret: client.clientSecret, piiAccess: 'all' });
    expect(all.status).toBe(403);
    expect(all.body.code).toBe('pii_access_denied');
  });

  it('lets an unrestricted client ask for redacted', async () => {
    const ctx = await makeContext();
    const { http } = makeApi(ctx);
    const org = await createOrganization(ctx, 'Acme');
    const client = await createApiClient(ctx, { orgId: org.id });
    expect(client.piiAccess).toBe('all');
    const res = await http
      .post('/v1/auth/m2m/token')
      .send({ clientId: client.id, clientSecret: client.clientSecret, piiAccess: 'redacted' });
    expect(res.status).toBe(201);
    expect(res.body.piiAccess).toBe('redacted');
    expect(decodeJwt(res.body.accessToken).pii).toBe('redacted');
    // Asking nothing, the same client gets all.
    const all = await http.post('/v1/auth/m2m/token').send({ clientId: client.id, clientSecret: client.clientSecret });
    expect(decodeJwt(all.body.accessToken).pii).toBe('all');
  });

  it('refuses a body over 16 KiB with a 413 before parsing it (it is read before any authentication)', async () => {
    const ctx = await makeContext();
    const { http } = makeApi(ctx);
    const res = await http
      .post('/v1/auth/m2m/token')
      .set('content-type', 'application/json')
      .send('['.repeat(20_000) + ']'.repeat(20_000));
    expect([res.status, res.body.code, res.body.detail]).toEqual([413, 'body_too_large', 'request body exceeds 16384 bytes']);
  });

  it('validates the body and names the fields', async () => {
    const ctx = await makeContext();
    const { http } = makeApi(ctx);
    const res = await http.post('/v1/auth/m2m/token').send({ clientId: 'x', piiAccess: 'some', extra: 1 });
    expect(res.status).toBe(400);
    const paths = (res.body.errors as { path: string }[]).map((e) => e.path).sort();
    expect(paths).toEqual(['body', 'body.clientSecret', 'body.piiAccess']);
  });

  it('never logs the secret', async () => {
    const ctx = await makeContext();
    const { http } = makeApi(ctx);
    const org = await createOrganization(ctx, 'Acme');
    const client = await createApiClient(ctx, { orgId: org.id });
    await http.post('/v1/auth/m2m/token').send({ clientId: client.id, clientSecret: client.clientSecret });
    expect(ctx.logs.lines.some((l) => l.msg === 'request')).toBe(true);
    expect(ctx.logs.text()).not.toContain(client.clientSecret);
  });
});
