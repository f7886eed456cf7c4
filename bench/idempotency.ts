/**
 * Benchmark: the cost of an Idempotency-Key. The same write (POST /admin/v1/events) against a real
 * daemon without a key, with a fresh key per request (the answer is kept in the write's
 * transaction), and with one key sent again and again (every answer but the first a replay). The
 * plain and keyed runs alternate, so a machine that slows down during the run slows both.
 *
 * @module bench/idempotency
 */
import type { Benchmark, BenchOutcome } from './bench-types.js';
import { cli, startDaemon } from './daemon-process.js';
import { load, type LoadResult } from './http-load.js';
import { percentile, round } from './percentiles.js';
import type { Row } from './report-table.js';

const median = (xs: number[]): number =>
  percentile(
    [...xs].sort((a, b) => a - b),
    50,
  );

export const idempotencyBenchmark: Benchmark = {
  name: 'idempotency',
  title: 'Idempotency-Key: a POST with a key vs the same POST without',
  async run({ quick, log }): Promise<BenchOutcome> {
    const rounds = quick ? 1 : 3;
    const durationSeconds = quick ? 0.5 : 5;
    const connections = 10;
    const daemon = await startDaemon();
    try {
      const [org] = await cli<{ id: string }[]>(['orgs', 'list', ...daemon.databaseArgs]);
      const body = JSON.stringify({ orgId: org!.id, type: 'Transaction_Updated' });
      const url = `${daemon.url}/admin/v1/events`;
      const headers = { authorization: `Bearer ${daemon.adminToken}` };
      let n = 0;
      const run = async (label: string, requestHeaders?: () => Record<string, string>, seconds = durationSeconds): Promise<LoadResult> => {
        const r = await load({ url, method: 'POST', headers, body: () => body, requestHeaders, connections, durationSeconds: seconds });
        if (r.non2xx > 0 || r.errors > 0) throw new Error(`${label}: ${r.non2xx} non-2xx answers, ${r.errors} errors`);
        log(`idempotency: ${label} ${round(r.requestsPerSecond, 0)} req/s`);
        return r;
      };
      const freshKey = () => ({ 'idempotency-key': `bench-${process.pid}-${n++}` });
      // Warm-up of both paths: JIT, page cache, the table's first pages.
      await run('warm-up without a key', undefined, quick ? 0.3 : 1);
      await run('warm-up with a key', freshKey, quick ? 0.3 : 1);
      const plain: LoadResult[] = [];
      const keyed: LoadResult[] = [];
      for (let i = 0; i < rounds; i++) {
        plain.push(await run('without a key', undefined));
        keyed.push(await run('with a fresh key', freshKey));
      }
      // The key's first request runs alone: the same key sent at once from ten connections would meet it running (409).
      const replayKey = { 'idempotency-key': 'bench-replayed' };
      const firstRun = await fetch(url, {
        method: 'POST',
        headers: { ...headers, ...replayKey, 'content-type': 'application/json' },
        body,
      });
      if (firstRun.status !== 201) throw new Error(`the replayed key's first request: ${firstRun.status} ${await firstRun.text()}`);
      const replayed = await run('the same key again (replays)', () => replayKey);
      const plainRps = median(plain.map((r) => r.requestsPerSecond));
      const keyedRps = median(keyed.map((r) => r.requestsPerSecond));
      const plainP50 = median(plain.map((r) => r.p50Ms));
      const keyedP50 = median(keyed.map((r) => r.p50Ms));
      const ratio = keyedRps / plainRps;
      const rows: Row[] = [
        {
          metric: 'POST /admin/v1/events, no key',
          value: round(plainRps, 0),
          unit: 'req/s',
          note: `p50 ${plainP50} ms, median of ${rounds}`,
        },
        {
          metric: 'the same, a fresh Idempotency-Key each',
          value: round(keyedRps, 0),
          unit: 'req/s',
          note: `p50 ${keyedP50} ms, median of ${rounds}`,
        },
        { metric: 'with a key / without', value: round(ratio * 100, 1), unit: '%', note: 'target ≥ 90% (a key costs at most 10% more)' },
        {
          metric: 'the same key again (replays)',
          value: round(replayed.requestsPerSecond, 0),
          unit: 'req/s',
          note: `p50 ${replayed.p50Ms} ms`,
        },
      ];
      return {
        rows,
        metrics: {
          plainRps: round(plainRps),
          keyedRps: round(keyedRps),
          plainP50Ms: plainP50,
          keyedP50Ms: keyedP50,
          keyedVsPlainRatio: round(ratio, 3),
          replayedRps: round(replayed.requestsPerSecond),
        },
      };
    } finally {
      await daemon.stop();
    }
  },
};
