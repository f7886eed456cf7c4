import request from 'supertest';
import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { createApp } from '../../src/api/app.js';
import type { RouteModule } from '../../src/api/route.js';
import { pruneOutbox } from '../../src/jobs/retention.js';
import { createOrganization } from '../../src/services/organizations.js';
import { TokenService } from '../../src/services/tokens.js';
import { listOrganizations } from '../../src/store/organizations.js';
import { committedEvents } from '../support/events.js';
import { listWebhooks } from '../../src/store/webhooks.js';
import { ADMIN_TOKEN, makeApi, makeContext, makeOrg, type TestContext } from '../support/context.js';

const admin = `Bearer ${ADMIN_TOKEN}`;
const HOOKS = '/v1/notifications/webhooks/settings';
const HOUR_MS = 3_600_000;

async function setup(overrides: Record<string, unknown> = {}) {
  const ctx = await makeContext(overrides);
  const api = makeApi(ctx);
  const org = await makeOrg(ctx, api.tokens);
  const hooks = async (orgId = org.org.id) => (await listWebhooks(ctx.db, orgId)).length;
  return { ctx, ...api, org, hooks };
}

const keptRows = (ctx: TestContext) =>
  ctx.db.all<{ scope: string; key: string; status: number; body: string }>(
    'SELECT scope, key, status, body FROM idempotency_keys ORDER BY key',
  );

