/**
 * Serving the metrics: `GET /metrics` on a port of its own (metrics.port, on metrics.host), or on
 * the API's port when none is set, answered before the API's middleware so a scrape pays for no
 * request id, log line or request metric.
 *
 * @module metrics/server
 */
import { createServer, type IncomingMessage, type RequestListener, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from '../logging/logger.js';

export const METRICS_PATH = '/metrics';

/** Answers a scrape: the metrics' text, or a 500 (logged) when a collect failed. */
export function scrapeHandler(
  collect: () => Promise<string>,
  contentType: string,
  log: Logger,
): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD' }).end();
      return;
    }
    collect().then(
      (text) => {
        res.writeHead(200, { 'content-type': contentType });
        res.end(req.method === 'HEAD' ? undefined : text);
      },
      (err: unknown) => {
        log.error({ err }, 'metrics scrape failed');
        res.writeHead(500, { 'content-type': 'text/plain' }).end('metrics collection failed\n');
      },
    );
  };
}

/** The API's listener with /metrics answered in front of it. */
export function withMetricsPath(api: RequestListener, scrape: RequestListener): RequestListener {
  return (req, res) => {
    const url = req.url ?? '';
    if (url === METRICS_PATH || url.startsWith(`${METRICS_PATH}?`)) scrape(req, res);
    else api(req, res);
  };
}

/** A server of its own that answers /metrics and 404 to anything else. */
export async function listenForScrapes(host: string, port: number, scrape: RequestListener): Promise<{ server: Server; url: string }> {
  const server = createServer(
    { keepAliveTimeout: 5000 },
    withMetricsPath((_req, res) => res.writeHead(404).end(), scrape),
  );
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const { address, port: bound } = server.address() as AddressInfo;
  return { server, url: `http://${address.includes(':') ? `[${address}]` : address}:${bound}${METRICS_PATH}` };
}
