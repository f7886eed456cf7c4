import { createPublicKey, verify, type KeyObject } from 'node:crypto';
import { EventEmitter, once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach } from 'vitest';

export interface Received {
  /** Request target (path and query), as the receiver saw it. */
  url: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** True when the delivery's x-signature verifies its exact body bytes with `publicKey` (node:crypto). */
export function signatureVerifies(r: { body: Buffer | string; headers: IncomingHttpHeaders }, publicKey: string | KeyObject): boolean {
  const key = typeof publicKey === 'string' ? createPublicKey(publicKey) : publicKey;
  return verify('sha256', Buffer.from(r.body), key, Buffer.from(String(r.headers['x-signature']), 'base64'));
}

type Responder = (req: Received, res: ServerResponse) => void;

const servers: Server[] = [];
afterEach(async () => {
  while (servers.length) {
    const s = servers.pop()!;
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});

/** A webhook receiver on 127.0.0.1 that records every request; `respond` decides the answer (200 by default). */
export async function startReceiver(respond: Responder = (_r, res) => res.end('ok')) {
  const received: Received[] = [];
  const events = new EventEmitter();
  const state = { respond };
  /** Requests not answered yet, and the most there ever were at once. */
  const load = { active: 0, maxActive: 0 };
  const server = createServer((req, res) => {
    load.active++;
    load.maxActive = Math.max(load.maxActive, load.active);
    res.once('close', () => load.active--);
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const r = { url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks) };
      received.push(r);
      state.respond(r, res);
      events.emit('request', r);
    });
  });
  servers.push(server);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    received,
    server,
    load,
    setResponder: (r: Responder) => (state.respond = r),
    /** Resolves once `n` requests in total have arrived. */
    waitFor: async (n: number) => {
      while (received.length < n) await once(events, 'request');
    },
  };
}
