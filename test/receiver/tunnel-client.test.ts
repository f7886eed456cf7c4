import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { backoffDelay } from '../../src/receiver/backoff.js';
import { CaptureLog } from '../../src/receiver/capture-log.js';
import { createReporter } from '../../src/receiver/console-report.js';
import { Forwarder } from '../../src/receiver/forwarder.js';
import { Relay } from '../../src/receiver/relay.js';
import { TunnelClient } from '../../src/receiver/tunnel.js';
import { createTestSigner, type TransactionEventData } from '../../src/verify/index.js';
import { tempDir } from '../support/context.js';
import { runCli } from '../support/process.js';
import { startLocalApp } from './support.js';

/**
 * TunnelClient against a small fake borderd (token endpoint and event stream) whose behaviour each
 * test scripts: token expiry, malformed messages, unsigned fields that lie, a slow local app.
 */
const data: TransactionEventData = {
  id: 'txn_3',
  type: 'Deposit',
  status: 'Completed',
  previousStatus: 'Pending',
  amount: '3.00',
  currency: 'USDC',
  network: 'ETHEREUM',
  source: null,
  destination: null,
  failureReason: null,
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
};
const signer = createTestSigner();
const cleanups: (() => Promise<unknown> | void)[] = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

interface StreamRequest {
  authorization: string | undefined;
  lastEventId: string | undefined;
  url: string;
  status: number;
}

type StreamHandler = (res: ServerResponse, req: StreamRequest, n: number) => void;

function send(res: ServerResponse, m: { id?: string; event: string; data: string }): void {
  res.write(`${m.id ? `id: ${m.id}\n` : ''}event: ${m.event}\ndata: ${m.data}\n\n`);
}

const keyMessage = {
  event: 'signing-key',
  data: JSON.stringify({ keyId: signer.keyId, publicKey: signer.publicKey, algorithm: 'RSA-SHA256' }),
};

/** A signed event as the stream carries it; `sse` overrides the unsigned SSE fields. */
function streamEvent(type: 'Transaction_Created' | 'Transaction_Updated', sse: { id?: string; event?: string } = {}) {
  const d = signer.signEvent(type, data);
  return {
    delivery: d,
    message: {
      id: sse.id ?? d.event.id,
      event: sse.event ?? type,
      data: JSON.stringify({ body: d.body, signature: d.headers['x-signature'], keyId: signer.keyId }),
    },
  };
}

