import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { createServer as createTcpServer, connect, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterEach } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import type { AppContext } from '../../src/context.js';
import { createContext } from '../../src/create-context.js';
import { writeEvent } from '../../src/delivery/events.js';
import { createLogger } from '../../src/logging/logger.js';
import { getApiClient } from '../../src/store/api-clients.js';
import type { EventDataByType, EventType } from '../../src/verify/events.js';
import { BIN, type RunningBorderd } from '../support/process.js';

/** Helpers for receiver tests: a local app that records what it gets, a real `borderd receive`, a cuttable proxy. */
const stoppers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  while (stoppers.length) await stoppers.pop()!().catch(() => undefined);
});

export interface Received {
  body: string;
  /** The body's bytes as they arrived (body is them decoded as UTF-8). */
  bytes: Buffer;
  headers: IncomingHttpHeaders;
}

export interface LocalApp {
  url: string;
  received: Received[];
  /** Status the app answers with. */
  status: number;
  /** How long the app takes before it answers. */
  delayMs: number;
  /** Resolves when the app has received n requests in total. */
  waitFor(n: number): Promise<Received[]>;
  close(): Promise<void>;
}

/** The base URL of a loopback port that was just free: nothing answers there (a borderd that cannot be reached). */
export async function unreachableBase(): Promise<string> {
  const closed = createServer();
  await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`;
  await new Promise<void>((r) => closed.close(() => r()));
  return base;
}

export async function startLocalApp(): Promise<LocalApp> {
  const waiters: { n: number; resolve: () => void }[] = [];
  let server: Server;
  const app: LocalApp = {
    url: '',
    received: [],
    status: 200,
    delayMs: 0,
    waitFor: (n) =>
      new Promise((resolve) => {
        if (app.received.length >= n) return resolve(app.received);
        waiters.push({ n, resolve: () => resolve(app.received) });
      }),
    close: () => new Promise<void>((r) => (server.close(() => r()), server.closeAllConnections())),
  };
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const bytes = Buffer.concat(chunks);
      app.received.push({ body: bytes.toString('utf8'), bytes, headers: req.headers });
      setTimeout(() => res.writeHead(app.status, { 'content-type': 'application/json' }).end('{"ok":true}'), app.delayMs);
      for (const w of waiters.filter((w) => app.received.length >= w.n)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve();
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  app.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  stoppers.push(() => app.close());
  return app;
}

export interface ReceiveProcess {
  proc: ChildProcess;
  /** The listening URL (listen mode) or undefined (tunnel mode). */
  url: string | undefined;
  output(): string;
  /** Resolves when the output matches. */
  waitForOutput(re: RegExp): Promise<RegExpExecArray>;
  stop(): Promise<number | null>;
}

export const startReceive = (args: string[], ready: RegExp, env: Record<string, string> = {}): Promise<ReceiveProcess> =>
  startNodeProcess([BIN, 'receive', ...args], ready, env);

/** Runs `node <argv>` (the CLI or an example) until the test ends; the first group of `ready` becomes url. */
export async function startNodeProcess(argv: string[], ready: RegExp, env: Record<string, string> = {}): Promise<ReceiveProcess> {
  const proc = spawn(process.execPath, argv, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const listeners = new Set<() => void>();
  const onData = (d: Buffer) => {
    out += d.toString();
    for (const l of [...listeners]) l();
  };
  proc.stdout!.on('data', onData);
  proc.stderr!.on('data', onData);
  const exited = new Promise<number | null>((r) => proc.on('exit', (code) => r(code)));
  const waitForOutput = (re: RegExp) =>
    new Promise<RegExpExecArray>((resolve, reject) => {
      const check = () => {
        const m = re.exec(out);
        if (m) {
          listeners.delete(check);
          resolve(m);
        }
      };
      listeners.add(check);
      void exited.then(() => {
        if (listeners.has(check)) reject(new Error(`${argv[1] ?? argv[0]} exited before ${re}:\n${out}`));
      });
      check();
    });
  const rp: ReceiveProcess = {
    proc,
    url: undefined,
    output: () => out,
    waitForOutput,
    stop: async () => {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGTERM');
      return exited;
    },
  };
  stoppers.push(rp.stop);
  const m = await waitForOutput(ready);
  rp.url = m[1];
  return rp;
}

/** A TCP proxy in front of borderd whose connections a test can cut, to prove resume. */
export interface CuttableProxy {
  url: string;
  /** Destroys open connections and refuses new ones until restore(). */
  cut(): void;
  restore(): void;
  connections: number;
}

export async function startProxy(targetUrl: string): Promise<CuttableProxy> {
  const target = new URL(targetUrl);
  const sockets = new Set<Socket>();
  let refusing = false;
  const proxy: CuttableProxy = {
    url: '',
    connections: 0,
    cut() {
      refusing = true;
      for (const s of sockets) s.destroy();
      sockets.clear();
    },
    restore() {
      refusing = false;
    },
  };
  const server = createTcpServer((client) => {
    if (refusing) return client.destroy();
    proxy.connections++;
    const upstream = connect(Number(target.port), target.hostname);
    sockets.add(client).add(upstream);
    client.pipe(upstream).pipe(client);
    const drop = () => (client.destroy(), upstream.destroy());
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  proxy.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  stoppers.push(() => new Promise<void>((r) => (proxy.cut(), server.close(() => r()))));
  return proxy;
}

/** The first-start credentials of a daemon from startBorderd (printed before its listening line). */
export async function daemonCredentials(daemon: RunningBorderd): Promise<{ clientId: string; clientSecret: string }> {
  if (!daemon.credentials) throw new Error(`no first-start credentials in the daemon output:\n${daemon.output()}`);
  return daemon.credentials;
}

export interface DaemonDb {
  ctx: AppContext;
  orgId: string;
  /** Writes an event row as the daemon's own code would; the stream's poll picks it up. */
  emit<T extends EventType>(type: T, data: EventDataByType[T]): Promise<{ id: string; body: string }>;
}

/** A second connection to a running daemon's SQLite file (WAL), as the organization of clientId. Closed after the test. */
export async function openDaemonDb(daemon: RunningBorderd, clientId: string): Promise<DaemonDb> {
  const config = loadConfig({ env: {}, flags: { 'database.path': daemon.dbPath } });
  const ctx = await createContext(config, { log: createLogger({ level: 'silent', pretty: 'never' }) });
  stoppers.unshift(async () => ctx.db.open && (await ctx.db.close()));
  const orgId = (await getApiClient(ctx.db, clientId))!.orgId;
  return {
    ctx,
    orgId,
    emit: async (type, data) => {
      const { event, body } = await writeEvent(ctx.db, Date.now(), orgId, type, data);
      return { id: event.id, body };
    },
  };
}
