/**
 * The benchmarks' local webhook receiver: plain node:http, answers 200 to every POST. With
 * `--public-key FILE` it verifies every signature with borderd/verify (a failure is answered 400
 * and counted) and records, per event, the time from the event's createdAt to its first receipt.
 * `GET /stats` answers the counts and the first and last receipt times (`?latencies=1` adds the
 * latencies); `POST /reset` clears them; `PUT /public-key` sets the key to verify with. A POST that
 * carries `x-bench-sent-ns` (the sender's process.hrtime, CLOCK_MONOTONIC, which every process of
 * the machine reads alike) and `x-bench-path` has its one-way time, from that stamp to the end of
 * its body here, kept under that path: `GET /one-way` answers them by path.
 * Run as a child process: node dist/bench/webhook-receiver-server.js [--public-key FILE]
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { createPublicKey, type KeyObject } from 'node:crypto';
import { verifyWebhook } from '../src/verify/signature.js';

const keyArg = process.argv.indexOf('--public-key');
let publicKeys: KeyObject[] = keyArg > 0 ? [createPublicKey(readFileSync(process.argv[keyArg + 1]!, 'utf8'))] : [];

let deliveries = 0;
let failures = 0;
let firstAt = 0;
let lastAt = 0;
const firstReceipt = new Map<string, number>();
let latenciesMs: number[] = [];
const oneWayMs: Record<string, number[]> = {};

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const arrivedNs = process.hrtime.bigint();
    const now = performance.timeOrigin + performance.now();
    if (req.method === 'GET' && req.url === '/one-way') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(oneWayMs));
      return;
    }
    if (req.method === 'GET' && req.url?.startsWith('/stats')) {
      res.writeHead(200, { 'content-type': 'application/json' });
      const withLatencies = req.url.includes('latencies=1');
      res.end(
        JSON.stringify({
          deliveries,
          failures,
          distinctEvents: firstReceipt.size,
          firstAt,
          lastAt,
          ...(withLatencies ? { latenciesMs } : {}),
        }),
      );
      return;
    }
    if (req.method === 'POST' && req.url === '/reset') {
      deliveries = 0;
      failures = 0;
      firstAt = 0;
      lastAt = 0;
      firstReceipt.clear();
      latenciesMs = [];
      res.writeHead(204).end();
      return;
    }
    if (req.method === 'PUT' && req.url === '/public-key') {
      // The daemon's key is known only after it made one: the benchmark hands it over here.
      publicKeys = [createPublicKey(Buffer.concat(chunks).toString('utf8'))];
      res.writeHead(204).end();
      return;
    }
    deliveries++;
    const sentNs = req.headers['x-bench-sent-ns'];
    const path = req.headers['x-bench-path'];
    if (typeof sentNs === 'string' && typeof path === 'string') (oneWayMs[path] ??= []).push(Number(arrivedNs - BigInt(sentNs)) / 1e6);
    if (firstAt === 0) firstAt = now;
    lastAt = now;
    const body = Buffer.concat(chunks);
    if (publicKeys.length > 0) {
      try {
        const event = verifyWebhook<{ id: string; createdAt: string }>(body, req.headers, publicKeys);
        if (!firstReceipt.has(event.id)) {
          firstReceipt.set(event.id, now);
          latenciesMs.push(now - Date.parse(event.createdAt));
        }
      } catch {
        failures++;
        res.writeHead(400).end();
        return;
      }
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{"ok":true}');
  });
});
server.keepAliveTimeout = 65_000;
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`listening on http://127.0.0.1:${(server.address() as AddressInfo).port}\n`);
});
process.on('SIGTERM', () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
});
