import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { loadConfig } from '../src/config/load.js';
import { createContext } from '../src/create-context.js';
import { createLogger } from '../src/logging/logger.js';
import { identitiesPageJson } from '../src/services/identities.js';
import { namePlan } from '../src/store/identities.js';
import { listOrganizations } from '../src/store/organizations.js';
import type { Benchmark, BenchOutcome } from './bench-types.js';
import { startChildServer } from './child-server.js';
import { bearerToken, cli, startDaemon } from './daemon-process.js';
import { load, type LoadResult } from './http-load.js';
import { mb, round, summarize } from './percentiles.js';
import type { Row } from './report-table.js';
import { writeIdentitiesJsonl, writeTransactionsJsonl } from './test-data.js';

/** In-process query timings (no HTTP): which filter shapes the identities index serves well. */
const IDENTITY_QUERIES: Record<string, Parameters<typeof identitiesPageJson>[2]> = {
  'name=and (dense, ~6%)': { name: 'and', limit: 10 },
  'name=maría5 (~0.7%)': { name: 'maría5', limit: 10 },
  'name=maría55 (~0.07%)': { name: 'maría55', limit: 10 },
  'name=ana1 garcía (full name)': { name: 'ana1 garcía', limit: 10 },
  'name=hugo1 limit=100 (~1%)': { name: 'hugo1', limit: 100 },
  'email=hugo1 limit=100': { email: 'hugo1', limit: 100 },
  'type=Business limit=100': { type: 'Business', limit: 100 },
  'no filter limit=100': { limit: 100 },
};

async function timeIdentityQueries(dbPath: string, rounds: number): Promise<Row[]> {
  const config = loadConfig({ env: {}, flags: { 'database.path': dbPath } });
  const ctx = await createContext(config, {
    log: createLogger({ level: 'error', pretty: 'never', destination: process.stderr }),
    migrate: false,
  });
  try {
    // The first-start organization, created before the second one.
    const [first] = (await listOrganizations(ctx.db)).sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id));
    const orgId = first!.id;
    const rows: Row[] = [];
    for (const [label, filter] of Object.entries(IDENTITY_QUERIES)) {
      const times: number[] = [];
      for (let i = 0; i < rounds; i++) {
        const t0 = performance.now();
        await identitiesPageJson(ctx.db, orgId, filter, 'all');
        times.push(performance.now() - t0);
      }
      const s = summarize(times);
      const plan = await namePlan(ctx.db, orgId, filter);
      rows.push({
        metric: `query ${label}`,
        value: round(s.p50, 3),
        unit: 'ms p50',
        note: `p95 ${round(s.p95, 3)} ms (in-process, no HTTP)${plan ? `, plan: ${plan}` : ''}`,
      });
    }
    return rows;
  } finally {
    await ctx.db.close();
  }
}

/**
 * Benchmark 2: read routes of the resource API under autocannon against a real daemon holding
 * N identities (and N more in a second organization) and N imported transactions, next to a bare
 * express route answering the same body.
 */
