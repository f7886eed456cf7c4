/**
 * The metrics of `borderd serve` as one worker: its registry, the counting that follows the signals
 * while it runs, and the metrics port when metrics.port is set (else the daemon answers /metrics
 * on the API's port with `scrape`).
 *
 * @module metrics/metrics-worker
 */
import type { RequestListener, Server } from 'node:http';
import type { OpenContext } from '../context.js';
import type { Worker } from '../worker.js';
import { createRegistry } from './definitions.js';
import { observe } from './observe.js';
import { readAtScrape, type ScrapeSources } from './scrape.js';
import { listenForScrapes, scrapeHandler } from './server.js';
import type { Registry } from 'prom-client';

export interface MetricsWorker extends Worker {
  readonly registry: Registry;
  /** One scrape's text: every gauge read anew. */
  collect(): Promise<string>;
  /** The /metrics listener, for the API's port when metrics.port is unset. */
  readonly scrape: RequestListener;
  /** Where the metrics port answers once started; undefined when the API's port serves them. */
  readonly url: string | undefined;
}

export function createMetricsWorker(ctx: OpenContext, streams: () => number, slots?: ScrapeSources['slots']): MetricsWorker {
  const { atScrape, fresh } = readAtScrape({ ctx, streams, ...(slots ? { slots } : {}) });
  const { registry, metrics } = createRegistry(atScrape);
  const collect = (): Promise<string> => {
    fresh();
    return registry.metrics();
  };
  const scrape = scrapeHandler(collect, registry.contentType, ctx.log);
  let stopObserving: (() => void) | undefined;
  let server: Server | undefined;
  let url: string | undefined;
  return {
    name: 'metrics',
    registry,
    collect,
    scrape,
    get url() {
      return url;
    },
    async start() {
      stopObserving = observe(ctx.signals, ctx.db, metrics);
      const { port, host } = ctx.config.metrics;
      if (port === undefined) return;
      ({ server, url } = await listenForScrapes(host, port, scrape));
      ctx.log.info({ url }, 'metrics listening');
    },
    async stop() {
      stopObserving?.();
      if (server) {
        const closing = server;
        await new Promise<void>((resolve) => closing.close(() => resolve()));
        closing.closeAllConnections();
      }
    },
  };
}
