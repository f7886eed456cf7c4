import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Pool } from 'undici';
import { createTestSigner, type SignedDelivery } from '../src/verify/test-signer.js';
import type { Benchmark } from './bench-types.js';
import { startChildServer, startListening } from './child-server.js';
import { BIN, daemonNodeArgs, tempDir } from './daemon-process.js';
import { round, summarize, type LatencySummary } from './percentiles.js';

/** Round-trip times of a sequence of POSTs, and the Server-Timing durations (by name) of the answers that had them. */
interface SequenceTimes {
  times: number[];
  serverTiming: Record<string, number[]>;
}

/**
 * Sends each delivery once, one after another on a keep-alive pool, and times each round trip. Each
 * request also carries its send time and `path`, from which the app records the one-way time.
 */
async function sendSequentially(
  url: string,
  deliveries: readonly SignedDelivery<unknown>[],
  path: 'direct' | 'through' | 'warmup',
): Promise<SequenceTimes> {
  const target = new URL(url);
  const pool = new Pool(target.origin, { connections: 1 });
  const out: SequenceTimes = { times: [], serverTiming: {} };
  try {
    for (const d of deliveries) {
      const t0 = performance.now();
      const headers = { ...d.headers, 'x-bench-path': path, 'x-bench-sent-ns': String(process.hrtime.bigint()) };
      const res = await pool.request({ method: 'POST', path: target.pathname, headers, body: d.body });
      await res.body.text();
      out.times.push(performance.now() - t0);
      if (res.statusCode !== 200) throw new Error(`POST ${url}: ${res.statusCode}`);
      const timing = res.headers['server-timing'];
      for (const m of typeof timing === 'string' ? timing.matchAll(/(\w+);dur=([\d.]+)/g) : [])
        (out.serverTiming[m[1]!] ??= []).push(Number(m[2]));
    }
  } finally {
    await pool.close();
  }
  return out;
}

/** p50 and p99 of the direct and the through-the-receiver times and their difference, as `<name>P50Ms`, `<name>P99Ms`. */
function compared(
  names: [direct: string, through: string, added: string],
  direct: LatencySummary,
  through: LatencySummary,
): Record<string, number> {
  const out: Record<string, number> = {};
  for (const p of ['p50', 'p99'] as const) {
    const suffix = `${p.toUpperCase()}Ms`;
    out[names[0] + suffix] = round(direct[p], 3);
    out[names[1] + suffix] = round(through[p], 3);
    out[names[2] + suffix] = round(through[p] - direct[p], 3);
  }
  return out;
}

/**
 * Benchmark 3: what `borderd receive` (listen mode: verify, dedupe, capture, forward) adds between
 * a sender and the local app. The same signed deliveries go straight to the app and through the
 * receiver, one at a time, in the same run; the difference of the percentiles is the added latency.
 */