async function fakeBorderd(onStream: StreamHandler, opts: { rejectToken?: (token: string, n: number) => boolean } = {}) {
  const state = { tokenRequests: 0, streams: [] as StreamRequest[] };
  const server: Server = createServer((req: IncomingMessage, res) => {
    if (req.method === 'POST' && req.url === '/v1/auth/m2m/token') {
      state.tokenRequests++;
      req.resume();
      return res
        .writeHead(201, { 'content-type': 'application/json' })
        .end(JSON.stringify({ accessToken: `tok${state.tokenRequests}`, tokenType: 'Bearer', expiresIn: 60 }));
    }
    if (req.url?.startsWith('/v1/notifications/events/stream')) {
      const n = state.streams.length;
      const token = (req.headers.authorization ?? '').replace(/^Bearer /, '');
      const rec: StreamRequest = {
        authorization: req.headers.authorization,
        lastEventId: req.headers['last-event-id'] as string | undefined,
        url: req.url,
        status: 200,
      };
      state.streams.push(rec);
      if (opts.rejectToken?.(token, n)) {
        rec.status = 401;
        return res.writeHead(401, { 'content-type': 'application/problem+json', 'www-authenticate': 'Bearer' }).end('{"status":401}');
      }
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.flushHeaders();
      return onStream(res, rec, n);
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  cleanups.push(() => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r()))));
  return { ...state, state, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

function startTunnel(
  baseUrl: string,
  appUrl: string,
  opts: { eventTypes?: string[]; heartbeatTimeoutMs?: number; forwardAttempts?: number } = {},
) {
  const captureDbPath = join(tempDir('borderd-tunnel-client-'), 'capture.db');
  const capture = new CaptureLog(captureDbPath);
  const lines: Record<string, unknown>[] = [];
  const waiters = new Set<() => void>();
  const write = (l: string) => {
    lines.push(JSON.parse(l) as Record<string, unknown>);
    for (const w of [...waiters]) w();
  };
  const reporter = createReporter(true, write, write);
  const cursorWaiters = new Map<string, () => void>();
  const moved = new Set<string>();
  const forwarder = new Forwarder(appUrl);
  const relay = new Relay({ forwarder, capture, reporter, dedupe: true, eventTypes: opts.eventTypes ?? [] });
  const tunnel = new TunnelClient({
    baseUrl,
    credentials: { clientId: 'cli_1', clientSecret: 'secret' },
    relay,
    capture,
    reporter,
    captureDbPath,
    initialBackoffMs: 20,
    maxBackoffMs: 100,
    heartbeatTimeoutMs: opts.heartbeatTimeoutMs ?? 10_000,
    forwardAttempts: opts.forwardAttempts ?? 5,
    forwardRetryDelayMs: () => 20,
    onCursor: (id) => {
      moved.add(id);
      cursorWaiters.get(id)?.();
    },
  });
  /** Resolves once the cursor moved to this id (saved in the capture log). */
  const cursorAt = (id: string) => new Promise<void>((resolve) => (moved.has(id) ? resolve() : cursorWaiters.set(id, resolve)));
  void tunnel.start();
  cleanups.push(async () => {
    await tunnel.stop();
    await forwarder.close();
    capture.close();
  });
  /** Resolves with the first line matching. */
  const waitLine = (pred: (l: Record<string, unknown>) => boolean) =>
    new Promise<Record<string, unknown>>((resolve) => {
      const check = () => {
        const hit = lines.find(pred);
        if (!hit) return;
        waiters.delete(check);
        resolve(hit);
      };
      waiters.add(check);
      check();
    });
  return { tunnel, capture, captureDbPath, lines, waitLine, cursorAt };
}

describe('tunnel client', () => {
  it('gets a new token when the stream refuses the cached one, and resumes after the last event', async () => {
    const first = streamEvent('Transaction_Created');
    const second = streamEvent('Transaction_Updated');
    // tok1 works once; the stream then ends (its token expired) and tok1 is refused from then on.
    const fake = await fakeBorderd(
      (res, req) => {
        if (req.authorization === 'Bearer tok1') {
          send(res, { event: 'ready', data: '{"from":"now","after":null}' });
          send(res, keyMessage);
          send(res, first.message);
          return void setTimeout(() => res.end(), 20);
        }
        send(res, { id: first.delivery.event.id, event: 'ready', data: '{}' });
        send(res, keyMessage);
        send(res, second.message);
      },
      { rejectToken: (token, n) => token === 'tok1' && n > 0 },
    );
    const app = await startLocalApp();
    const { tunnel } = startTunnel(fake.url, app.url);
    const got = await app.waitFor(2);
    expect(got.map((r) => r.body)).toEqual([first.delivery.body, second.delivery.body]);
    expect(fake.state.tokenRequests).toBe(2);
    expect(tunnel.tokenFetches).toBe(2);
    expect(fake.state.streams.map((s) => [s.authorization, s.status])).toEqual([
      ['Bearer tok1', 200],
      ['Bearer tok1', 401],
      ['Bearer tok2', 200],
    ]);
    expect(fake.state.streams[2]!.lastEventId).toBe(first.delivery.event.id);
  });

  it('skips a malformed message with an error instead of reconnecting forever, and moves past its id', async () => {
    const good = streamEvent('Transaction_Created');
    const badId = 'evt_01aaaaaaaaaaaaaaaaaaaaaaaa';
    const fake = await fakeBorderd((res) => {
      send(res, { event: 'ready', data: '{}' });
      send(res, keyMessage);
      send(res, { id: badId, event: 'Transaction_Created', data: '{"body": "not closed' });
      send(res, good.message);
    });
    const app = await startLocalApp();
    const { capture, waitLine, lines, cursorAt } = startTunnel(fake.url, app.url);
    expect((await app.waitFor(1))[0]!.body).toBe(good.delivery.body);
    await cursorAt(good.delivery.event.id);
    const error = await waitLine((l) => l.kind === 'error');
    expect(error.message).toMatch(new RegExp(`skipped a malformed Transaction_Created message \\(${badId}\\)`));
    expect(fake.state.streams).toHaveLength(1);
    expect(lines.some((l) => String(l.message).includes('disconnected'))).toBe(false);
    expect(capture.cursor(fake.url)).toBe(good.delivery.event.id);
  });

  it('filters, dedupes and resumes on the verified body, never on the unsigned SSE fields', async () => {
    // The SSE fields claim another id and type than the signed body.
    const real = streamEvent('Transaction_Created', { id: 'evt_01zzzzzzzzzzzzzzzzzzzzzzzz', event: 'Transaction_Updated' });
    const forged = {
      id: 'evt_01zzzzzzzzzzzzzzzzzzzzzzzy',
      event: 'Transaction_Created',
      data: JSON.stringify({ body: '{"id":"evt_x","type":"Transaction_Created"}', signature: signer.sign('other'), keyId: signer.keyId }),
    };
    const fake = await fakeBorderd((res) => {
      send(res, { event: 'ready', data: '{}' });
      send(res, keyMessage);
      send(res, forged);
      send(res, real.message);
    });
    const app = await startLocalApp();
    const { capture, waitLine, cursorAt } = startTunnel(fake.url, app.url, { eventTypes: ['Transaction_Created'] });
    const [got] = await app.waitFor(1);
    expect(got!.body).toBe(real.delivery.body);
    expect(got!.headers['x-event-id']).toBe(real.delivery.event.id);
    expect(got!.headers['x-event-type']).toBe('Transaction_Created');
    const rejected = await waitLine((l) => l.outcome === 'rejected');
    expect(rejected.eventId).toBe(forged.id);
    await waitLine((l) => l.outcome === 'forwarded');
    await cursorAt(real.delivery.event.id);
    expect(capture.cursor(fake.url)).toBe(real.delivery.event.id);
    expect(capture.get(real.delivery.event.id)).toMatchObject({ eventType: 'Transaction_Created', forwardStatus: 200 });
  });

  it('does not let the heartbeat watchdog fire while an event is being forwarded', async () => {
    const ev = streamEvent('Transaction_Created');
    const ev2 = streamEvent('Transaction_Updated');
    const opened: ServerResponse[] = [];
    const fake = await fakeBorderd((res) => {
      opened.push(res);
      send(res, { event: 'ready', data: '{}' });
      send(res, keyMessage);
      send(res, ev.message);
      const beat = setInterval(() => res.write(': heartbeat\n\n'), 30);
      res.on('close', () => clearInterval(beat));
    });
    // A local app slower than the watchdog; once it answered the first event, the stream sends a second.
    let received = 0;
    const slow = createServer((req, res) => {
      req.resume();
      req.on('end', () =>
        setTimeout(() => {
          received++;
          res.end('ok');
          if (received === 1) send(opened[0]!, ev2.message);
        }, 1500),
      );
    });
    await new Promise<void>((r) => slow.listen(0, '127.0.0.1', r));
    cleanups.push(() => new Promise<void>((r) => (slow.closeAllConnections(), slow.close(() => r()))));
    // The watchdog also covers getting the token and connecting, in this same busy process: 1 s
    // leaves a loaded machine room for that, and the app's 1.5 s still outlast it.
    const { waitLine } = startTunnel(fake.url, `http://127.0.0.1:${(slow.address() as AddressInfo).port}/hooks`, {
      heartbeatTimeoutMs: 1000,
    });
    const outcome = await waitLine(
      (l) => (l.outcome === 'forwarded' && l.eventId === ev2.delivery.event.id) || String(l.message).includes('disconnected'),
    );
    expect(outcome).toMatchObject({ outcome: 'forwarded', eventId: ev2.delivery.event.id });
    expect(received).toBe(2);
    expect(fake.state.streams).toHaveLength(1);
  });

  it('records an event the local app keeps failing, says how to replay it, and moves on', async () => {
    const failing = streamEvent('Transaction_Created');
    const next = streamEvent('Transaction_Updated');
    const fake = await fakeBorderd((res) => {
      send(res, { event: 'ready', data: '{}' });
      send(res, keyMessage);
      send(res, failing.message);
      send(res, next.message);
    });
    const app = await startLocalApp();
    app.status = 503;
    const { capture, captureDbPath, waitLine, cursorAt } = startTunnel(fake.url, app.url, { forwardAttempts: 3 });
    const gaveUp = await waitLine((l) => l.kind === 'error');
    expect(gaveUp).toMatchObject({ eventId: failing.delivery.event.id, attempts: 3, lastStatus: 503 });
    expect(gaveUp.message).toBe(
      `Transaction_Created ${failing.delivery.event.id} failed after 3 attempts (last status 503); moving on. ` +
        `Replay it with: borderd receive replay ${failing.delivery.event.id} --capture-db ${captureDbPath}`,
    );
    expect(capture.get(failing.delivery.event.id)).toMatchObject({ forwardStatus: 503, attempts: 3, body: failing.delivery.body });
    app.status = 200;
    // It moved on: the next event is forwarded and the cursor passed both.
    await cursorAt(failing.delivery.event.id);
    await cursorAt(next.delivery.event.id);
    expect(capture.cursor(fake.url)).toBe(next.delivery.event.id);
    expect((await app.waitFor(4))[3]!.body).toBe(next.delivery.body);
    const replay = await runCli(['receive', 'replay', failing.delivery.event.id, '--capture-db', captureDbPath, '--json']);
    expect(replay.code).toBe(0);
    const received = await app.waitFor(5);
    expect(received[4]!.body).toBe(failing.delivery.body);
    expect(received[4]!.headers['x-borderd-replay']).toBe('true');
  });

  it('leaves no abort listener behind on its stop signal after each wait (no MaxListenersExceededWarning)', async () => {
    // 15 tries make 14 waits on the tunnel's one stop signal; a listener left by each passes the
    // EventTarget limit of 10, which node reports with a process warning.
    const warnings: Error[] = [];
    const onWarning = (w: Error) => warnings.push(w);
    process.on('warning', onWarning);
    cleanups.push(() => void process.off('warning', onWarning));
    const failing = streamEvent('Transaction_Created');
    const fake = await fakeBorderd((res) => {
      send(res, { event: 'ready', data: '{}' });
      send(res, keyMessage);
      send(res, failing.message);
    });
    const app = await startLocalApp();
    app.status = 503;
    const { waitLine, cursorAt } = startTunnel(fake.url, app.url, { forwardAttempts: 15 });
    expect(await waitLine((l) => l.kind === 'error')).toMatchObject({ attempts: 15 });
    await cursorAt(failing.delivery.event.id);
    // A warning is emitted on the next tick after the listener that crossed the limit was added.
    await new Promise((r) => setImmediate(r));
    expect(warnings.filter((w) => w.name === 'MaxListenersExceededWarning').map((w) => w.message)).toEqual([]);
  });
});

describe('backoffDelay', () => {
  const policy = { initialMs: 500, maxMs: 15_000 };
  it('doubles from the initial delay up to the cap', () => {
    const top = [0, 1, 2, 3, 4, 5, 6, 10].map((n) => backoffDelay(n, policy, 0.999999));
    expect(top).toEqual([500, 1000, 2000, 4000, 8000, 15_000, 15_000, 15_000]);
  });
  it('is jittered between half and all of its ceiling', () => {
    expect(backoffDelay(2, policy, 0)).toBe(1000);
    expect(backoffDelay(2, policy, 0.5)).toBe(1500);
    const spread = new Set(Array.from({ length: 50 }, () => backoffDelay(3, policy)));
    expect(spread.size).toBeGreaterThan(10);
    for (const d of spread) {
      expect(d).toBeGreaterThanOrEqual(2000);
      expect(d).toBeLessThanOrEqual(4000);
    }
  });
});

describe('a token endpoint that never answers', () => {
  it('is cut off by the heartbeat watchdog and retried, and stop() is not held up by it', async () => {
    let tokenRequests = 0;
    const server = createServer((req) => {
      if (req.url === '/v1/auth/m2m/token') tokenRequests++; // and never answer
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    cleanups.push(() => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r()))));
    const app = await startLocalApp();
    startTunnel(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, app.url, { heartbeatTimeoutMs: 200 });
    await new Promise<void>((resolve) => {
      const check = setInterval(() => tokenRequests >= 2 && (clearInterval(check), resolve()), 20);
    });
    expect(tokenRequests).toBeGreaterThanOrEqual(2);
  });
});