describe('Idempotency-Key', () => {
  it('runs a keyed POST once: a repeat gets the kept answer, marked replayed, and makes nothing more', async () => {
    const { http, org, hooks, ctx } = await setup();
    const send = () =>
      http.post(HOOKS).set('authorization', org.auth).set('idempotency-key', 'create-hook-1').send({ url: 'http://127.0.0.1:9/a' });
    const first = await send();
    expect(first.status).toBe(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const again = await send();
    expect(again.status).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.headers['content-type']).toMatch(/^application\/json/);
    expect(again.body).toEqual(first.body);
    expect(await hooks()).toBe(1);
    // The answer is kept under the client's scope (its body sealed: it carries the webhook's secret).
    expect(await keptRows(ctx)).toEqual([
      { scope: `client:${org.org.id}:${org.client.id}`, key: 'create-hook-1', status: 201, body: expect.stringMatching(/^v1\./) },
    ]);
    // Without a key nothing is kept and every POST runs.
    await http.post(HOOKS).set('authorization', org.auth).send({ url: 'http://127.0.0.1:9/a' });
    await http.post(HOOKS).set('authorization', org.auth).send({ url: 'http://127.0.0.1:9/a' });
    expect(await hooks()).toBe(3);
  });

  it('keeps an answer that carries a webhook secret sealed under the master key, bound to its caller and key; the replay answers it', async () => {
    const { http, org, ctx } = await setup();
    const create = () =>
      http.post(HOOKS).set('authorization', org.auth).set('idempotency-key', 'sealed-1').send({ url: 'http://127.0.0.1:9/a' });
    const first = await create();
    expect(first.status).toBe(201);
    const secret = first.body.secret as string;
    expect(secret).toMatch(/^whsec_/);
    const rotate = () =>
      http
        .post(`${HOOKS}/${first.body.id as string}/secret/rotate`)
        .set('authorization', org.auth)
        .set('idempotency-key', 'sealed-2');
    const rotated = await rotate();
    expect(rotated.status).toBe(201);
    const newSecret = rotated.body.secret as string;
    expect(newSecret).not.toBe(secret);
    // Neither secret is stored as text: not in the body, nor in any other column of the row.
    const stored = await ctx.db.all<Record<string, unknown>>('SELECT * FROM idempotency_keys ORDER BY key');
    expect(stored).toHaveLength(2);
    for (const row of stored) {
      const text = JSON.stringify(row);
      expect(text).not.toContain(secret);
      expect(text).not.toContain(newSecret);
      expect(text).not.toContain(secret.slice('whsec_'.length));
      expect(text).not.toContain(newSecret.slice('whsec_'.length));
    }
    // The replays answer the secrets as first sent, and say so.
    for (const [again, was] of [
      [await create(), first],
      [await rotate(), rotated],
    ] as const) {
      expect(again.headers['idempotent-replayed']).toBe('true');
      expect(again.headers['cache-control']).toBe('no-store');
      expect(again.status).toBe(was.status);
      expect(again.body).toEqual(was.body);
    }
    // A sealed body moved to another key's row does not open: it answers nothing of the secret.
    await ctx.db.run(
      "UPDATE idempotency_keys SET body = (SELECT body FROM idempotency_keys WHERE key = 'sealed-1') WHERE key = 'sealed-2'",
    );
    const moved = await rotate();
    expect(moved.status).toBe(500);
    expect(JSON.stringify(moved.body)).not.toContain(secret);
    // An answer without a secret is kept as the JSON it was sent as.
    const event = await http
      .post('/admin/v1/events')
      .set('authorization', admin)
      .set('idempotency-key', 'plain')
      .send({ orgId: org.org.id, type: 'Transaction_Created', data: { note: 'x' } });
    expect(event.status).toBe(201);
    expect(await ctx.db.value("SELECT body FROM idempotency_keys WHERE key = 'plain'")).toBe(JSON.stringify(event.body));
  });

  it('replays for the same body in another key order or spacing; a different body or path with the key is a 422', async () => {
    const { http, org, hooks } = await setup();
    const post = (path: string, raw: string) =>
      http.post(path).set('authorization', org.auth).set('idempotency-key', 'k-1').set('content-type', 'application/json').send(raw);
    const first = await post(HOOKS, '{"url":"http://127.0.0.1:9/a","enabled":true,"eventTypes":["Transaction_*"]}');
    expect(first.status).toBe(201);
    const reordered = await post(HOOKS, '{ "eventTypes": [ "Transaction_*" ], "enabled": true,  "url": "http://127.0.0.1:9/a" }');
    expect(reordered.headers['idempotent-replayed']).toBe('true');
    expect(reordered.body.id).toBe(first.body.id);

    const other = await post(HOOKS, '{"url":"http://127.0.0.1:9/b"}');
    expect(other.status).toBe(422);
    expect(other.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(other.body).toMatchObject({ code: 'idempotency_key_reused', status: 422 });
    const otherPath = await post(`${HOOKS}/${first.body.id as string}/secret/rotate`, '{}');
    expect(otherPath.status).toBe(422);
    expect(await hooks()).toBe(1);
  });

  it('keeps keys per caller: another client and the operator have keys of their own', async () => {
    const { ctx, http, tokens, org, hooks } = await setup();
    const other = await makeOrg(ctx, tokens, { name: 'Other' });
    for (const who of [org, other]) {
      const res = await http
        .post(HOOKS)
        .set('authorization', who.auth)
        .set('idempotency-key', 'same')
        .send({ url: 'http://127.0.0.1:9/a' });
      expect(res.status).toBe(201);
      expect(res.headers['idempotent-replayed']).toBeUndefined();
    }
    expect(await hooks(org.org.id)).toBe(1);
    expect(await hooks(other.org.id)).toBe(1);
    const event = await http
      .post('/admin/v1/events')
      .set('authorization', admin)
      .set('idempotency-key', 'same')
      .send({ orgId: org.org.id, type: 'Transaction_Created', data: { note: 'x' } });
    expect(event.status).toBe(201);
    expect(event.headers['idempotent-replayed']).toBeUndefined();
    const again = await http
      .post('/admin/v1/events')
      .set('authorization', admin)
      .set('idempotency-key', 'same')
      .send({ orgId: org.org.id, type: 'Transaction_Created', data: { note: 'x' } });
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body.id).toBe(event.body.id);
    expect((await keptRows(ctx)).map((r) => r.scope).sort()).toEqual(
      [`client:${org.org.id}:${org.client.id}`, `client:${other.org.id}:${other.client.id}`, 'operator'].sort(),
    );
  });

  it('refuses a malformed key with 400 before anything runs', async () => {
    const { http, org, hooks } = await setup();
    for (const key of ['', 'x'.repeat(256), 'has space', 'naïve', 'a,b', '"unclosed']) {
      const res = await http.post(HOOKS).set('authorization', org.auth).set('idempotency-key', key).send({ url: 'http://127.0.0.1:9/a' });
      expect(res.status, JSON.stringify(key)).toBe(400);
      expect(res.body).toMatchObject({ code: 'invalid_idempotency_key', errors: [{ path: 'headers.Idempotency-Key' }] });
    }
    expect(await hooks()).toBe(0);
    // The longest key, and a key in double quotes (a structured-field string) which is the same key unquoted.
    const longest = await http
      .post(HOOKS)
      .set('authorization', org.auth)
      .set('idempotency-key', 'x'.repeat(255))
      .send({ url: 'http://127.0.0.1:9/a' });
    expect(longest.status).toBe(201);
    const quoted = await http
      .post(HOOKS)
      .set('authorization', org.auth)
      .set('idempotency-key', `"${'x'.repeat(255)}"`)
      .send({ url: 'http://127.0.0.1:9/a' });
    expect(quoted.headers['idempotent-replayed']).toBe('true');
    expect(await hooks()).toBe(1);
  });

  it('keeps the answer for server.idempotencyKeyHours; then the key is free again and retention deletes it', async () => {
    const { ctx, http, org } = await setup({ 'server.idempotencyKeyHours': 2 });
    const send = () =>
      http
        .post('/admin/v1/events')
        .set('authorization', admin)
        .set('idempotency-key', 'k')
        .send({ orgId: org.org.id, type: 'Transaction_Created', data: { note: 'x' } });
    const events = async () => (await committedEvents(ctx.db, org.org.id)).length;
    await send();
    ctx.clock.advance(2 * HOUR_MS - 1);
    expect((await send()).headers['idempotent-replayed']).toBe('true');
    expect((await pruneOutbox(ctx)).idempotencyKeysDeleted).toBe(0);
    ctx.clock.advance(1);
    const after = await send();
    expect(after.status).toBe(201);
    expect(after.headers['idempotent-replayed']).toBeUndefined();
    expect(await events()).toBe(2);
    // The second run's answer replaced the expired one; retention deletes it once it has expired too.
    ctx.clock.advance(2 * HOUR_MS + 1);
    expect((await pruneOutbox(ctx)).idempotencyKeysDeleted).toBe(1);
    expect(await keptRows(ctx)).toEqual([]);
  });

  it('keeps no error answer: the key stays free for the next request', async () => {
    const { http } = await setup();
    const missing = await http
      .post('/admin/v1/transactions/txn_missing/status')
      .set('authorization', admin)
      .set('idempotency-key', 'k')
      .send({ status: 'Completed' });
    expect(missing.status).toBe(404);
    const again = await http
      .post('/admin/v1/transactions/txn_missing/status')
      .set('authorization', admin)
      .set('idempotency-key', 'k')
      .send({ status: 'Failed', failureReason: 'x' });
    expect(again.status).toBe(404);
    expect(again.body.code).toBe('not_found');
  });

  it('answers a keyed test event with its queued delivery, and replays that', async () => {
    const { http, org } = await setup();
    const hook = await http.post(HOOKS).set('authorization', org.auth).send({ url: 'http://127.0.0.1:9/a' });
    const send = () =>
      http
        .post(`${HOOKS}/${hook.body.id as string}/test`)
        .set('authorization', org.auth)
        .set('idempotency-key', 'test-1')
        .send({ type: 'Transaction_Created' });
    const first = await send();
    expect(first.status).toBe(202);
    expect(first.body).toMatchObject({ attempt: null, delivery: { state: 'pending' } });
    const again = await send();
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.status).toBe(202);
    expect(again.body).toEqual(first.body);
  });

  it('documents the header and its answers on every POST with a caller, and on nothing else', async () => {
    const { http } = await setup();
    const doc = (await http.get('/openapi.json')).body as {
      paths: Record<
        string,
        Record<string, { security: unknown[]; parameters: { name: string; in: string }[]; responses: Record<string, unknown> }>
      >;
    };
    let posts = 0;
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        const header = op.parameters.filter((p) => p.in === 'header' && p.name === 'Idempotency-Key');
        const keyed = method === 'post' && op.security.length > 0;
        expect(header.length, `${method} ${path}`).toBe(keyed ? 1 : 0);
        if (keyed) {
          posts++;
          expect(Object.keys(op.responses), `${method} ${path}`).toEqual(expect.arrayContaining(['400', '409', '422']));
        }
      }
    }
    expect(posts).toBeGreaterThan(15);
    expect(doc.paths['/v1/auth/m2m/token']!.post!.parameters).toEqual([]);
  });
});

