import { performance } from 'node:perf_hooks';
import { SqliteDatabase } from '../src/db/sqlite.js';
import { openConnection } from '../src/db/sqlite-connection.js';
import { claimDue, dueWebhooks } from '../src/store/delivery-claims.js';
import type { Benchmark } from './bench-types.js';
import { DaemonDatabase } from './daemon-database.js';
import { cli, startDaemon } from './daemon-process.js';
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
  const db = openConnection(dbPath);
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
 * The dispatcher's claim, timed in this process on the daemon's file: with `pending` due rows (new
 * events, the second, enabled webhook) inserted in a transaction that is rolled back, each round
 * runs dueWebhooks (the query each dispatcher pass starts with) and claims four rows of that webhook
 * (claimDue: one conditional UPDATE, as a pass does per webhook). Nothing is committed, and the
 * daemon, idle by then, waits on the write lock meanwhile.
 */
async function timeClaims(
  dbPath: string,
  orgId: string,
  webhookId: string,
  rounds: number,
  backlog = 100,
): Promise<{ findDue: ReturnType<typeof summarize>; claim: ReturnType<typeof summarize> }> {
  const db = new SqliteDatabase(openConnection(dbPath), { busyTimeoutMs: 5000, fsynced: true });
  const pending = rounds * 4 + backlog; // each round leases four rows: keep `backlog` due rows past the last round
  const rollback = new Error('rolled back on purpose');
  const now = Date.now();
  const at = new Date(now).toISOString();
  const findTimes: number[] = [];
  const claimTimes: number[] = [];
  try {
    await db.transaction(async (tx) => {
      const series = `WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < ?)`;
      await tx.run(
        `${series} INSERT INTO events (id, org_id, type, body, created_at)
         SELECT printf('evt_zzdue%021d', i), ?, 'Transaction_Updated', json_object('id', printf('evt_zzdue%021d', i)), ? FROM s`,
        [pending, orgId, at],
      );
      await tx.run(
        `${series} INSERT INTO deliveries (id, event_id, webhook_id, org_id, state, next_attempt_at, created_at, updated_at)
         SELECT printf('dlv_zzdue%021d', i), printf('evt_zzdue%021d', i), ?, ?, 'pending', 0, ?, ? FROM s`,
        [pending, webhookId, orgId, at, at],
      );
      for (let i = 0; i < rounds; i++) {
        const t0 = performance.now();
        const due = await dueWebhooks(tx, now);
        const t1 = performance.now();
        if (!due.some((w) => w.id === webhookId)) throw new Error('no due delivery found');
        if ((await claimDue(tx, webhookId, 'bench', now, now + 60_000, 4)).length !== 4) throw new Error('claimed fewer than 4 rows');
        const t2 = performance.now();
        findTimes.push(t1 - t0);
        claimTimes.push(t2 - t1);
      }
      // Nothing of the measurement is kept.
      throw rollback;
    });
  } catch (err) {
    if (err !== rollback) throw err;
  } finally {
    await db.close();
  }
  return { findDue: summarize(findTimes), claim: summarize(claimTimes) };
}

async function measureAt(delivered: number, backlog: number, quick: boolean, log: (s: string) => void, prune: boolean) {
  const daemon = await startDaemon({ env: OUTBOX_ENV });
  const scenario = await OutboxScenario.start(daemon);
  try {
    await scenario.addWebhooks(2, false);
    log(`growth: filling ${delivered} delivered rows`);
    const fillMs = fillDelivered(daemon.dbPath, scenario.orgId, scenario.webhookIds[0]!, delivered);
    let pruned: { seconds: number; deliveriesDeleted: number; eventsDeleted: number } | undefined;
    if (prune) {
      // The retention job, run once as an operator would (`borderd outbox prune`) while the daemon runs.
      const t0 = performance.now();
      const r = await cli<{ deliveriesDeleted: number; eventsDeleted: number }>(['outbox', 'prune', '--db', daemon.dbPath]);
      pruned = { seconds: (performance.now() - t0) / 1000, deliveriesDeleted: r.deliveriesDeleted, eventsDeleted: r.eventsDeleted };
      log(`growth: pruned ${r.deliveriesDeleted} deliveries in ${round(pruned.seconds, 1)} s`);
    }
    const history = new DaemonDatabase(daemon.dbPath);
    const remaining = history.get<{ n: number }>("SELECT count(*) AS n FROM deliveries WHERE state = 'delivered'")!.n;
    history.close();
    await scenario.writeEvents({ amount: backlog });
    await scenario.resetReceiver();
    await scenario.releaseBacklog();
    const stats = await scenario.waitForDeliveries(backlog * 2, quick ? 30_000 : 300_000);
    const rate = stats.deliveries > 1 ? ((stats.deliveries - 1) * 1000) / (stats.lastAt - stats.firstAt) : 0;
    const claims = await timeClaims(daemon.dbPath, scenario.orgId, scenario.webhookIds[1]!, quick ? 50 : 500);
    // The due query's cost follows the pending backlog, not the history: time it with a large one too.
    const bigBacklog = quick ? 5_000 : 20_000;
    const claimsBacklog = await timeClaims(daemon.dbPath, scenario.orgId, scenario.webhookIds[1]!, quick ? 10 : 50, bigBacklog);
    const label = `${delivered.toLocaleString('en-US')} delivered${prune ? ', pruned' : ''}`;
    return {
      label,
      delivered,
      remaining,
      pruned,
      fillSeconds: fillMs / 1000,
      deliveries: stats.deliveries,
      rate,
      claims,
      bigBacklog,
      claimsBacklog,
      peakRss: daemon.peakRss(),
    };
  } finally {
    await scenario.stop();
    await daemon.stop();
  }
}

