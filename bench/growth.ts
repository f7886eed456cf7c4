import { performance } from 'node:perf_hooks';
import { openDatabase } from '../src/db/open.js';
import { claimDelivery, findDue } from '../src/store/deliveries.js';
import type { Benchmark } from './bench-types.js';
import { startDaemon } from './daemon-process.js';
import { OUTBOX_ENV } from './outbox.js';
import { OutboxScenario } from './outbox-scenario.js';
import { round, summarize } from './percentiles.js';
import type { Row } from './report-table.js';

/**
 * Fills the outbox with `rows` delivered deliveries (and their events) of one webhook, in one
 * transaction, through a second connection to the daemon's database. Ids sort before any the daemon
 * makes, as old rows would. Writing them directly is the only way to reach a million rows in seconds.
 */
function fillDelivered(dbPath: string, orgId: string, webhookId: string, rows: number): number {
  const db = openDatabase(dbPath);
  try {
    const t0 = performance.now();
    const series = `WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < @rows)`;
    const at = '2025-01-01T00:00:00.000Z';
    db.transaction(() => {
      db.prepare(
        `${series}
         INSERT INTO events (id, org_id, type, body, created_at)
         SELECT printf('evt_00old%021d', i), @orgId, 'Transaction_Updated',
                json_object('id', printf('evt_00old%021d', i), 'type', 'Transaction_Updated', 'organizationId', @orgId,
                            'createdAt', @at, 'timestamp', 1735689600000, 'data', json_object('synthetic', json('true'), 'status', 'Completed', 'amount', '125.50')),
                @at
         FROM s`,
      ).run({ rows, orgId, at });
      db.prepare(
        `${series}
         INSERT INTO deliveries (id, event_id, webhook_id, org_id, state, attempts, step, next_attempt_at, last_status, delivered_at, created_at, updated_at)
         SELECT printf('dlv_00old%021d', i), printf('evt_00old%021d', i), @webhookId, @orgId, 'delivered', 1, 1, 1735689600000, 200, @at, @at, @at
         FROM s`,
      ).run({ rows, orgId, webhookId, at });
    }).immediate();
    return performance.now() - t0;
  } finally {
    db.close();
  }
}

/**
 * The dispatcher's claim, timed in this process on the daemon's file: with `pending` due rows
 * inserted for the second (enabled) webhook in a transaction that is rolled back, each round runs
 * findDue (the due query the dispatcher runs on every wake-up) and claims one row. Nothing is
 * committed, and the daemon, idle by then, waits on the write lock meanwhile.
 */
function timeClaims(dbPath: string, webhookId: string, rounds: number, pending: number): { findDue: ReturnType<typeof summarize>; claim: ReturnType<typeof summarize> } {
  const db = openDatabase(dbPath);
  try {
    const now = Date.now();
    const findTimes: number[] = [];
    const claimTimes: number[] = [];
    db.exec('BEGIN IMMEDIATE');
    try {
      db.prepare(
        `WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < ?)
         INSERT INTO deliveries (id, event_id, webhook_id, org_id, state, next_attempt_at, created_at, updated_at)
         SELECT printf('dlv_zzdue%021d', s.i), d.event_id, ?, d.org_id, 'pending', 0, d.created_at, d.created_at
         FROM s JOIN deliveries d ON d.id = printf('dlv_00old%021d', s.i)`,
      ).run(pending, webhookId);
      for (let i = 0; i < rounds; i++) {
        const t0 = performance.now();
        const due = findDue(db, now, 4, 64);
        const t1 = performance.now();
        if (due.length === 0) throw new Error('no due delivery found');
        claimDelivery(db, due[i % due.length]!.id, 'bench', now, now + 60_000);
        const t2 = performance.now();
        findTimes.push(t1 - t0);
        claimTimes.push(t2 - t1);
      }
    } finally {
      db.exec('ROLLBACK');
    }
    return { findDue: summarize(findTimes), claim: summarize(claimTimes) };
  } finally {
    db.close();
  }
}

async function measureAt(delivered: number, backlog: number, quick: boolean, log: (s: string) => void) {
  const daemon = await startDaemon({ env: OUTBOX_ENV });
  const scenario = await OutboxScenario.start(daemon);
  try {
    await scenario.addWebhooks(2, false);
    log(`growth: filling ${delivered} delivered rows`);
    const fillMs = fillDelivered(daemon.dbPath, scenario.orgId, scenario.webhookIds[0]!, delivered);
    await scenario.writeEvents({ amount: backlog });
    await scenario.resetReceiver();
    scenario.releaseBacklog();
    const stats = await scenario.waitForDeliveries(backlog * 2, quick ? 30_000 : 300_000);
    const rate = stats.deliveries > 1 ? ((stats.deliveries - 1) * 1000) / (stats.lastAt - stats.firstAt) : 0;
    const claims = timeClaims(daemon.dbPath, scenario.webhookIds[1]!, quick ? 50 : 500, 100);
    return { delivered, fillSeconds: fillMs / 1000, deliveries: stats.deliveries, rate, claims, peakRss: daemon.peakRss() };
  } finally {
    await scenario.stop();
    await daemon.stop();
  }
}

/**
 * Benchmark 5: the outbox with few vs many delivered rows already in it. Same backlog, same two
 * webhooks; only the history differs. Reports delivery throughput and the due-query/claim time.
 */
export const growthBenchmark: Benchmark = {
  name: 'growth',
  title: 'Growth: delivery throughput and claim time with a small vs a large delivered history',
  async run({ quick, log }) {
    const sizes = quick ? [1_000, 20_000] : [10_000, 1_000_000];
    const backlog = quick ? 100 : 1_000;
    const results = [];
    for (const size of sizes) results.push(await measureAt(size, backlog, quick, log));
    const [small, large] = results as [(typeof results)[0], (typeof results)[0]];
    const rows: Row[] = results.flatMap((r) => [
      { metric: `${r.delivered.toLocaleString('en-US')} delivered: deliveries/s`, value: round(r.rate, 0), unit: '/s', note: `${r.deliveries} deliveries to 2 webhooks (history filled in ${round(r.fillSeconds, 1)} s)` },
      { metric: `${r.delivered.toLocaleString('en-US')} delivered: due query p50`, value: round(r.claims.findDue.p50, 3), unit: 'ms', note: `p99 ${round(r.claims.findDue.p99, 3)} ms, 100 due rows` },
      { metric: `${r.delivered.toLocaleString('en-US')} delivered: claim p50`, value: round(r.claims.claim.p50, 3), unit: 'ms', note: `p99 ${round(r.claims.claim.p99, 3)} ms` },
    ]);
    rows.push({ metric: 'throughput large ÷ small', value: round((large.rate / small.rate) * 100, 1), unit: '%', note: 'flat = 100%' });
    return {
      rows,
      metrics: {
        smallDelivered: small.delivered,
        largeDelivered: large.delivered,
        smallDeliveriesPerSecond: round(small.rate),
        largeDeliveriesPerSecond: round(large.rate),
        smallDueQueryP50Ms: round(small.claims.findDue.p50, 3),
        largeDueQueryP50Ms: round(large.claims.findDue.p50, 3),
        smallClaimP50Ms: round(small.claims.claim.p50, 3),
        largeClaimP50Ms: round(large.claims.claim.p50, 3),
        largeVsSmallThroughputRatio: round(large.rate / small.rate, 3),
        daemonPeakRssMb: round(Math.max(small.peakRss, large.peakRss) / 2 ** 20, 1),
      },
    };
  },
};
