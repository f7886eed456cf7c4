import { describe, expect, it } from 'vitest';
import { generateKeyPair, SignJWT, decodeProtectedHeader, UnsecuredJWT, importJWK } from 'jose';
import { createHmac } from 'node:crypto';
import { z } from 'zod';
import { makeContext, makeOrg, ADMIN_TOKEN } from '../support/context.js';
import { createApp } from '../../src/api/app.js';
import { TokenService } from '../../src/services/tokens.js';
import { revokeClient } from '../../src/services/organizations.js';
import type { RouteModule } from '../../src/api/route.js';
import request from 'supertest';
import { getTokenKey } from '../../src/store/token-keys.js';

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

async function setup() {
  const ctx = makeContext();
  const tokens = new TokenService(ctx);
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
    expect401(await http.get('/v1/probe'), 'missing_token');
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

  it('refuses alg none', async () => {
    const { http, client, org } = await setup();
    const unsecured = new UnsecuredJWT({ org: org.id, pii: 'all' }).setIssuer('borderd').setSubject(client.id).setExpirationTime('1h').encode();
    expect401(await http.get('/v1/probe').set('Authorization', `Bearer ${unsecured}`), 'unsupported_token_algorithm');
  });

  it('refuses HS256 signed with the public key (algorithm confusion)', async () => {
    const { ctx, http, client, org, token } = await setup();
    const { kid } = decodeProtectedHeader(token);
    const publicJwk = getTokenKey(ctx.db, kid!)!.public_jwk;
    const enc = (v: object) => Buffer.from(JSON.stringify(v)).toString('base64url');
    const head = enc({ alg: 'HS256', kid, typ: 'JWT' });
    const body = enc({ org: org.id, pii: 'all', iss: 'borderd', sub: client.id, exp: Math.floor(Date.now() / 1000) + 3600 });
    const sig = createHmac('sha256', publicJwk).update(`${head}.${body}`).digest('base64url');
    expect401(await http.get('/v1/probe').set('Authorization', `Bearer ${head}.${body}.${sig}`), 'unsupported_token_algorithm');
    // The public key really is an importable ES256 key (so the test above is the confusion case, not a junk key).
    expect((await importJWK(JSON.parse(publicJwk), 'ES256')).type).toBe('public');
  });

  it('refuses an expired token (moving the injected clock)', async () => {
    const { http, auth, ctx } = await setup();
    ctx.clock.advance(3600 * 1000 + 1000);
    expect401(await http.get('/v1/probe').set('Authorization', auth), 'token_expired');
  });

  it('refuses the token of a revoked client at once', async () => {
    const { http, auth, ctx, client } = await setup();
    expect((await http.get('/v1/probe').set('Authorization', auth)).status).toBe(200);
    revokeClient(ctx, client.id);
    expect401(await http.get('/v1/probe').set('Authorization', auth), 'client_revoked');
  });

  it('keeps admin routes for the admin token only', async () => {
    const { http, auth } = await setup();
    expect401(await http.get('/admin/v1/probe').set('Authorization', auth), 'invalid_admin_token');
    const ok = await http.get('/admin/v1/probe').set('Authorization', `Bearer ${ADMIN_TOKEN}`);
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({ admin: true });
  });
});