export const apiBenchmark: Benchmark = {
  name: 'api',
  title: 'API: identities prefix, account by id, benchmark summary vs bare express',
  async run({ quick, log }): Promise<BenchOutcome> {
    const n = quick ? 2_000 : 100_000;
    const durationSeconds = quick ? 1 : 10;
    const daemon = await startDaemon();
    try {
      const [org] = await cli<{ id: string }[]>(['orgs', 'list', '--db', daemon.dbPath]);
      const orgId = org!.id;
      const identitiesFile = join(daemon.dataDir, 'identities.jsonl');
      const transactionsFile = join(daemon.dataDir, 'transactions.jsonl');
      writeIdentitiesJsonl(identitiesFile, n);
      writeTransactionsJsonl(transactionsFile, n);
      log(`api: importing ${n} identities into each of two organizations and ${n} transactions`);
      const identities = await cli<{ imported: number }>(['identities', 'import', identitiesFile, '--org', orgId, '--db', daemon.dbPath]);
      // The same identities in a second organization, so every query has to stay within its own.
      const other = await cli<{ id: string }>(['orgs', 'create', '--name', 'Other', '--db', daemon.dbPath]);
      await cli(['identities', 'import', identitiesFile, '--org', other.id, '--db', daemon.dbPath]);
      const transactions = await cli<{ imported: number }>([
        'import',
        'transactions',
        transactionsFile,
        '--org',
        orgId,
        '--db',
        daemon.dbPath,
      ]);
      const account = await cli<{ id: string }>([
        'accounts',
        'create',
        '--org',
        orgId,
        '--db',
        daemon.dbPath,
        '--record',
        JSON.stringify({
          provider: 'Standalone',
          name: 'Treasury',
          assets: [{ asset: 'USDC', address: '0x52908400098527886E0F7030069857D2E4169EE7' }],
          fiats: [{ fiat: 'MXN' }],
        }),
      ]);
      const headers = { authorization: `Bearer ${await bearerToken(daemon)}` };

      const identitiesPath = '/v1/identities?name=and&limit=10';
      const first = await fetch(daemon.url + identitiesPath, { headers });
      if (first.status !== 200) throw new Error(`identities: ${first.status} ${await first.text()}`);
      const sample = (await first.json()) as { data: unknown[] };
      if (sample.data.length !== 10) throw new Error(`identities prefix returned ${sample.data.length} rows, expected 10`);
      const bodyFile = join(daemon.dataDir, 'identities-body.json');
      writeFileSync(bodyFile, JSON.stringify(sample));

      // The daemon's peak RSS after each route, so the route that raises it can be named.
      const peaks: Row[] = [
        { metric: 'daemon peak RSS before the routes', value: mb(daemon.peakRss()), unit: 'MB', note: `now ${mb(daemon.rss())} MB` },
      ];
      const drive = async (label: string, url: string, h: Record<string, string>, connections = 10): Promise<LoadResult> => {
        await load({ url, headers: h, connections, durationSeconds: quick ? 0.3 : 1, timeoutSeconds: 120 }); // warm-up: JIT, page cache
        const r = await load({ url, headers: h, connections, durationSeconds, timeoutSeconds: 120 });
        if (r.non2xx > 0 || r.errors > 0) throw new Error(`${label}: ${r.non2xx} non-2xx answers, ${r.errors} errors`);
        log(`api: ${label} ${round(r.requestsPerSecond, 0)} req/s`);
        if (!url.startsWith(daemon.url)) return r;
        peaks.push({
          metric: `daemon peak RSS after ${label}`,
          value: mb(daemon.peakRss()),
          unit: 'MB',
          note: `now ${mb(daemon.rss())} MB`,
        });
        return r;
      };
      const prefix = await drive('identities prefix', daemon.url + identitiesPath, headers);
      const rare = await drive('identities rare prefix', `${daemon.url}/v1/identities?name=mar%C3%ADa5&limit=10`, headers);
      const accountById = await drive('account by id', `${daemon.url}/v1/accounts/${account.id}`, headers);
      // One connection: each answer reads every imported row, and ten at once only queue behind each other.
      const summary = await drive('benchmark summary', `${daemon.url}/v1/transactions/import-benchmark-summary`, headers, 1);
      const bare = await startChildServer('bare-express-server', [bodyFile]);
      let bareResult: LoadResult;
      try {
        bareResult = await drive('bare express', `${bare.url}/v1/identities`, {});
      } finally {
        await bare.stop();
      }
      const peakRss = daemon.peakRss();
      const queryRows = await timeIdentityQueries(daemon.dbPath, quick ? 10 : 50);
      const ratio = prefix.requestsPerSecond / bareResult.requestsPerSecond;
      const rows: Row[] = [
        { metric: 'identities imported', value: identities.imported, note: 'and as many in a second organization' },
        { metric: 'transactions imported', value: transactions.imported },
        { metric: 'GET /v1/identities?name=and', value: round(prefix.requestsPerSecond, 0), unit: 'req/s', note: `p99 ${prefix.p99Ms} ms` },
        { metric: 'GET /v1/identities?name=maría5', value: round(rare.requestsPerSecond, 0), unit: 'req/s', note: `p99 ${rare.p99Ms} ms` },
        {
          metric: 'GET /v1/accounts/{id}',
          value: round(accountById.requestsPerSecond, 0),
          unit: 'req/s',
          note: `p99 ${accountById.p99Ms} ms`,
        },
        {
          metric: 'GET …/import-benchmark-summary',
          value: round(summary.requestsPerSecond, 2),
          unit: 'req/s',
          note: `p99 ${summary.p99Ms} ms, 1 connection, over ${transactions.imported} rows`,
        },
        {
          metric: 'bare express, same body',
          value: round(bareResult.requestsPerSecond, 0),
          unit: 'req/s',
          note: `p99 ${bareResult.p99Ms} ms`,
        },
        { metric: 'identities prefix / bare express', value: round(ratio * 100, 1), unit: '%', note: 'target ≥ 50%' },
        { metric: 'daemon peak RSS', value: mb(peakRss), unit: 'MB', note: 'target < 200 MB' },
        ...peaks,
        ...queryRows,
      ];
      return {
        rows,
        metrics: {
          identities: identities.imported,
          transactions: transactions.imported,
          identitiesPrefixRps: round(prefix.requestsPerSecond),
          identitiesPrefixP99Ms: prefix.p99Ms,
          identitiesRarePrefixRps: round(rare.requestsPerSecond),
          identitiesRarePrefixP99Ms: rare.p99Ms,
          accountByIdRps: round(accountById.requestsPerSecond),
          accountByIdP99Ms: accountById.p99Ms,
          benchmarkSummaryRps: round(summary.requestsPerSecond),
          benchmarkSummaryP99Ms: summary.p99Ms,
          bareExpressRps: round(bareResult.requestsPerSecond),
          bareExpressP99Ms: bareResult.p99Ms,
          identitiesPrefixVsBareRatio: round(ratio, 3),
          daemonPeakRssMb: mb(peakRss),
        },
      };
    } finally {
      await daemon.stop();
    }
  },
};
