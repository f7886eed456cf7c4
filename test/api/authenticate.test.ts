import { describe, expect, it, vi } from 'vitest';
import { generateKeyPair, SignJWT, decodeProtectedHeader, decodeJwt, UnsecuredJWT, importJWK, jwtVerify } from 'jose';
import { createHmac } from 'node:crypto';
import { z } from 'zod';
import { makeContext, makeOrg, ADMIN_TOKEN } from '../support/context.js';
import { createApp } from '../../src/api/app.js';
import { TokenService, VerifiedTokenCache, type VerifiedClaims } from '../../src/services/tokens.js';
import { revokeClient } from '../../src/services/organizations.js';
import type { RouteModule } from '../../src/api/route.js';
import request from 'supertest';
import { getTokenKey } from '../../src/store/token-keys.js';

// jose's jwtVerify, counted: a token served from the verified-token cache is not verified again.
vi.mock('jose', async (importOriginal) => {
  const actual = await importOriginal<typeof import('jose')>();
  return { ...actual, jwtVerify: vi.fn(actual.jwtVerify) };
});
const signatureChecks = () => vi.mocked(jwtVerify).mock.calls.length;

/** A protected route that echoes what the middleware attached. */
const probe: RouteModule = (api) => {
  api.route({
    method: 'get',
    path: '/v1/probe',
    summary: 'probe',
    auth: 'bearer',
    responses: { 200: { description: 'ok', schema: z.object({}) } },
    handler: ({ auth }) => ({ body: auth }),
  });
  api.route({
    method: 'get',
    path: '/admin/v1/probe',
    summary: 'admin probe',
    auth: 'admin',
    responses: { 200: { description: 'ok' } },
    handler: () => ({ body: { admin: true } }),
  });
};

async function setup(opts: { verifiedTokenCacheSize?: number } = {}) {
  const ctx = await makeContext();
  const tokens = new TokenService(ctx, opts);
  const { app } = createApp({ ctx, tokens, adminToken: ADMIN_TOKEN }, [probe]);
  const org = await makeOrg(ctx, tokens);
  return { ctx, tokens, http: request(app), ...org };
}

function expect401(res: request.Response, code: string) {
  expect(res.status).toBe(401);
  expect(res.headers['www-authenticate']).toMatch(/^Bearer/);
  expect(res.headers['content-type']).toMatch(/application\/problem\+json/);
  expect(res.body.code).toBe(code);
  expect(res.body.status).toBe(401);
}