/**
 * Benchmark 5: the outbox with few vs many delivered rows already in it, and the large history after
 * the retention job (`borderd outbox prune`; the filled rows are older than retention.deliveredDays).
 * Same backlog, same two webhooks; only the history differs. Reports delivery throughput and the
 * due-query/claim time.
 */
export const growthBenchmark: Benchmark = {
  name: 'growth',
  title: 'Growth: delivery throughput and claim time with a small vs a large delivered history',
  async run({ quick, log }) {
    const sizes = quick ? [1_000, 20_000] : [10_000, 1_000_000];
    const backlog = quick ? 100 : 1_000;
    const small = await measureAt(sizes[0]!, backlog, quick, log, false);
    const large = await measureAt(sizes[1]!, backlog, quick, log, false);
    const pruned = await measureAt(sizes[1]!, backlog, quick, log, true);
    const rows: Row[] = [small, large, pruned].flatMap((r) => [
      {
        metric: `${r.label}: rows kept`,
        value: r.remaining,
        note: r.pruned
          ? `prune deleted ${r.pruned.deliveriesDeleted} deliveries, ${r.pruned.eventsDeleted} events in ${round(r.pruned.seconds, 1)} s`
          : `history filled in ${round(r.fillSeconds, 1)} s`,
      },
      { metric: `${r.label}: deliveries/s`, value: round(r.rate, 0), unit: '/s', note: `${r.deliveries} deliveries to 2 webhooks` },
      {
        metric: `${r.label}: due query p50`,
        value: round(r.claims.findDue.p50, 3),
        unit: 'ms',
        note: `p99 ${round(r.claims.findDue.p99, 3)} ms`,
      },
      {
        metric: `${r.label}: claim of 4 p50`,
        value: round(r.claims.claim.p50, 3),
        unit: 'ms',
        note: `p99 ${round(r.claims.claim.p99, 3)} ms`,
      },
      {
        metric: `${r.label}: due query, ${r.bigBacklog.toLocaleString('en-US')} pending`,
        value: round(r.claimsBacklog.findDue.p50, 2),
        unit: 'ms',
        note: 'p50; one index probe per webhook, flat in the backlog',
      },
    ]);
    rows.push({ metric: 'throughput large ÷ small', value: round((large.rate / small.rate) * 100, 1), unit: '%', note: 'flat = 100%' });
    rows.push({ metric: 'throughput large pruned ÷ small', value: round((pruned.rate / small.rate) * 100, 1), unit: '%' });
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
        bigBacklogPending: small.bigBacklog,
        bigBacklogDueQueryP50Ms: round(small.claimsBacklog.findDue.p50, 3),
        largeClaimP50Ms: round(large.claims.claim.p50, 3),
        largeVsSmallThroughputRatio: round(large.rate / small.rate, 3),
        prunedDeliveriesDeleted: pruned.pruned?.deliveriesDeleted ?? 0,
        pruneSeconds: round(pruned.pruned?.seconds ?? 0),
        prunedRowsKept: pruned.remaining,
        prunedDeliveriesPerSecond: round(pruned.rate),
        prunedDueQueryP50Ms: round(pruned.claims.findDue.p50, 3),
        daemonPeakRssMb: round(Math.max(small.peakRss, large.peakRss, pruned.peakRss) / 2 ** 20, 1),
      },
    };
  },
};
