import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import { Pool } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { post } from '../../src/http/post.js';

const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  while (closers.length) await closers.pop()!();
});

/** A server on 127.0.0.1 whose answer `respond` writes, and a pool of `connections` sockets to it. */
async function serverAndPool(respond: (req: IncomingMessage, res: ServerResponse) => void, connections = 1) {
  const seen: Array<{ path: string; body: string }> = [];
  const closed: string[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      seen.push({ path: req.url ?? '', body: Buffer.concat(chunks).toString() });
      res.on('close', () => {
        if (!res.writableFinished) closed.push(req.url ?? '');
      });
      respond(req, res);
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const pool = new Pool(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, { connections });
  closers.push(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });
  closers.push(() => pool.destroy());
  return { pool, seen, closed };
}

const request = { headers: { 'content-type': 'application/json' }, body: '{"a":1}', keepBytes: 8, readLimit: 64 };

describe('post', () => {
  it('answers the status, the first keepBytes of the body as UTF-8, and the first Retry-After', async () => {
    const { pool, seen } = await serverAndPool((_req, res) => {
      res.setHeader('retry-after', '120');
      res.writeHead(503);
      res.end('ünavailable for now');
    });
    const answer = await post(pool, { ...request, path: '/hooks?x=1' }).answer;
    expect(answer).toEqual({
      statusCode: 503,
      body: Buffer.from('ünavailable for now').subarray(0, 8).toString('utf8'),
      retryAfter: '120',
    });
    expect(seen).toEqual([{ path: '/hooks?x=1', body: '{"a":1}' }]);
  });

  it('keeps a body split across chunks, and answers an empty one as ""', async () => {
    const { pool } = await serverAndPool((req, res) => {
      if (req.url === '/empty') return void res.writeHead(204).end();
      res.write('abc');
      setTimeout(() => res.end('defghij'), 20);
    });
    expect((await post(pool, { ...request, path: '/split' }).answer).body).toBe('abcdefgh');
    expect(await post(pool, { ...request, path: '/empty' }).answer).toEqual({ statusCode: 204, body: '', retryAfter: undefined });
  });

  it('stops reading an answer longer than the read limit: answered with what was kept, the connection dropped', async () => {
    const { pool, closed } = await serverAndPool((_req, res) => {
      res.writeHead(200);
      // Never ends: only a reader that stops can answer.
      const more = () => res.write('x'.repeat(32), () => setTimeout(more, 5));
      more();
    });
    const answer = await post(pool, { ...request, path: '/endless' }).answer;
    expect(answer).toEqual({ statusCode: 200, body: 'xxxxxxxx', retryAfter: undefined });
    await expect.poll(() => closed).toEqual(['/endless']);
  });

  it('abort while waiting for the answer rejects with the reason at once and ends the request', async () => {
    const { pool, closed } = await serverAndPool(() => undefined);
    const exchange = post(pool, { ...request, path: '/hangs' });
    const reason = new Error('no complete answer within 5 ms');
    setTimeout(() => exchange.abort(reason), 50);
    await expect(exchange.answer).rejects.toBe(reason);
    await expect.poll(() => closed).toEqual(['/hangs']);
  });

  it('abort while the request waits for a socket rejects at once, and the request is never sent', async () => {
    const held: ServerResponse[] = [];
    const { pool, seen } = await serverAndPool((req, res) => (req.url === '/first' ? void held.push(res) : res.end('ok')), 1);
    const first = post(pool, { ...request, path: '/first' });
    await expect.poll(() => seen.length).toBe(1);
    const queued = post(pool, { ...request, path: '/queued' });
    expect([first.connected, queued.connected]).toEqual([true, false]);
    const reason = new Error('shutting down');
    queued.abort(reason);
    await expect(queued.answer).rejects.toBe(reason);
    held[0]!.end('done');
    expect((await first.answer).statusCode).toBe(200);
    // The socket is free again: the next request goes, and the aborted one never went.
    expect((await post(pool, { ...request, path: '/after' }).answer).statusCode).toBe(200);
    expect(seen.map((s) => s.path)).toEqual(['/first', '/after']);
  });

  it('an answer whose body breaks off after its status: rejected by default, answered with statusOnBodyError', async () => {
    const server = createNetServer((socket) => {
      socket.once('data', () => {
        socket.write('HTTP/1.1 200 OK\r\ncontent-length: 100\r\n\r\npartial');
        setTimeout(() => socket.destroy(), 20);
      });
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    closers.push(() => new Promise((r) => server.close(r)));
    const pool = new Pool(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    closers.push(() => pool.destroy());
    await expect(post(pool, { ...request, path: '/' }).answer).rejects.toMatchObject({ code: 'UND_ERR_SOCKET' });
    expect(await post(pool, { ...request, path: '/', statusOnBodyError: true }).answer).toEqual({
      statusCode: 200,
      body: 'partial',
      retryAfter: undefined,
    });
  });

  it('rejects with the connection error when nothing listens', async () => {
    const server = createServer();
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as AddressInfo;
    await new Promise((r) => server.close(r));
    const pool = new Pool(`http://127.0.0.1:${port}`);
    closers.push(() => pool.destroy());
    await expect(post(pool, { ...request, path: '/' }).answer).rejects.toMatchObject({ code: 'ECONNREFUSED' });
  });
});
