import { describe, expect, it } from 'vitest';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import { makeApi, makeContext, makeOrg } from '../support/context.js';
import { createApiClient, createOrganization, revokeClient } from '../../src/services/organizations.js';

describe('POST /v1/auth/m2m/token', () => {
  it('issues an ES256 JWT with kid, org and piiAccess', async () => {
    const ctx = makeContext();
    const { http } = makeApi(ctx);
    const org = createOrganization(ctx, 'Acme');
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
    const ctx = makeContext({ 'auth.tokenTtlSeconds': 120 });
    const { http } = makeApi(ctx);
    const org = createOrganization(ctx, 'Acme');
    const client = await createApiClient(ctx, { orgId: org.id });
    const res = await http.post('/v1/auth/m2m/token').send({ clientId: client.id, clientSecret: client.clientSecret });
    expect(res.body.expiresIn).toBe(120);
  });

  it('answers wrong id and wrong secret with the same 401', async () => {
    const ctx = makeContext();
    const { http } = makeApi(ctx);
    const org = createOrganization(ctx, 'Acme');
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

  it('refuses a revoked client', async () => {
    const ctx = makeContext();
    const { http } = makeApi(ctx);
    const org = createOrganization(ctx, 'Acme');
    const client = await createApiClient(ctx, { orgId: org.id });
    revokeClient(ctx, client.id);
    const res = await http.post('/v1/auth/m2m/token').send({ clientId: client.id, clientSecret: client.clientSecret });
    expect(res.status).toBe(401);
  });

  it('limits a redacted client: default redacted, explicit all is 403', async () => {
    const ctx = makeContext();
    const { http } = makeApi(ctx);
    const org = createOrganization(ctx, 'Acme');
    const client = await createApiClient(ctx, { orgId: org.id, piiAccess: 'redacted' });
    const implicit = await http.post('/v1/auth/m2m/token').send({ clientId: client.id, clientSecret: client.clientSecret });
    expect(implicit.status).toBe(201);
    expect(implicit.body.piiAccess).toBe('redacted');
    const all = await http.post('/v1/auth/m2m/token').send({ clientId: client.id, clientSecret: client.clientSecret, piiAccess: 'all' });
    expect(all.status).toBe(403);
    expect(all.body.code).toBe('pii_access_denied');
  });

  it('lets an unrestricted client ask for redacted', async () => {
    const ctx = makeContext();
    const { tokens } = makeApi(ctx);
    const { token } = await makeOrg(ctx, tokens, { piiAccess: 'redacted' });
    expect(decodeJwt(token).pii).toBe('redacted');
  });

  it('validates the body and names the fields', async () => {
    const ctx = makeContext();
    const { http } = makeApi(ctx);
    const res = await http.post('/v1/auth/m2m/token').send({ clientId: 'x', piiAccess: 'some', extra: 1 });
    expect(res.status).toBe(400);
    const paths = (res.body.errors as { path: string }[]).map((e) => e.path).sort();
    expect(paths).toEqual(['body', 'body.clientSecret', 'body.piiAccess']);
  });

  it('never logs the secret', async () => {
    const ctx = makeContext();
    const { http } = makeApi(ctx);
    const org = createOrganization(ctx, 'Acme');
    const client = await createApiClient(ctx, { orgId: org.id });
    await http.post('/v1/auth/m2m/token').send({ clientId: client.id, clientSecret: client.clientSecret });
    expect(ctx.logs.lines.some((l) => l.msg === 'request')).toBe(true);
    expect(ctx.logs.text()).not.toContain(client.clientSecret);
  });
});