describe('Idempotency-Key and the transaction it guards', () => {
  /** Operator routes whose handlers the test holds open (telling it when one is) or makes fail after their write. */
  function routesHeldBy(gate: Promise<void>, entered: () => void = () => {}): RouteModule {
    return (api) => {
      api.route({
        method: 'post',
        path: '/admin/v1/held',
        summary: 'an organization, made once the test opens the gate',
        auth: 'admin',
        body: z.strictObject({ name: z.string() }),
        responses: { 201: { description: 'made', schema: z.object({ id: z.string() }) } },
        handler: async ({ ctx, body }) => {
          entered();
          await gate;
          return { status: 201, body: { id: (await createOrganization(ctx, body.name)).id } };
        },
      });
      api.route({
        method: 'post',
        path: '/admin/v1/half',
        summary: 'an organization, then a failure',
        auth: 'admin',
        groupCommit: true,
        responses: { 201: { description: 'never' } },
        handler: async ({ ctx }) => {
          await createOrganization(ctx, 'written then rolled back');
          throw new Error('fails after its write');
        },
      });
    };
  }

  it('answers 409 with Retry-After while the first request with the key runs, then replays its answer', async () => {
    const ctx = await makeContext();
    let open!: () => void;
    const gate = new Promise<void>((r) => (open = r));
    let entered!: () => void;
    const inHandler = new Promise<void>((r) => (entered = r));
    const http = request(createApp({ ctx, tokens: new TokenService(ctx), adminToken: ADMIN_TOKEN }, [routesHeldBy(gate, entered)]).app);
    const send = () => http.post('/admin/v1/held').set('authorization', admin).set('idempotency-key', 'held').send({ name: 'Held' });
    const first = send().then((r) => r);
    await inHandler;
    const second = await send();
    expect(second.status).toBe(409);
    expect(second.body).toMatchObject({ code: 'idempotency_key_in_use', status: 409 });
    expect(second.headers['retry-after']).toBe('1');
    open();
    const done = await first;
    expect(done.status).toBe(201);
    const replay = await send();
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body).toEqual(done.body);
    expect((await listOrganizations(ctx.db)).map((o) => o.name)).toEqual(['Held']);
  });

  it('writes the change and its kept answer in one transaction: a handler that fails after its write leaves neither', async () => {
    const ctx = await makeContext();
    const http = request(createApp({ ctx, tokens: new TokenService(ctx), adminToken: ADMIN_TOKEN }, [routesHeldBy(Promise.resolve())]).app);
    const res = await http.post('/admin/v1/half').set('authorization', admin).set('idempotency-key', 'half');
    expect(res.status).toBe(500);
    expect(await listOrganizations(ctx.db)).toEqual([]);
    expect(await keptRows(ctx)).toEqual([]);
    const made = await http.post('/admin/v1/held').set('authorization', admin).set('idempotency-key', 'half').send({ name: 'After' });
    expect(made.status).toBe(201);
  });
});