export const receiverBenchmark: Benchmark = {
  name: 'receiver',
  title: 'Receiver: latency borderd receive adds between a sender and the local app',
  async run({ quick, log }) {
    const n = quick ? 200 : 5_000;
    const warmup = quick ? 50 : 500;
    const dir = tempDir('borderd-bench-receive-');
    const signer = createTestSigner();
    const keyFile = join(dir, 'public.pem');
    writeFileSync(keyFile, signer.publicKey);
    const app = await startChildServer('webhook-receiver-server');
    // --cpu-prof DIR (daemonNodeArgs) profiles the receiver too: it is the process this benchmark is about.
    const receive = await startListening(
      [
        ...daemonNodeArgs,
        BIN,
        'receive',
        '--pass-header',
        'x-bench-path',
        '--pass-header',
        'x-bench-sent-ns',
        '--forward-to',
        `${app.url}/webhooks`,
        '--port',
        '0',
        '--public-key',
        keyFile,
        '--capture-db',
        join(dir, 'capture.db'),
      ],
      'borderd receive',
    );
    try {
      const make = (count: number) =>
        Array.from({ length: count }, (_, i) =>
          signer.signEvent('Transaction_Updated', {
            id: `txn_bench${i}`,
            type: 'Deposit',
            status: 'Completed',
            previousStatus: 'Submitted',
            amount: '1234.56',
            currency: 'USDC',
            network: 'Ethereum',
            source: null,
            destination: null,
            failureReason: null,
            createdAt: '2026-01-01T00:00:00.000Z',
            updatedAt: '2026-01-01T00:00:00.000Z',
          }),
        );
      log(`receiver: ${n} deliveries direct and through borderd receive`);
      await sendSequentially(`${app.url}/webhooks`, make(warmup), 'warmup');
      await sendSequentially(receive.url, make(warmup), 'warmup');
      // Alternate in blocks so machine noise hits both paths alike.
      const direct: number[] = [];
      const through: number[] = [];
      const own: number[] = [];
      const forward: number[] = [];
      const block = quick ? 50 : 500;
      for (let done = 0; done < n; done += block) {
        direct.push(...(await sendSequentially(`${app.url}/webhooks`, make(block), 'direct')).times);
        const via = await sendSequentially(receive.url, make(block), 'through');
        through.push(...via.times);
        own.push(...(via.serverTiming.receive ?? []));
        forward.push(...(via.serverTiming.forward ?? []));
      }
      if (own.length !== through.length || forward.length !== through.length)
        throw new Error(`borderd receive sent Server-Timing on ${own.length} of ${through.length} answers`);
      const d: LatencySummary = summarize(direct);
      const r: LatencySummary = summarize(through);
      const o: LatencySummary = summarize(own);
      const f: LatencySummary = summarize(forward);
      const oneWay = (await (await fetch(`${app.url}/one-way`)).json()) as Record<'direct' | 'through', number[] | undefined>;
      if (oneWay.direct?.length !== direct.length || oneWay.through?.length !== through.length)
        throw new Error('the app did not record a one-way time for every delivery');
      const od: LatencySummary = summarize(oneWay.direct);
      const ot: LatencySummary = summarize(oneWay.through);
      const stats = (await (await fetch(`${app.url}/stats`)).json()) as { deliveries: number };
      const expected = 2 * (warmup + Math.ceil(n / block) * block);
      if (stats.deliveries !== expected) throw new Error(`the app saw ${stats.deliveries} deliveries, expected ${expected}`);
      const receiverPeak = receive.peakRss();
      return {
        rows: [
          {
            metric: 'deliveries each way',
            value: direct.length,
            note: 'sequential, keep-alive, RSA-2048 signatures verified by the receiver',
          },
          { metric: 'direct POST p50', value: round(d.p50, 3), unit: 'ms' },
          { metric: 'direct POST p99', value: round(d.p99, 3), unit: 'ms' },
          { metric: 'through borderd receive p50', value: round(r.p50, 3), unit: 'ms' },
          { metric: 'through borderd receive p99', value: round(r.p99, 3), unit: 'ms' },
          { metric: 'added p50', value: round(r.p50 - d.p50, 3), unit: 'ms' },
          { metric: 'added p99', value: round(r.p99 - d.p99, 3), unit: 'ms', note: 'target < 2 ms' },
          {
            metric: 'one-way direct p50 / p99',
            value: `${round(od.p50, 3)} / ${round(od.p99, 3)}`,
            unit: 'ms',
            note: "from the sender's send to the end of the body at the app",
          },
          { metric: 'one-way through receive p50 / p99', value: `${round(ot.p50, 3)} / ${round(ot.p99, 3)}`, unit: 'ms' },
          { metric: 'one-way added p50', value: round(ot.p50 - od.p50, 3), unit: 'ms' },
          { metric: 'one-way added p99', value: round(ot.p99 - od.p99, 3), unit: 'ms', note: 'target < 2 ms, read as sender to app' },
          {
            metric: "receiver's own time p50",
            value: round(o.p50, 3),
            unit: 'ms',
            note: 'its Server-Timing: reading, verifying, deduplicating, answering',
          },
          { metric: "receiver's own time p99", value: round(o.p99, 3), unit: 'ms' },
          {
            metric: 'its forward to the app p50',
            value: round(f.p50, 3),
            unit: 'ms',
            note: 'its Server-Timing: the round trip to the app',
          },
          { metric: 'its forward to the app p99', value: round(f.p99, 3), unit: 'ms' },
          { metric: 'receiver peak RSS', value: round(receiverPeak / 2 ** 20, 1), unit: 'MB' },
        ],
        metrics: {
          deliveries: direct.length,
          ...compared(['direct', 'receiver', 'added'], d, r),
          ...compared(['oneWayDirect', 'oneWayThrough', 'oneWayAdded'], od, ot),
          ownP50Ms: round(o.p50, 3),
          ownP99Ms: round(o.p99, 3),
          forwardP50Ms: round(f.p50, 3),
          forwardP99Ms: round(f.p99, 3),
          receiverPeakRssMb: round(receiverPeak / 2 ** 20, 1),
        },
      };
    } finally {
      await receive.stop();
      await app.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  },
};
