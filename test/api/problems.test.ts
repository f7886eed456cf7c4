import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import request from 'supertest';
import { get, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { makeApi, makeContext, ADMIN_TOKEN } from '../support/context.js';
import { onPostgres } from '../support/postgres.js';
import { holdWriteLock } from '../support/write-lock.js';
import { createOrganization } from '../../src/services/organizations.js';
import { createApp } from '../../src/api/app.js';
import { TokenService } from '../../src/services/tokens.js';
import type { RouteModule } from '../../src/api/route.js';

/** Resolved when the server sees the client of /v1/stream go away. */
let streamClosed: Promise<void> = Promise.resolve();

const echo: RouteModule = (api) => {
  api.route({
    method: 'get',
    path: '/v1/stream',
    summary: 'an endless stream, like the event stream',
    auth: 'none',
    responses: { 200: { description: 'ok', contentType: 'text/event-stream' } },
    handler: ({ res }) => {
      streamClosed = new Promise((resolve) => res.once('close', () => resolve()));
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(': hello\n\n');
      return undefined;
    },
  });
  api.route({
    method: 'post',
    path: '/v1/echo',
    summary: 'echo',
    auth: 'none',
    body: z.strictObject({ text: z.string().max(10) }),
    responses: { 200: { description: 'ok' } },
    handler: ({ body }) => ({ body }),
  });
  api.route({
    method: 'get',
    path: '/v1/things/{id}',
    summary: 'a route with a path parameter',
    auth: 'none',
    params: z.object({ id: z.string() }),
    responses: { 200: { description: 'ok' } },
    handler: ({ params }) => ({ body: params }),
  });
  api.route({
    method: 'post',
    path: '/v1/ping',
    summary: 'a POST that takes no body',
    auth: 'none',
    responses: { 200: { description: 'ok' } },
    handler: ({ body }) => ({ body: { received: body ?? null } }),
  });
  api.route({
    method: 'get',
    path: '/v1/boom',
    summary: 'fails',
    auth: 'none',
    responses: { 200: { description: 'never' } },
    handler: () => {
      throw new Error('secret internals at /var/lib/thing');
    },
  });
  api.route({
    method: 'get',
    path: '/v1/old',
    summary: 'deprecated',
    auth: 'none',
    deprecated: { since: '2026-01-01', sunset: '2026-09-01', successor: '/v1/new' },
    responses: { 200: { description: 'ok' } },
    handler: () => ({ body: [] }),
  });
};

async function setup(overrides: Record<string, unknown> = {}) {
  const ctx = await makeContext(overrides);
  const { app } = createApp({ ctx, tokens: new TokenService(ctx), adminToken: ADMIN_TOKEN }, [echo]);
  return { ctx, http: request(app) };
}

function expectProblem(res: request.Response, status: number, code: string) {
  expect(res.status).toBe(status);
  expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
  expect(res.headers['x-request-id']).toMatch(/\S/);
  expect(res.body).toMatchObject({ type: `urn:borderd:problem:${code}`, status, code });
  expect(typeof res.body.title).toBe('string');
  expect(typeof res.body.detail).toBe('string');
  expect(res.body.requestId).toBe(res.headers['x-request-id']);
}

describe('problem responses', () => {
  it('404 for an unknown route', async () => {
    const { http } = await setup();
    expectProblem(await http.get('/v1/nope'), 404, 'route_not_found');
  });

  it('405 with Allow for a known path and another method', async () => {
    const { http } = await setup();
    const res = await http.delete('/v1/echo');
    expectProblem(res, 405, 'method_not_allowed');
    expect(res.headers.allow).toBe('POST');
  });

  it('400 for a path parameter that is not valid percent-encoding, not a 500', async () => {
    const { http, ctx } = await setup();
    const res = await http.get('/v1/things/%E0%A4%A');
    expectProblem(res, 400, 'malformed_path');
    expect(res.body.detail).toContain('percent-encoding');
    expect(ctx.logs.lines.find((l) => l.msg === 'unexpected error')).toBeUndefined();
    expect((await http.get('/v1/things/caf%C3%A9')).body).toEqual({ id: 'café' });
  });

  it('400 for malformed JSON', async () => {
    const { http } = await setup();
    expectProblem(await http.post('/v1/echo').set('content-type', 'application/json').send('{"text":'), 400, 'malformed_json');
  });

  it('400 for a body that does not decode as its Content-Encoding says, and a gzipped body that does is read', async () => {
    const { http, ctx } = await setup();
    for (const encoding of ['gzip', 'deflate', 'br']) {
      const res = await http
        .post('/v1/echo')
        .set('content-type', 'application/json')
        .set('content-encoding', encoding)
        .send('{"text":"hi"}');
      expectProblem(res, 400, 'malformed_body');
    }
    expect(ctx.logs.lines.find((l) => l.msg === 'unexpected error')).toBeUndefined();
    const zipped = await http
      .post('/v1/echo')
      .set('content-type', 'application/json')
      .set('content-encoding', 'gzip')
      // As bytes: superagent would otherwise serialize the Buffer as JSON.
      .serialize((b: Buffer) => b as unknown as string)
      .send(gzipSync('{"text":"hi"}'));
    expect(zipped.status).toBe(200);
    expect(zipped.body).toMatchObject({ text: 'hi' });
  });

  it('415 for a body that is not JSON', async () => {
    const { http } = await setup();
    expectProblem(await http.post('/v1/echo').set('content-type', 'text/plain').send('text=hi'), 415, 'unsupported_media_type');
    expectProblem(
      await http.post('/v1/echo').set('content-type', 'application/x-www-form-urlencoded').send('text=hi'),
      415,
      'unsupported_media_type',
    );
  });

  it('413 for a body over the configured limit', async () => {
    const { http } = await setup({ 'server.bodyLimitBytes': 2048 });
    const res = await http
      .post('/v1/echo')
      .set('content-type', 'application/json')
      .send(JSON.stringify({ text: 'x'.repeat(4096) }));
    expectProblem(res, 413, 'body_too_large');
    expect(res.body.detail).toContain('2048');
  });

  it('400 naming each invalid field', async () => {
    const { http } = await setup();
    const res = await http.post('/v1/echo').send({ text: 'far too long here', other: 1 });
    expectProblem(res, 400, 'validation_failed');
    expect(res.body.errors).toEqual(
      expect.arrayContaining([
        { path: 'body.text', message: expect.stringContaining('10') },
        { path: 'body', message: 'unknown field(s): other' },
      ]),
    );
  });

  it('400 for fields sent to a route that takes no body; an empty object or no body is fine', async () => {
    const { http } = await setup();
    const res = await http.post('/v1/ping').send({ force: true });
    expectProblem(res, 400, 'validation_failed');
    expect(res.body.errors).toEqual([{ path: 'body', message: 'unknown field(s): force' }]);
    expect((await http.post('/v1/ping').send({})).body).toEqual({ received: null });
    expect((await http.post('/v1/ping')).body).toEqual({ received: null });
  });

  it('500 without internals in the body, with the stack in the log', async () => {
    const { http, ctx } = await setup();
    const res = await http.get('/v1/boom');
    expectProblem(res, 500, 'internal_error');
    expect(JSON.stringify(res.body)).not.toContain('/var/lib');
    expect(res.body.detail).toContain(res.headers['x-request-id']);
    const line = ctx.logs.lines.find((l) => l.msg === 'unexpected error');
    expect(JSON.stringify(line)).toContain('secret internals');
  });

  // SQLite's write lock, held by another process: PostgreSQL has none.
  it.skipIf(onPostgres)(
    '503 database_busy with Retry-After, not a 500, when another process holds the write lock past the busy timeout',
    async () => {
      const ctx = await makeContext({ 'database.busyTimeoutMs': 100 });
      const { http } = makeApi(ctx);
      const org = await createOrganization(ctx, 'Acme');
      const holder = holdWriteLock(ctx.config.database.path);
      try {
        const res = await http
          .post('/admin/v1/events')
          .set('authorization', `Bearer ${ADMIN_TOKEN}`)
          .send({ orgId: org.id, type: 'Transaction_Created', data: {} });
        expectProblem(res, 503, 'database_busy');
        expect(res.headers['retry-after']).toBe('1');
      } finally {
        holder.release();
      }
      // The lock is gone: the same write goes through.
      const again = await http
        .post('/admin/v1/events')
        .set('authorization', `Bearer ${ADMIN_TOKEN}`)
        .send({ orgId: org.id, type: 'Transaction_Created', data: {} });
      expect(again.status).toBe(201);
    },
  );

  it('keeps a sane caller request id and replaces an unsafe one', async () => {
    const { http } = await setup();
    expect((await http.get('/v1/nope').set('x-request-id', 'abc-123')).headers['x-request-id']).toBe('abc-123');
    expect((await http.get('/v1/nope').set('x-request-id', 'a b<script>')).headers['x-request-id']).toMatch(/^req_/);
  });

  it('marks deprecated routes with Deprecation, Sunset and Link', async () => {
    const { http } = await setup();
    const res = await http.get('/v1/old');
    expect(res.status).toBe(200);
    expect(res.headers.deprecation).toBe(`@${Date.parse('2026-01-01') / 1000}`);
    expect(res.headers.sunset).toBe('Tue, 01 Sep 2026 00:00:00 GMT');
    expect(res.headers.link).toBe('</v1/new>; rel="successor-version"');
  });

  it('describes every route in /openapi.json', async () => {
    const { http } = await setup();
    const res = await http.get('/openapi.json');
    expect(res.status).toBe(200);
    expect(Object.keys(res.body.paths).sort()).toEqual(['/v1/boom', '/v1/echo', '/v1/old', '/v1/ping', '/v1/stream', '/v1/things/{id}']);
    expect(res.body.paths['/v1/old'].get.deprecated).toBe(true);
    expect(res.body.paths['/v1/echo'].post.requestBody.content['application/json'].schema.properties.text.maxLength).toBe(10);
  });
});

describe('request log line', () => {
  const requestLines = (ctx: Awaited<ReturnType<typeof setup>>['ctx']) => ctx.logs.lines.filter((l) => l.msg === 'request');

  it('writes one line for a request answered in full, without aborted', async () => {
    const { http, ctx } = await setup();
    const res = await http.post('/v1/echo').send({ text: 'hi' });
    expect(res.status).toBe(200);
    const lines = requestLines(ctx);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ requestId: res.headers['x-request-id'], method: 'POST', route: '/v1/echo', status: 200 });
    expect(lines[0]).not.toHaveProperty('aborted');
  });

  it('names the route of a request answered with a problem too', async () => {
    const { http, ctx } = await setup();
    const res = await http.post('/v1/echo').send({ text: 'far too long for it' });
    expect(res.status).toBe(400);
    expect(requestLines(ctx)[0]).toMatchObject({ method: 'POST', route: '/v1/echo', status: 400 });
  });

  it('writes one line with aborted: true when the client goes away mid-response', async () => {
    const ctx = await makeContext();
    const { app } = createApp({ ctx, tokens: new TokenService(ctx), adminToken: ADMIN_TOKEN }, [echo]);
    const server: Server = await new Promise((resolve) => {
      const s = app.listen(0, '127.0.0.1', () => resolve(s));
    });
    try {
      const { port } = server.address() as AddressInfo;
      const requestId = await new Promise<string>((resolve, reject) => {
        const req = get({ host: '127.0.0.1', port, path: '/v1/stream' }, (res) => {
          res.once('data', () => {
            resolve(String(res.headers['x-request-id']));
            req.destroy(); // the client closes the stream, as a browser leaving the page does
          });
        });
        req.on('error', (err) => (err.message.includes('aborted') || err.message.includes('socket hang up') ? undefined : reject(err)));
      });
      await streamClosed;
      const lines = requestLines(ctx);
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatchObject({ requestId, method: 'GET', route: '/v1/stream', status: 200, aborted: true });
      expect(typeof lines[0]!.ms).toBe('number');
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
