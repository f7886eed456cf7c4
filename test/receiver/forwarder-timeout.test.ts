import { createServer, type ServerResponse } from 'node:http';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { Forwarder, type ForwardResult } from '../../src/receiver/forwarder.js';

const cleanups: (() => Promise<unknown> | void)[] = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

/** A local app that takes requests and never answers (or answers its headers and never ends its body). */
async function stuckApp(mode: 'no-headers' | 'no-body-end'): Promise<string> {
  const open: ServerResponse[] = [];
  const server = createServer((req, res) => {
    req.resume();
    open.push(res);
    if (mode === 'no-body-end') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"partial":');
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  cleanups.push(() => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r()))));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
}

/**
 * The result, or 'late' if it has not come 900 ms after the call. Not a timing bound on a fast path:
 * undici's own timers, which this deadline replaced, took 1 s or more for a 100 ms timeout, so 800 ms
 * of slack is left for a slow machine.
 */
function withinAlarm(p: Promise<ForwardResult>): Promise<ForwardResult | 'late'> {
  let alarm: NodeJS.Timeout | undefined;
  return Promise.race([p, new Promise<'late'>((r) => (alarm = setTimeout(() => r('late'), 900)))]).finally(() => clearTimeout(alarm));
}

describe('Forwarder --forward-timeout', () => {
  it('answers 504 at its own deadline when the app never answers', async () => {
    const fwd = new Forwarder(await stuckApp('no-headers'), {}, 100);
    cleanups.push(() => fwd.close());
    const result = await withinAlarm(fwd.forward('{}', { 'content-type': 'application/json' }));
    expect(result).toMatchObject({ status: 504, error: 'no answer within 100 ms' });
  });

  it('covers the whole answer: an app that sends its headers but never ends its body is a 504 too', async () => {
    const fwd = new Forwarder(await stuckApp('no-body-end'), {}, 100);
    cleanups.push(() => fwd.close());
    const result = await withinAlarm(fwd.forward('{}', { 'content-type': 'application/json' }));
    expect(result).toMatchObject({ status: 504, error: 'no answer within 100 ms' });
  });
});

describe('Forwarder, the answer read', () => {
  it('reads a normal answer to its end and reuses the connection; an endless one is cut past 128 KB and its status still forwarded', async () => {
    const sockets = new Set<unknown>();
    const server = createServer((req, res) => {
      sockets.add(req.socket);
      req.resume();
      if (req.url === '/endless') {
        res.writeHead(202);
        // Never ends: only a reader that stops reading can answer.
        const more = () => {
          if (!res.destroyed) res.write(Buffer.alloc(16 * 1024, 120), () => setImmediate(more));
        };
        more();
        return;
      }
      res.end('ok');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    cleanups.push(() => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r()))));
    const { port } = server.address() as AddressInfo;
    const fwd = new Forwarder(`http://127.0.0.1:${port}/hooks`, {}, 5_000);
    cleanups.push(() => fwd.close());
    for (let i = 0; i < 10; i++) expect((await fwd.forward('{}', {})).status).toBe(200);
    // Reused, not one per forward. undici's pool may open a second socket once, for a request made
    // while the first socket's answer was still being completed.
    expect(sockets.size).toBeLessThanOrEqual(2);
    const endless = new Forwarder(`http://127.0.0.1:${port}/endless`, {}, 5_000);
    cleanups.push(() => endless.close());
    expect(await withinAlarm(endless.forward('{}', {}))).toMatchObject({ status: 202 });
  });
});

describe('Forwarder, an app whose answer breaks off', () => {
  it("forwards the app's status when its connection drops after the status line: it did answer", async () => {
    const server = createNetServer((socket) => {
      socket.once('data', () => {
        socket.write('HTTP/1.1 200 OK\r\ncontent-length: 100\r\n\r\npartial');
        setTimeout(() => socket.destroy(), 20);
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    cleanups.push(() => new Promise<void>((r) => server.close(() => r())));
    const fwd = new Forwarder(`http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`, {}, 2_000);
    cleanups.push(() => fwd.close());
    const result = await fwd.forward('{}', { 'content-type': 'application/json' });
    expect({ status: result.status, error: result.error }).toEqual({ status: 200, error: undefined });
  });
});