describe('bearer authentication', () => {
  it('attaches the organization, client and piiAccess of a valid token', async () => {
    const { http, auth, org, client } = await setup();
    const res = await http.get('/v1/probe').set('Authorization', auth);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ orgId: org.id, clientId: client.id, piiAccess: 'all' });
  });

  it('refuses a missing header', async () => {
    const { http } = await setup();
    const missing = await http.get('/v1/probe');
    expect401(missing, 'missing_token');
    expect(missing.headers['www-authenticate']).toBe('Bearer'); // no error code without credentials (RFC 6750, 3.1)
  });

  it('takes the scheme in any case, as RFC 7235 has it', async () => {
    const { http, token, org } = await setup();
    for (const scheme of ['bearer', 'BEARER', 'bEaReR']) {
      const res = await http.get('/v1/probe').set('Authorization', `${scheme} ${token}`);
      expect(res.status).toBe(200);
      expect(res.body.orgId).toBe(org.id);
    }
    expect((await http.get('/admin/v1/probe').set('Authorization', `bearer ${ADMIN_TOKEN}`)).body).toEqual({ admin: true });
  });

  it('refuses a malformed header', async () => {
    const { http, token } = await setup();
    expect401(await http.get('/v1/probe').set('Authorization', `Token ${token}`), 'malformed_authorization');
    expect401(await http.get('/v1/probe').set('Authorization', 'Bearer not a jwt'), 'malformed_authorization');
    expect401(await http.get('/v1/probe').set('Authorization', 'Bearer abc.def'), 'malformed_token');
  });

  it('refuses a bad signature', async () => {
    const { http, token } = await setup();
    const [h, p, s] = token.split('.');
    const flipped = s![0] === 'A' ? 'B' + s!.slice(1) : 'A' + s!.slice(1);
    expect401(await http.get('/v1/probe').set('Authorization', `Bearer ${h}.${p}.${flipped}`), 'bad_token_signature');
  });

  it('refuses a token signed by another key under our kid', async () => {
    const { http, token } = await setup();
    const { kid } = decodeProtectedHeader(token);
    const { privateKey } = await generateKeyPair('ES256');
    const forged = await new SignJWT({ org: 'org_x', pii: 'all' })
      .setProtectedHeader({ alg: 'ES256', kid: kid! })
      .setIssuer('borderd')
      .setSubject('cli_x')
      .setExpirationTime('1h')
      .sign(privateKey);
    expect401(await http.get('/v1/probe').set('Authorization', `Bearer ${forged}`), 'bad_token_signature');
  });

  it('refuses a token whose kid names no key of this service, or that has no kid', async () => {
    const { http, client, org } = await setup();
    const { privateKey } = await generateKeyPair('ES256');
    const sign = async (header: { alg: 'ES256'; kid?: string }) =>
      await new SignJWT({ org: org.id, pii: 'all' })
        .setProtectedHeader(header)
        .setIssuer('borderd')
        .setSubject(client.id)
        .setExpirationTime('1h')
        .sign(privateKey);
    const unknown = await sign({ alg: 'ES256', kid: 'key_00000000000000000000000000' });
    const res = await http.get('/v1/probe').set('Authorization', `Bearer ${unknown}`);
    expect401(res, 'unknown_token_key');
    expect(res.body.detail).toBe('the token was not signed by a key of this service');
    expect401(await http.get('/v1/probe').set('Authorization', `Bearer ${await sign({ alg: 'ES256' })}`), 'unknown_token_key');
  });

  it('refuses alg none', async () => {
    const { http, client, org } = await setup();
    const unsecured = new UnsecuredJWT({ org: org.id, pii: 'all' })
      .setIssuer('borderd')
      .setSubject(client.id)
      .setExpirationTime('1h')
      .encode();
    expect401(await http.get('/v1/probe').set('Authorization', `Bearer ${unsecured}`), 'unsupported_token_algorithm');
  });

  it('refuses HS256 signed with the public key (algorithm confusion)', async () => {
    const { ctx, http, client, org, token } = await setup();
    const { kid } = decodeProtectedHeader(token);
    const publicJwk = (await getTokenKey(ctx.db, kid!))!.public_jwk;
    const enc = (v: object) => Buffer.from(JSON.stringify(v)).toString('base64url');
    const head = enc({ alg: 'HS256', kid, typ: 'JWT' });
    const body = enc({ org: org.id, pii: 'all', iss: 'borderd', sub: client.id, exp: Math.floor(Date.now() / 1000) + 3600 });
    const sig = createHmac('sha256', publicJwk).update(`${head}.${body}`).digest('base64url');
    expect401(await http.get('/v1/probe').set('Authorization', `Bearer ${head}.${body}.${sig}`), 'unsupported_token_algorithm');
    // The public key really is an importable ES256 key (so the test above is the confusion case, not a junk key).
    expect(((await importJWK(JSON.parse(publicJwk), 'ES256')) as { type: string }).type).toBe('public');
  });

  it('answers 401 with a valid challenge when the token header holds characters a header cannot carry', async () => {
    // The refused alg is quoted in error_description; a newline, a non-Latin-1 character or a
    // backslash from an unauthenticated caller must not turn the 401 into a 500 or break the quoting.
    const { http, ctx } = await setup();
    const enc = (v: object) => Buffer.from(JSON.stringify(v)).toString('base64url');
    for (const alg of ['x\r\nSet-Cookie: a=b', 'x\u2028', 'é€', 'x\\', 'x"y']) {
      const res = await http.get('/v1/probe').set('Authorization', `Bearer ${enc({ alg })}.${enc({})}.c2ln`);
      expect401(res, 'unsupported_token_algorithm');
      expect(res.headers['www-authenticate'], alg).toMatch(
        /^Bearer error="invalid_token", error_description="[\x20\x21\x23-\x5b\x5d-\x7e]*"$/,
      );
      expect(res.headers['set-cookie']).toBeUndefined();
    }
    expect(ctx.logs.text()).not.toMatch(/unexpected error/);
  });

  it('refuses an expired token (moving the injected clock)', async () => {
    const { http, auth, ctx } = await setup();
    ctx.clock.advance(3600 * 1000 + 1000);
    expect401(await http.get('/v1/probe').set('Authorization', auth), 'token_expired');
  });

  it('refuses the token of a revoked client at once', async () => {
    const { http, auth, ctx, client } = await setup();
    expect((await http.get('/v1/probe').set('Authorization', auth)).status).toBe(200);
    await revokeClient(ctx, client.id);
    const res = await http.get('/v1/probe').set('Authorization', auth);
    expect401(res, 'client_revoked');
    expect(res.body.detail).toBe('the client of this token has been revoked');
  });

  it('keeps admin routes for the admin token only', async () => {
    const { http, auth } = await setup();
    expect401(await http.get('/admin/v1/probe').set('Authorization', auth), 'invalid_admin_token');
    const ok = await http.get('/admin/v1/probe').set('Authorization', `Bearer ${ADMIN_TOKEN}`);
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({ admin: true });
  });
});

