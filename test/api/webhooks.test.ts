import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { countWebhooks } from '../../src/store/webhooks.js';
import { listWebhookKeys } from '../../src/store/webhook-keys.js';
import { ADMIN_TOKEN, makeApi, makeContext, makeOrg } from '../support/context.js';
import { onPostgres } from '../support/postgres.js';
import { holdWriteLock } from '../support/write-lock.js';

const BASE = '/v1/notifications/webhooks/settings';
const PROD = { 'webhooks.allowHttp': false, 'webhooks.allowPrivateNetworks': false };

describe('webhook settings (/v1/notifications/webhooks/settings)', () => {
  it('creates, reads, lists, patches and deletes, in the spec shape', async () => {
    const ctx = await makeContext();
    const { http, tokens } = makeApi(ctx);
    const { auth } = await makeOrg(ctx, tokens);
    const created = await http.post(BASE).set('authorization', auth).send({ url: 'http://127.0.0.1:9/hook' });
    expect(created.status).toBe(201);
    // The spec's WebhookSettings, the event-type filter, the delivery order, the signature schemes, and the secret this answer alone shows.
    expect(Object.keys(created.body).sort()).toEqual([
      'createdAt',
      'enabled',
      'eventTypes',
      'id',
      'ordering',
      'secret',
      'signatureSchemes',
      'updatedAt',
      'url',
    ]);
    expect(created.body).toMatchObject({ url: 'http://127.0.0.1:9/hook', enabled: true });
    expect(created.body.id).toMatch(/^whk_/);
    const id = created.body.id as string;
    const { secret, ...settings } = created.body as Record<string, unknown>;
    expect(secret).toMatch(/^whsec_/);
    expect((await http.get(`${BASE}/${id}`).set('authorization', auth)).body).toEqual(settings);
    const off = await http.patch(`${BASE}/${id}`).set('authorization', auth).send({ url: 'http://127.0.0.1:9/hook', enabled: false });
    expect(off.body.enabled).toBe(false);
    ctx.clock.advance(1000);
    const on = await http.patch(`${BASE}/${id}`).set('authorization', auth).send({ url: 'http://127.0.0.1:9/other' });
    expect(on.body).toMatchObject({ enabled: true, url: 'http://127.0.0.1:9/other' });
    expect(on.body.updatedAt > created.body.updatedAt).toBe(true);
    const list = await http.get(BASE).set('authorization', auth);
    expect(list.body.map((w: { id: string }) => w.id)).toEqual([id]);
    expect((await http.delete(`${BASE}/${id}`).set('authorization', auth)).status).toBe(204);
    expect((await http.get(BASE).set('authorization', auth)).body).toEqual([]);
    expect((await http.delete(`${BASE}/${id}`).set('authorization', auth)).status).toBe(404);
  });

  it("answers another organization's webhook id with 404 on every route", async () => {
    const ctx = await makeContext();
    const { http, tokens } = makeApi(ctx);
    const a = await makeOrg(ctx, tokens, { name: 'A' });
    const b = await makeOrg(ctx, tokens, { name: 'B' });
    const id = (await http.post(BASE).set('authorization', a.auth).send({ url: 'http://127.0.0.1:9/a' })).body.id as string;
    expect((await http.get(`${BASE}/${id}`).set('authorization', b.auth)).status).toBe(404);
    expect((await http.patch(`${BASE}/${id}`).set('authorization', b.auth).send({ url: 'http://127.0.0.1:9/b' })).status).toBe(404);
    expect((await http.delete(`${BASE}/${id}`).set('authorization', b.auth)).status).toBe(404);
    expect((await http.get(BASE).set('authorization', b.auth)).body).toEqual([]);
    expect((await http.get(`${BASE}/${id}`).set('authorization', a.auth)).status).toBe(200);
    // An id of any length that names no webhook is unknown, not invalid input.
    const long = `whk_${'x'.repeat(200)}`;
    for (const res of [
      await http.get(`${BASE}/${long}`).set('authorization', a.auth),
      await http.patch(`${BASE}/${long}`).set('authorization', a.auth).send({ url: 'http://127.0.0.1:9/a' }),
      await http.delete(`${BASE}/${long}`).set('authorization', a.auth),
    ])
      expect([res.status, res.body.code]).toEqual([404, 'not_found']);
  });

  it('refuses bad urls with a 400 naming body.url; production rules refuse http and private targets', async () => {
    const ctx = await makeContext(PROD);
    const { http, tokens } = makeApi(ctx);
    const { auth } = await makeOrg(ctx, tokens);
    const bad = [
      'not a url',
      'ftp://example.com/x',
      'http://example.com/hook',
      'https://user:pw@example.com/hook',
      'https://127.0.0.1/hook',
      'https://10.1.2.3/hook',
      'https://169.254.169.254/latest',
      'https://[::1]/hook',
      'https://localhost/hook',
      `https://example.com/${'a'.repeat(2100)}`,
      // The URL parser would strip these, so the url shown would not be the one called.
      '  https://hooks.example.com/a ',
      'https://hooks.example.com/a\nb',
      'https://hooks.example.com/a\tb',
      'https://hooks.example.com/a b',
    ];
    for (const url of bad) {
      const res = await http.post(BASE).set('authorization', auth).send({ url });
      expect(res.status, url).toBe(400);
      expect(res.body.errors[0].path).toBe('body.url');
    }
    const ok = await http.post(BASE).set('authorization', auth).send({ url: 'https://hooks.example.com/borderd' });
    expect(ok.status).toBe(201);
    const missing = await http.post(BASE).set('authorization', auth).send({ enabled: true, extra: 1 });
    expect(missing.status).toBe(400);
    expect(missing.body.errors.map((e: { path: string }) => e.path).sort()).toEqual(['body', 'body.url']);
  });

  it('makes the key pair with the first webhook; GET returns it, POST replaces it', async () => {
    const ctx = await makeContext();
    const { http, tokens } = makeApi(ctx);
    const { auth } = await makeOrg(ctx, tokens);
    expect((await http.get(`${BASE}/public-key`).set('authorization', auth)).status).toBe(404);
    await http.post(BASE).set('authorization', auth).send({ url: 'http://127.0.0.1:9/a' });
    const key = await http.get(`${BASE}/public-key`).set('authorization', auth);
    expect(key.status).toBe(200);
    expect(key.body).toMatchObject({ algorithm: 'RSA-SHA256' });
    expect(key.body.publicKey).toMatch(/^-----BEGIN PUBLIC KEY-----/);
    await http.post(BASE).set('authorization', auth).send({ url: 'http://127.0.0.1:9/b' });
    expect((await http.get(`${BASE}/public-key`).set('authorization', auth)).body.keyId).toBe(key.body.keyId);
    const rotated = await http.post(`${BASE}/public-key`).set('authorization', auth);
    expect(rotated.status).toBe(201);
    expect(rotated.body.keyId).not.toBe(key.body.keyId);
    expect((await http.get(`${BASE}/public-key`).set('authorization', auth)).body.publicKey).toBe(rotated.body.publicKey);
  });

  it('reads a body only after authentication: without a token, broken or deeply nested JSON is a 401, never parsed', async () => {
    const ctx = await makeContext();
    const { http, tokens } = makeApi(ctx);
    const { auth } = await makeOrg(ctx, tokens);
    const nested = '['.repeat(100_000) + ']'.repeat(100_000);
    for (const body of ['{"url":', nested]) {
      const anonymous = await http.post(BASE).set('content-type', 'application/json').send(body);
      expect(anonymous.status).toBe(401);
    }
    const broken = await http.post(BASE).set('authorization', auth).set('content-type', 'application/json').send('{"url":');
    expect([broken.status, broken.body.code]).toEqual([400, 'malformed_json']);
  });

  it("caps an organization's webhooks at webhooks.maxPerOrganization; a deleted one frees its place, other organizations are not counted", async () => {
    const ctx = await makeContext({ 'webhooks.maxPerOrganization': 2 });
    const { http, tokens } = makeApi(ctx);
    const acme = await makeOrg(ctx, tokens);
    const other = await makeOrg(ctx, tokens, { name: 'Other' });
    const first = await http.post(BASE).set('authorization', acme.auth).send({ url: 'http://127.0.0.1:9/a' });
    await http.post(BASE).set('authorization', acme.auth).send({ url: 'http://127.0.0.1:9/b' });
    const refused = await http.post(BASE).set('authorization', acme.auth).send({ url: 'http://127.0.0.1:9/c' });
    expect([refused.status, refused.body.code]).toEqual([409, 'webhook_limit_reached']);
    expect((await http.get(BASE).set('authorization', acme.auth)).body).toHaveLength(2);
    expect((await http.post(BASE).set('authorization', other.auth).send({ url: 'http://127.0.0.1:9/a' })).status).toBe(201);
    expect((await http.delete(`${BASE}/${first.body.id}`).set('authorization', acme.auth)).status).toBe(204);
    expect((await http.post(BASE).set('authorization', acme.auth).send({ url: 'http://127.0.0.1:9/c' })).status).toBe(201);
  });

  it('refuses a url holding a lone surrogate, which could not be stored as sent, and keeps a surrogate pair exactly', async () => {
    const ctx = await makeContext();
    const { app, http, tokens } = makeApi(ctx);
    const { auth, org } = await makeOrg(ctx, tokens);
    const lone = await http
      .post(BASE)
      .set('authorization', auth)
      .set('content-type', 'application/json')
      .send('{"url":"http://127.0.0.1:9/\\ud800x"}');
    expect([lone.status, lone.body.code, lone.body.errors]).toEqual([
      400,
      'validation_failed',
      [{ path: 'body.url', message: expect.stringMatching(/lone surrogate/) }],
    ]);
    expect(await countWebhooks(ctx.db, org.id)).toBe(0);
    // In another charset the parser decodes (UTF-16), escaped or as a raw code unit: sent as bytes
    // over a real socket (supertest would serialize a Buffer as JSON).
    const server = app.listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}${BASE}`;
      for (const text of ['{"url":"http://127.0.0.1:9/\\ud800x"}', '{"url":"http://127.0.0.1:9/\ud800x"}']) {
        const res = await fetch(url, {
          method: 'POST',
          headers: { authorization: auth, 'content-type': 'application/json; charset=utf-16le' },
          body: Buffer.from(text, 'utf16le'),
        });
        const problem = (await res.json()) as { errors?: { path: string }[] };
        expect([res.status, problem.errors?.[0]?.path]).toEqual([400, 'body.url']);
      }
    } finally {
      server.close();
    }
    expect(await countWebhooks(ctx.db, org.id)).toBe(0);
    const pair = await http
      .post(BASE)
      .set('authorization', auth)
      .set('content-type', 'application/json')
      .send('{"url":"http://127.0.0.1:9/\\ud83d\\ude00"}');
    expect(pair.status).toBe(201);
    expect((await http.get(`${BASE}/${pair.body.id}`).set('authorization', auth)).body.url).toBe('http://127.0.0.1:9/\u{1F600}');
  });

  it('refuses query parameters on routes that take none, as it refuses unknown body fields', async () => {
    const ctx = await makeContext();
    const { http, tokens } = makeApi(ctx);
    const { auth } = await makeOrg(ctx, tokens);
    const paged = await http.get(`${BASE}?limit=1&startingAfter=x`).set('authorization', auth);
    expect([paged.status, paged.body.code, paged.body.errors]).toEqual([
      400,
      'validation_failed',
      [{ path: 'query', message: 'unknown field(s): limit, startingAfter' }],
    ]);
    expect((await http.get(`${BASE}?`).set('authorization', auth)).status).toBe(200);
  });

  it('keeps one key when the first webhooks of an organization arrive together, each having made a pair', async () => {
    const ctx = await makeContext();
    const { http, tokens } = makeApi(ctx);
    const { auth, org } = await makeOrg(ctx, tokens);
    const together = await Promise.all(
      ['a', 'b', 'c'].map((p) =>
        http
          .post(BASE)
          .set('authorization', auth)
          .send({ url: `http://127.0.0.1:9/${p}` }),
      ),
    );
    expect(together.map((r) => r.status)).toEqual([201, 201, 201]);
    expect(await listWebhookKeys(ctx.db, org.id)).toHaveLength(1);
  });

  // SQLite's write lock, held by another process: PostgreSQL has none.
  it.skipIf(onPostgres)(
    'waits for a write lock another process holds on a timer: the event loop answers meanwhile, and the write goes in after',
    async () => {
      const ctx = await makeContext({ 'database.busyTimeoutMs': 3000 });
      const { http, tokens } = makeApi(ctx);
      const { auth } = await makeOrg(ctx, tokens);
      await http.post(BASE).set('authorization', auth).send({ url: 'http://127.0.0.1:9/a' });
      const before = (await http.get(`${BASE}/public-key`).set('authorization', auth)).body.keyId as string;
      const holder = holdWriteLock(ctx.config.database.path); // another process (a CLI import) holds the write lock
      let settled = 0;
      const create = http
        .post(BASE)
        .set('authorization', auth)
        .send({ url: 'http://127.0.0.1:9/b' })
        .then((r) => (settled++, r));
      const rotate = http
        .post(`${BASE}/public-key`)
        .set('authorization', auth)
        .then((r) => (settled++, r));
      try {
        // SQLite's busy wait would hold the loop until the busy timeout, then answer 503.
        for (let i = 0; i < 5; i++) expect((await http.get('/healthz')).status).toBe(200);
        expect(settled).toBe(0);
      } finally {
        holder.release();
      }
      expect((await create).status).toBe(201);
      const rotated = await rotate;
      expect(rotated.status).toBe(201);
      expect(rotated.body.keyId).not.toBe(before);
      expect((await http.get(BASE).set('authorization', auth)).body).toHaveLength(2);
    },
  );

  it('makes one new pair for rotations of one organization that arrive together', async () => {
    const ctx = await makeContext();
    const { http, tokens } = makeApi(ctx);
    const acme = await makeOrg(ctx, tokens);
    const other = await makeOrg(ctx, tokens, { name: 'Other' });
    for (const org of [acme, other]) await http.post(BASE).set('authorization', org.auth).send({ url: 'http://127.0.0.1:9/a' });
    const before = (await http.get(`${BASE}/public-key`).set('authorization', acme.auth)).body.keyId as string;
    const together = await Promise.all([
      ...Array.from({ length: 5 }, () => http.post(`${BASE}/public-key`).set('authorization', acme.auth)),
      http.post(`${BASE}/public-key`).set('authorization', other.auth),
    ]);
    const acmeKeys = new Set(together.slice(0, 5).map((r) => (expect(r.status).toBe(201), r.body.keyId as string)));
    expect(acmeKeys.size).toBe(1);
    const [rotated] = [...acmeKeys];
    expect(rotated).not.toBe(before);
    expect(together[5]!.body.keyId).not.toBe(rotated);
    const keys = (await listWebhookKeys(ctx.db, acme.org.id)).map((k) => ({ id: k.id, retired: k.retired_at !== null }));
    expect(keys).toEqual([
      { id: before, retired: true },
      { id: rotated, retired: false },
    ]);
    // One after it is a rotation of its own.
    const again = await http.post(`${BASE}/public-key`).set('authorization', acme.auth);
    expect(again.body.keyId).not.toBe(rotated);
  });

  it('answers another method on /public-key with 405, never taking public-key for a webhook id', async () => {
    const ctx = await makeContext();
    const { http, tokens } = makeApi(ctx);
    const { auth } = await makeOrg(ctx, tokens);
    await http.post(BASE).set('authorization', auth).send({ url: 'http://127.0.0.1:9/a' });
    for (const res of [
      await http.patch(`${BASE}/public-key`).set('authorization', auth).send({ url: 'http://127.0.0.1:9/a' }),
      await http.delete(`${BASE}/public-key`).set('authorization', auth),
      await http.delete(`${BASE}/Public-Key/`).set('authorization', auth), // matched as Express matches routes
    ]) {
      expect([res.status, res.body.code]).toEqual([405, 'method_not_allowed']);
      expect(res.headers.allow).toBe('GET, HEAD, POST');
    }
    expect((await http.get(`${BASE}/public-key`).set('authorization', auth)).status).toBe(200);
  });

  it('keeps every answer that carries a webhook secret out of caches (Cache-Control: no-store)', async () => {
    const ctx = await makeContext();
    const { http, tokens } = makeApi(ctx);
    const { auth } = await makeOrg(ctx, tokens);
    const created = await http.post(BASE).set('authorization', auth).send({ url: 'http://127.0.0.1:9/hook' });
    const id = created.body.id as string;
    const read = await http.get(`${BASE}/${id}/secret`).set('authorization', auth);
    const rotated = await http.post(`${BASE}/${id}/secret/rotate`).set('authorization', auth);
    for (const [res, status] of [
      [created, 201],
      [read, 200],
      [rotated, 201],
    ] as const) {
      expect([res.status, res.body.secret]).toEqual([status, expect.stringMatching(/^whsec_/)]);
      expect(res.headers['cache-control']).toBe('no-store');
    }
    // Settings without a secret stay cacheable as any other answer.
    expect((await http.get(`${BASE}/${id}`).set('authorization', auth)).headers['cache-control']).toBeUndefined();
  });

  it('requires a bearer token', async () => {
    const ctx = await makeContext();
    const { http } = makeApi(ctx);
    expect((await http.get(BASE)).status).toBe(401);
    expect((await http.get(BASE).set('authorization', `Bearer ${ADMIN_TOKEN}`)).status).toBe(401);
  });
});

describe('OpenAPI', () => {
  it('describes the webhook and admin routes', async () => {
    const ctx = await makeContext();
    const { http } = makeApi(ctx);
    const res = await http.get('/openapi.json');
    expect(res.status).toBe(200);
    expect(Object.keys(res.body.paths)).toEqual(
      expect.arrayContaining([
        BASE,
        `${BASE}/{id}`,
        `${BASE}/public-key`,
        '/admin/v1/transactions',
        '/admin/v1/transactions/{id}/status',
        '/admin/v1/events',
      ]),
    );
  });
});
