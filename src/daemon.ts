/**
 * `borderd serve` in one process: the HTTP server, the read workers and the background workers on
 * one context, and their shutdown in reverse order.
 *
 * @module daemon
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { answerClientError } from './api/client-error.js';
import { createApp } from './api/app.js';
import type { OpenContext } from './context.js';
import { inlineReads, workerReads, type Reads } from './db/read-pool.js';
import { readQueries, readQueriesModule, type OffloadedReads } from './services/offloaded-reads.js';
import { resolveAdminToken } from './security/admin-token.js';
import { TokenService } from './services/tokens.js';
import { Dispatcher } from './delivery/dispatch/dispatcher.js';
import { EventSignatures } from './delivery/event-signatures.js';
import { eventStreamCloser, openStreamCount } from './api/routes/event-stream.js';
import { createAlertWorker } from './alerts/incident-watch.js';
import { createMetricsWorker } from './metrics/metrics-worker.js';
import { withMetricsPath } from './metrics/server.js';
import { startTracing } from './tracing/sdk.js';
import { createDecryptWorker } from './inbound/decrypt-worker.js';
import { retentionWorker } from './jobs/retention.js';
import type { Worker } from './worker.js';
import { NodeRegistry, newNodeId } from './cluster/nodes.js';
import { crossNodeWakeups } from './cluster/wakeups.js';

export interface Daemon {
  url: string;
  server: Server;
  adminToken: string;
  adminTokenFile?: string;
  /** Where GET /metrics answers (metrics.enabled): the metrics port, or the API's own. */
  metricsUrl?: string;
  /** Stop accepting, let in-flight requests and sends finish (bounded by shutdownGraceMs), close the database. */
  close(): Promise<void>;
}

/**
 * The read workers of database.readWorkers; inline reads when there are none, the database is in
 * memory, or it is PostgreSQL (whose pool already runs reads beside the main thread's work).
 */
function openReads(ctx: OpenContext): Reads<OffloadedReads> {
  const { path, readWorkers, busyTimeoutMs } = ctx.config.database;
  if (readWorkers === 0 || path === ':memory:' || ctx.db.dialect === 'postgres') return inlineReads(ctx.db, readQueries);
  return workerReads({ dbPath: path, busyTimeoutMs, size: readWorkers, tableModule: readQueriesModule, log: ctx.log });
}

/** Starts `borderd serve`: the HTTP API and every worker, on one context. */
export async function startDaemon(ctx: OpenContext): Promise<Daemon> {
  // Before the app is built: it mounts its request spans only while tracing is on.
  const stopTracing = await startTracing(ctx.config.tracing, ctx.log);
  const tokens = new TokenService(ctx);
  await tokens.warmUp();
  const admin = resolveAdminToken(ctx.config.admin.token, ctx.dataDir);
  const reads = openReads(ctx);
  // One per process: the dispatcher and the event streams sign each event once between them.
  const signatures = new EventSignatures(ctx);
  const { app } = createApp({ ctx, tokens, adminToken: admin.token, reads, signatures });

  const nodes = new NodeRegistry(ctx, newNodeId());
  const dispatcher = new Dispatcher(ctx, { signatures, owner: nodes.id, share: nodes.share });
  const metrics = ctx.config.metrics.enabled
    ? createMetricsWorker(
        ctx,
        () => openStreamCount(ctx),
        () => dispatcher.byOrg(),
      )
    : undefined;
  const onApiPort = metrics && ctx.config.metrics.port === undefined;
  const server = createServer({ keepAliveTimeout: 5000 }, onApiPort ? withMetricsPath(app, metrics.scrape) : app);
  server.on('clientError', (err: Error, socket) => answerClientError(err, socket as Socket, ctx.log));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(ctx.config.server.port, ctx.config.server.host, () => resolve());
  });
  const { address, port } = server.address() as AddressInfo;
  const host = address.includes(':') ? `[${address}]` : address;
  const url = `http://${host}:${port}`;

  // Started in this order, stopped in reverse: the dispatcher's in-flight sends finish last, and
  // this node leaves the nodes table after the dispatcher gave its leases back. The node registry
  // takes back what dead processes held before the dispatcher's first pass; the metrics count
  // from before the first send to after the last.
  const workers: Worker[] = [
    ...(metrics ? [metrics] : []),
    nodes,
    crossNodeWakeups(ctx),
    dispatcher,
    createDecryptWorker(ctx),
    eventStreamCloser(ctx),
    retentionWorker(ctx, nodes.id),
    createAlertWorker(ctx),
  ];
  for (const worker of workers) await worker.start();

  let closing: Promise<void> | undefined;
  const close = (): Promise<void> =>
    (closing ??= (async () => {
      const grace = ctx.config.server.shutdownGraceMs;
      const serverClosed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      const timer = setTimeout(() => server.closeAllConnections(), grace);
      timer.unref();
      for (const worker of [...workers].reverse()) {
        try {
          await worker.stop();
        } catch (err) {
          ctx.log.error({ err, worker: worker.name }, 'worker failed to stop cleanly');
        }
      }
      await serverClosed;
      clearTimeout(timer);
      await reads.close();
      await ctx.db.close();
      await stopTracing();
    })());

  const daemon: Daemon = { url, server, adminToken: admin.token, close };
  if (admin.file) daemon.adminTokenFile = admin.file;
  const metricsUrl = onApiPort ? `${url}/metrics` : metrics?.url;
  if (metricsUrl) daemon.metricsUrl = metricsUrl;
  return daemon;
}