describe('verified token cache', () => {
  it('checks the signature of a token once, then only its client', async () => {
    const { http, auth, org } = await setup();
    const before = signatureChecks();
    for (let i = 0; i < 3; i++) expect((await http.get('/v1/probe').set('Authorization', auth)).body.orgId).toBe(org.id);
    expect(signatureChecks() - before).toBe(1);
  });

  it('honours revocation for a cached token on the very next request', async () => {
    const { http, auth, ctx, client } = await setup();
    expect((await http.get('/v1/probe').set('Authorization', auth)).status).toBe(200);
    const before = signatureChecks();
    await revokeClient(ctx, client.id);
    expect401(await http.get('/v1/probe').set('Authorization', auth), 'client_revoked');
    expect(signatureChecks()).toBe(before); // served from the cache, and still refused
  });

  it('stops serving a token at its exp (injected clock)', async () => {
    const { http, auth, token, ctx } = await setup();
    const expMs = decodeJwt(token).exp! * 1000;
    expect((await http.get('/v1/probe').set('Authorization', auth)).status).toBe(200);
    ctx.clock.set(expMs - 1);
    expect((await http.get('/v1/probe').set('Authorization', auth)).status).toBe(200);
    ctx.clock.set(expMs);
    expect401(await http.get('/v1/probe').set('Authorization', auth), 'token_expired');
  });

  it('verifies a token altered after a cached success in full', async () => {
    const { http, auth, token } = await setup();
    expect((await http.get('/v1/probe').set('Authorization', auth)).status).toBe(200);
    const [h, p, s] = token.split('.');
    const claims = JSON.parse(Buffer.from(p!, 'base64url').toString()) as Record<string, unknown>;
    const altered = Buffer.from(JSON.stringify({ ...claims, pii: 'all', org: 'org_other' })).toString('base64url');
    expect401(await http.get('/v1/probe').set('Authorization', `Bearer ${h}.${altered}.${s}`), 'bad_token_signature');
  });

  it('keeps at most its bound, least recently used out', async () => {
    const { http, ctx, tokens, auth } = await setup({ verifiedTokenCacheSize: 1 });
    const other = await makeOrg(ctx, tokens, { name: 'Other' });
    const before = signatureChecks();
    for (const a of [auth, other.auth, auth, other.auth]) expect((await http.get('/v1/probe').set('Authorization', a)).status).toBe(200);
    expect(signatureChecks() - before).toBe(4); // room for one: each token pushes the other out

    const cache = new VerifiedTokenCache(2);
    const claims = (exp: number): VerifiedClaims => ({ sub: 'cli_x', org: 'org_x', pii: 'all', exp, nbf: undefined });
    cache.set('a', claims(100));
    cache.set('b', claims(100));
    expect(cache.get('a', 0)).toBeDefined(); // a is now the most recent
    cache.set('c', claims(100));
    expect(cache.size).toBe(2);
    expect(cache.get('b', 0)).toBeUndefined();
    expect(cache.get('a', 0)).toBeDefined();
    expect(cache.get('c', 0)).toBeDefined();
    expect(cache.get('a', 100_000)).toBeUndefined(); // exp = 100 s: gone at 100 000 ms, and dropped
    expect(cache.size).toBe(1);
  });
});
