/**
 * The outbox on several nodes: SQLite with one node, then PostgreSQL with one, two and three nodes
 * on one database, in the same run and with the same workload (one webhook whose
 * perEndpointConcurrency is 16, so with three nodes each still has slots): deliveries/s of a
 * released backlog, p99 commit-to-receipt at a paced rate written to the nodes in turn, and the CPU
 * each process spends per delivery. Each layout's nodes deliver their backlogs to the same
 * receiver: the first is fresh nodes' (its figures carry V8's compilation of the delivery path, a
 * cost each node pays once), the backlog's size for each node, so that each node is as warm after
 * it as one node alone; then WARM_DRAINS more, each the backlog's size, at steady state ("warm"):
 * the measured one is the median of them by the cluster's CPU per delivery, which the ratios
 * between layouts compare. A cost per delivery is what a node pays for every delivery, not once;
 * and one drain of two seconds takes in or leaves out whatever the server does in those seconds
 * besides (an autovacuum worker ending, a walk of the last backlog's dead entries before vacuum
 * passes). Then the same backlogs drained by the PostgreSQL peer, Graphile Worker, in one process
 * and in two (graphile-peer.ts), unless left out, and the ratio of borderd's deliveries/s to the
 * peer's, each the best of its one- and two-process layouts. Last, the claim statement timed on
 * PostgreSQL before and after a million delivered rows are added beside its pending ones.
 */
import { cpus } from 'node:os';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { loadConfig } from '../src/config/load.js';
import { openDatabase } from '../src/db/open.js';
import { claimDue, releaseLeasesOf } from '../src/store/delivery-claims.js';
import type { BenchOutcome } from './bench-types.js';
import { graphilePeer, type PeerResult } from './graphile-peer.js';
import { cli, processCpuSeconds, startDaemon, type BenchDaemon } from './daemon-process.js';
import { load } from './http-load.js';
import { machineCpu, machineCpuBetween } from './machine-cpu.js';
import { OUTBOX_ENV } from './outbox-env.js';
import { OutboxScenario } from './outbox-scenario.js';
import { balances, ledgerOf, ledgerOfAll, ledgerRow, unlessVoid, type Ledger } from './ledger.js';
import { round, summarize } from './percentiles.js';
import type { PostgresServer } from './postgres-server.js';
import type { Row } from './report-table.js';
import { describeCounts, statementCounter, type StatementCounter, type StatementCounts } from './statement-counts.js';
import { addSyntheticDeliveries } from './synthetic-rows.js';

const NODES_ENV = {
  ...OUTBOX_ENV,
  BORDERD_DELIVERY_PER_ENDPOINT_CONCURRENCY: '16',
  BORDERD_NODES_HEARTBEAT_MS: '500',
};

interface Layout {
  label: string;
  engine: 'sqlite' | 'postgres';
  nodes: number;
}

const LAYOUTS: Layout[] = [
  { label: 'SQLite, 1 node', engine: 'sqlite', nodes: 1 },
  { label: 'PostgreSQL, 1 node', engine: 'postgres', nodes: 1 },
  { label: 'PostgreSQL, 2 nodes', engine: 'postgres', nodes: 2 },
  { label: 'PostgreSQL, 3 nodes', engine: 'postgres', nodes: 3 },
];

/** One released backlog of a layout. */
interface Backlog {
  deliveriesPerSecond: number;
  /** CPU ms per delivery: each node, the database server (PostgreSQL), the receiver. */
  nodesMs: number[];
  databaseMs: number | undefined;
  receiverMs: number;
  machineBusyPct: number;
  /** Events written/s through the admin API (the backlog, 10 connections to the first node). */
  writtenPerSecond: number;
  ledger: Ledger;
  /** PostgreSQL, when counted: statements the server ran per event written and per delivery. */
  writeStatements?: StatementCounts | undefined;
  deliveryStatements?: StatementCounts | undefined;
}

/** Warm backlogs each layout's nodes deliver after the first; the median one is measured. */
const WARM_DRAINS = 3;

interface LayoutResult {
  layout: Layout;
  /**
   * The nodes' first backlog, then the measured one (the median of the warm drains, with their
   * ledgers together), delivered by the same nodes to the same receiver.
   */
  fresh: Backlog;
  warm: Backlog;
  /** Each warm drain, in the order drained. */
  warmDrains: Backlog[];
  p99Ms: number;
  p50Ms: number;
  /** The same writer's events written/s spread over WRITE_ORGS organizations without webhooks. */
  writtenToManyPerSecond: number;
  /** The paced writes' ledger. */
  pacedLedger: Ledger;
  /** PostgreSQL: the layout's own database, and the events it delivered in all (backlogs and paced). */
  databaseUrl: string | undefined;
  events: number;
}

/** Organizations of the many-organization write phase. */
const WRITE_ORGS = 8;

/**
 * Events written/s through the admin API to `orgs` in turn, on 10 connections to `daemon`: the
 * same writer as the one-organization phase, spread over organizations that have no webhook (an
 * event row and nothing more each).
 */
async function writeToOrganizations(daemon: BenchDaemon, orgs: readonly string[], amount: number): Promise<number> {
  let i = 0;
  const r = await load({
    url: `${daemon.url}/admin/v1/events`,
    method: 'POST',
    headers: { authorization: `Bearer ${daemon.adminToken}` },
    body: () => JSON.stringify({ orgId: orgs[i++ % orgs.length], type: 'Transaction_Updated' }),
    connections: 10,
    amount,
  });
  if (r.non2xx > 0 || r.errors > 0) throw new Error(`writing events: ${r.non2xx} non-2xx answers, ${r.errors} errors`);
  return r.requestsPerSecond;
}

/** What the server did for one layout's database over its whole run, per event delivered. */
interface ServerWork {
  transactions: number;
  /** Index entries of `deliveries` read (pg_stat_user_indexes.idx_tup_read): what claims and probes walk over. */
  deliveriesIndexReads: number;
  /** Connections opened to the database in all (pg_stat_database.sessions). */
  sessions: number;
}

/**
 * Counted by the server itself once the layout's nodes have stopped (a backend reports its counts
 * when it exits, so every one has): the whole run, the backlogs written and drained and the paced
 * writes, the same workload in every layout, so per node and per delivery costs tell apart.
 */
async function serverWork(url: string, events: number): Promise<ServerWork> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const others =
      "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND backend_type = 'client backend' AND pid <> pg_backend_pid()";
    for (const until = Date.now() + 10_000; (await client.query<{ n: number }>(others)).rows[0]!.n > 0;) {
      if (Date.now() > until) throw new Error("the nodes' connections to the database did not close");
      await sleep(50);
    }
    const db = (
      await client.query<{ xacts: string; sessions: string }>(
        'SELECT xact_commit + xact_rollback AS xacts, sessions FROM pg_stat_database WHERE datname = current_database()',
      )
    ).rows[0]!;
    const index = (
      await client.query<{ reads: string }>(
        "SELECT COALESCE(sum(idx_tup_read), 0) AS reads FROM pg_stat_user_indexes WHERE relname = 'deliveries'",
      )
    ).rows[0]!;
    return { transactions: Number(db.xacts) / events, deliveriesIndexReads: Number(index.reads) / events, sessions: Number(db.sessions) };
  } finally {
    await client.end();
  }
}

const sum = (ms: readonly number[]) => ms.reduce((a, b) => a + b, 0);
/** The nodes' and the server's CPU per delivery together. */
const clusterMs = (b: Backlog) => sum(b.nodesMs) + (b.databaseMs ?? 0);

/** Each warm drain's server CPU per delivery, as the table prints them. */
const serverMsOf = (r: LayoutResult) => r.warmDrains.map((d) => round(d.databaseMs ?? NaN, 3)).join(', ');

const cpuOf = (pid: number) => {
  const c = processCpuSeconds(pid);
  return c.main + c.other;
};

/**
 * A backlog of `size` events written through the first node while the webhook is off, released at
 * once and drained by the layout's nodes: deliveries/s from the first receipt to the last, each
 * process's CPU per delivery, the ledger, and with `counter` the server's statements per event
 * written and per delivery.
 */
async function drainBacklog(
  layout: Layout,
  phase: string,
  nodes: readonly BenchDaemon[],
  scenario: OutboxScenario,
  database: () => number,
  size: number,
  counter: StatementCounter | undefined,
  log: (line: string) => void,
): Promise<Backlog> {
  // Created off; after a drain, off again, so the next backlog is written as skipped rows and released at once.
  await scenario.setEnabled(false);
  await counter?.start();
  const written = await scenario.writeEvents({ amount: size });
  const writeStatements = await counter?.read(written.requests);
  await scenario.resetReceiver();
  await counter?.start();
  const before = { nodes: nodes.map((d) => cpuOf(d.pid)), db: database(), receiver: cpuOf(scenario.receiver.pid), machine: machineCpu() };
  await scenario.releaseBacklog();
  const s = await scenario.waitForDeliveries(size, 600_000);
  const after = { nodes: nodes.map((d) => cpuOf(d.pid)), db: database(), receiver: cpuOf(scenario.receiver.pid), machine: machineCpu() };
  const deliveryStatements = await counter?.read(size);
  if (counter) {
    log(describeCounts(`outbox nodes: ${layout.label}, ${phase}, per event written`, writeStatements));
    log(describeCounts(`outbox nodes: ${layout.label}, ${phase}, per delivery`, deliveryStatements));
  }
  const per = (a: number, b: number) => ((b - a) * 1000) / size;
  return {
    deliveriesPerSecond: s.deliveries > 1 && s.lastAt > s.firstAt ? ((s.deliveries - 1) * 1000) / (s.lastAt - s.firstAt) : 0,
    nodesMs: nodes.map((_, i) => per(before.nodes[i]!, after.nodes[i]!)),
    // NaN: SQLite (no server), or a server elsewhere whose processes this machine cannot see.
    databaseMs: Number.isNaN(before.db) ? undefined : per(before.db, after.db),
    receiverMs: per(before.receiver, after.receiver),
    machineBusyPct: machineCpuBetween(before.machine, after.machine).busyPct,
    writtenPerSecond: written.requestsPerSecond,
    // Counted when the wait ended: duplicates can make up the count while an event is missing.
    ledger: ledgerOf(`backlog, ${phase}, ${layout.label}`, written.requests, await scenario.stats()),
    writeStatements,
    deliveryStatements,
  };
}

async function measure(
  layout: Layout,
  server: PostgresServer,
  n: number,
  sizes: { backlog: number; rate: number; seconds: number },
  log: (line: string) => void,
): Promise<LayoutResult> {
  const databaseUrl = layout.engine === 'postgres' ? await server.createDatabase(`bench_nodes_${n}`) : undefined;
  const first = await startDaemon({ env: NODES_ENV, ...(databaseUrl !== undefined ? { databaseUrl } : {}) });
  const nodes: BenchDaemon[] = [first];
  let scenario: OutboxScenario | undefined;
  let counter: StatementCounter | undefined;
  try {
    for (let i = 1; i < layout.nodes; i++) nodes.push(await startDaemon({ env: NODES_ENV, nodeOf: first }));
    // Every node has read the others at a heartbeat, so each sends its part of the webhook's slots.
    await sleep(1500);
    scenario = await OutboxScenario.start(first);
    await scenario.addWebhooks(1, false);
    const database = databaseUrl !== undefined ? () => server.cpuSeconds() : () => NaN;
    // V8 compiles a path by how often the node runs it: each node delivers a whole backlog to warm up.
    const fresh = await drainBacklog(layout, 'fresh', nodes, scenario, database, sizes.backlog * layout.nodes, undefined, log);
    const orgs: string[] = [];
    for (let i = 0; i < WRITE_ORGS; i++)
      orgs.push(
        (await cli<{ id: string }>(['orgs', 'create', '--name', `Writer ${i}`, ...first.databaseArgs], { BORDERD_DATA_DIR: first.dataDir }))
          .id,
      );
    const writtenToManyPerSecond = await writeToOrganizations(first, orgs, sizes.backlog);
    counter = databaseUrl !== undefined ? await statementCounter(databaseUrl, 'deliveries') : undefined;
    const drains: Backlog[] = [];
    for (let i = 1; i <= WARM_DRAINS; i++)
      drains.push(await drainBacklog(layout, `warm ${i} of ${WARM_DRAINS}`, nodes, scenario, database, sizes.backlog, counter, log));
    const byCluster = [...drains].sort((a, b) => clusterMs(a) - clusterMs(b));
    const warm = {
      ...byCluster[Math.floor(byCluster.length / 2)]!,
      ledger: ledgerOfAll(
        `backlog, warm, ${layout.label}`,
        drains.map((d) => d.ledger),
      ),
    };

    await scenario.resetReceiver();
    const offered = await scenario.writeEventsPaced(
      sizes.rate,
      sizes.seconds,
      nodes.map((d) => d.url),
    );
    await scenario.waitForDeliveries(offered.requests, 60_000, 'distinctEvents');
    const paced = await scenario.stats(true);
    const latency = summarize(paced.latenciesMs ?? []);
    return {
      layout,
      fresh,
      warm,
      warmDrains: drains,
      p50Ms: latency.p50,
      p99Ms: latency.p99,
      writtenToManyPerSecond,
      pacedLedger: ledgerOf(`${sizes.rate}/s paced, ${layout.label}`, offered.requests, paced),
      databaseUrl,
      events: (layout.nodes + WARM_DRAINS) * sizes.backlog + offered.requests,
    };
  } catch (err) {
    for (const d of nodes) log(`outbox nodes: what node ${d.pid} printed:\n${d.output()}`);
    throw err;
  } finally {
    await counter?.close();
    await scenario?.stop();
    for (const d of nodes.slice(1).reverse()) await d.stop();
    await first.stop();
  }
}

/**
 * The claim statement (claimDue: one webhook's oldest due rows, leased) on a database whose one
 * webhook has `pending` due rows, timed `rounds` times (each claim given back after), before and
 * after `delivered` delivered rows of that webhook are added. Medians in ms.
 */
async function claimFlatness(server: PostgresServer, delivered: number, log: (line: string) => void) {
  const url = await server.createDatabase('bench_claims');
  const daemon = await startDaemon({ env: NODES_ENV, databaseUrl: url });
  const scenario = await OutboxScenario.start(daemon);
  await scenario.addWebhooks(1, false);
  const [webhookId] = scenario.webhookIds;
  const orgId = scenario.orgId;
  await scenario.stop();
  await daemon.stop();
  const db = openDatabase(loadConfig({ env: {}, flags: { 'database.url': url } }).database);
  const pending = 200;
  const rounds = 200;
  const at = new Date().toISOString();
  const add = async (prefix: string, count: number, state: 'pending' | 'delivered') => {
    await addSyntheticDeliveries(db, { prefix, orgId, webhookId: webhookId!, count, at, state });
    await db.exec('ANALYZE deliveries');
  };
  const time = async (): Promise<{ p50: number; p99: number }> => {
    const ms: number[] = [];
    for (let i = 0; i < rounds; i++) {
      const now = Date.now();
      const t0 = performance.now();
      const rows = await db.transaction((tx) => claimDue(tx, webhookId!, 'bench-claims', now, now + 60_000, 50));
      ms.push(performance.now() - t0);
      if (rows.length !== 50) throw new Error(`claimed ${rows.length} rows, expected 50`);
      await releaseLeasesOf(
        db,
        'bench-claims',
        rows.map((r) => r.id),
      );
    }
    const s = summarize(ms);
    return { p50: s.p50, p99: s.p99 };
  };
  try {
    await add('due', pending, 'pending');
    const empty = await time();
    log(`outbox nodes: adding ${delivered} delivered rows`);
    await add('done', delivered, 'delivered');
    const full = await time();
    return { empty, full, pending, delivered, rounds };
  } finally {
    await db.close();
  }
}

/** Runs the layouts on `server`, the peer (with `peer`) and the claim timing; returns rows and metrics for the outbox table. */
export async function nodesComparison(
  server: PostgresServer,
  quick: boolean,
  log: (line: string) => void,
  peer = true,
): Promise<BenchOutcome> {
  const sizes = quick ? { backlog: 400, rate: 100, seconds: 2 } : { backlog: 4_000, rate: 300, seconds: 10 };
  const results: (LayoutResult & { server?: ServerWork })[] = [];
  for (const [n, layout] of LAYOUTS.entries()) {
    log(`outbox nodes: ${layout.label}`);
    const r = await measure(layout, server, n, sizes, log);
    results.push(r.databaseUrl !== undefined ? { ...r, server: await serverWork(r.databaseUrl, r.events) } : r);
  }
  const peers: PeerResult[] = [];
  for (const processes of peer ? [1, 2] : []) {
    log(`outbox nodes: Graphile Worker, ${processes} process${processes > 1 ? 'es' : ''}`);
    peers.push(await graphilePeer(server, processes, sizes.backlog, log));
  }
  const claims = await claimFlatness(server, quick ? 100_000 : 1_000_000, log);
  const sqlite = results[0]!;
  const pg1 = results[1]!;
  const rows: Row[] = [];
  const metrics: BenchOutcome['metrics'] = {};
  const phases = ['fresh', 'warm'] as const;
  // Keys of the measured backlog as they are; the fresh one's with `Fresh` after the layout.
  const keyOf = (layoutKey: string, phase: (typeof phases)[number]) => (phase === 'warm' ? layoutKey : `${layoutKey}Fresh`);
  for (const r of results) {
    const layoutKey = `${r.layout.engine}${r.layout.nodes}`;
    rows.push(ledgerRow(r.fresh.ledger), ledgerRow(r.warm.ledger), ledgerRow(r.pacedLedger));
    for (const phase of phases) {
      const b = r[phase];
      const key = keyOf(layoutKey, phase);
      rows.push({
        metric: `deliveries/s, ${phase}, ${r.layout.label}`,
        value: unlessVoid(round(b.deliveriesPerSecond, 0), b.ledger),
        unit: '/s',
        note: `${round((b.deliveriesPerSecond / sqlite[phase].deliveriesPerSecond) * 100, 0)}% of SQLite's; ${phase === 'fresh' ? `the fresh nodes' first ${b.ledger.written}` : `the median by the cluster's CPU of the same nodes' next ${WARM_DRAINS} backlogs of ${sizes.backlog}`}; machine ${round(b.machineBusyPct, 0)}% busy of ${cpus().length} cores`,
      });
      rows.push({
        metric: `CPU per delivery, ${phase}, ${r.layout.label}`,
        value: unlessVoid(round(clusterMs(b) + b.receiverMs, 3), b.ledger),
        unit: 'ms',
        note: `nodes ${b.nodesMs.map((ms) => round(ms, 3)).join(' + ')}${b.databaseMs !== undefined ? `, PostgreSQL ${round(b.databaseMs, 3)}` : ''}, receiver ${round(b.receiverMs, 3)}`,
      });
      metrics[`${key}DeliveriesPerSecond`] = unlessVoid(round(b.deliveriesPerSecond), b.ledger);
      metrics[`${key}CpuPerDeliveryNodesMs`] = unlessVoid(round(sum(b.nodesMs), 3), b.ledger);
      if (b.databaseMs !== undefined) metrics[`${key}CpuPerDeliveryDatabaseMs`] = unlessVoid(round(b.databaseMs, 3), b.ledger);
      metrics[`${key}CpuPerDeliveryReceiverMs`] = unlessVoid(round(b.receiverMs, 3), b.ledger);
      metrics[`${key}EventsWrittenPerSecond`] = round(b.writtenPerSecond);
      metrics[`${key}MachineBusyPct`] = round(b.machineBusyPct, 1);
    }
    // What a fresh node spends once: its first backlog's CPU beyond the same deliveries' at steady state.
    const startCostSeconds = ((sum(r.fresh.nodesMs) - sum(r.warm.nodesMs)) * r.fresh.ledger.written) / 1000 / r.layout.nodes;
    rows.push({
      metric: `a fresh node's first backlog beyond a warm one, ${r.layout.label}`,
      value: unlessVoid(round(startCostSeconds, 2), r.fresh.ledger, r.warm.ledger),
      unit: 's CPU',
      note: `per node, over its first ${sizes.backlog} deliveries: the nodes' CPU per delivery fresh less warm, times the first backlog, ÷ the nodes`,
    });
    metrics[`${layoutKey}FreshStartCpuSecondsPerNode`] = unlessVoid(round(startCostSeconds, 3), r.fresh.ledger, r.warm.ledger);
    if (r.layout.engine === 'postgres' && r.layout.nodes > 1) {
      for (const [what, of] of [
        ['cluster', clusterMs],
        ['server', (b: Backlog) => b.databaseMs ?? NaN],
      ] as const) {
        const ratio = (phase: (typeof phases)[number]) => of(r[phase]) / of(pg1[phase]);
        const ledgers = [r.fresh.ledger, r.warm.ledger, pg1.fresh.ledger, pg1.warm.ledger];
        if (Number.isNaN(ratio('warm'))) continue;
        rows.push({
          metric: `${what} CPU per delivery ÷ 1 node's, warm, ${r.layout.label}`,
          value: unlessVoid(round(ratio('warm'), 2), ...ledgers),
          unit: '×',
          note: `fresh ${round(ratio('fresh'), 2)}×; ${what === 'cluster' ? 'nodes and server' : `the PostgreSQL server alone (its ms per delivery in the warm drains: ${serverMsOf(r)}; one node's: ${serverMsOf(pg1)})`}; target ≤ 1.25× warm`,
        });
        metrics[`${layoutKey}${what === 'cluster' ? 'Cluster' : 'Server'}CpuRatio`] = unlessVoid(round(ratio('warm'), 3), ...ledgers);
        metrics[`${layoutKey}Fresh${what === 'cluster' ? 'Cluster' : 'Server'}CpuRatio`] = unlessVoid(round(ratio('fresh'), 3), ...ledgers);
      }
    }
    rows.push({
      metric: `events written/s, ${r.layout.label}`,
      value: round(r.warm.writtenPerSecond, 0),
      unit: '/s',
      note: `${round((r.warm.writtenPerSecond / sqlite.warm.writtenPerSecond) * 100, 0)}% of SQLite; one organization, 10 connections to the first node, the median warm drain's backlog (the first backlog: ${round(r.fresh.writtenPerSecond, 0)}/s)`,
    });
    rows.push({
      metric: `events written/s to ${WRITE_ORGS} organizations, ${r.layout.label}`,
      value: round(r.writtenToManyPerSecond, 0),
      unit: '/s',
      note: `${round((r.writtenToManyPerSecond / sqlite.writtenToManyPerSecond) * 100, 0)}% of SQLite; in turn, none with a webhook, 10 connections to the first node`,
    });
    rows.push({
      metric: `commit→receipt p99, ${r.layout.label}`,
      value: unlessVoid(round(r.p99Ms, 1), r.pacedLedger),
      unit: 'ms',
      note: `p50 ${round(r.p50Ms, 1)} ms at ${sizes.rate}/s written to the nodes in turn`,
    });
    if (r.server) {
      rows.push({
        metric: `server transactions per delivery, ${r.layout.label}`,
        value: round(r.server.transactions, 2),
        unit: '',
        note: `${round(r.server.deliveriesIndexReads, 1)} index entries of deliveries read per delivery; ${r.server.sessions} connections opened; the layout's whole run`,
      });
      metrics[`${layoutKey}ServerTransactionsPerDelivery`] = round(r.server.transactions, 3);
      metrics[`${layoutKey}DeliveriesIndexReadsPerDelivery`] = round(r.server.deliveriesIndexReads, 2);
      metrics[`${layoutKey}ServerSessions`] = r.server.sessions;
    }
    const { deliveryStatements, writeStatements } = r.warm;
    if (deliveryStatements && writeStatements) {
      rows.push({
        metric: `server statements per delivery, warm, ${r.layout.label}`,
        value: round(deliveryStatements.perUnit, 2),
        unit: '',
        note: `the median warm drain (pg_stat_statements); ${round(writeStatements.perUnit, 2)} per event written`,
      });
      metrics[`${layoutKey}StatementsPerDelivery`] = round(deliveryStatements.perUnit, 3);
      metrics[`${layoutKey}StatementsPerEventWritten`] = round(writeStatements.perUnit, 3);
    }
    metrics[`${layoutKey}EventsWrittenToManyPerSecond`] = round(r.writtenToManyPerSecond);
    metrics[`${layoutKey}CommitToReceiptP99Ms`] = unlessVoid(round(r.p99Ms), r.pacedLedger);
    metrics[`${layoutKey}LedgersBalance`] = balances(r.fresh.ledger) && balances(r.warm.ledger) && balances(r.pacedLedger);
  }
  const pgVsSqlite = (phase: (typeof phases)[number]) =>
    unlessVoid(round(pg1[phase].deliveriesPerSecond / sqlite[phase].deliveriesPerSecond, 3), pg1[phase].ledger, sqlite[phase].ledger);
  const fresh = pgVsSqlite('fresh');
  rows.push({
    metric: 'PostgreSQL 1 node ÷ SQLite, deliveries/s, warm',
    value: unlessVoid(
      round((pg1.warm.deliveriesPerSecond / sqlite.warm.deliveriesPerSecond) * 100, 1),
      pg1.warm.ledger,
      sqlite.warm.ledger,
    ),
    unit: '%',
    note: `fresh ${typeof fresh === 'number' ? `${round(fresh * 100, 1)}%` : fresh}; target ≥ 90%`,
  });
  metrics.pgVsSqliteDeliveriesRatio = pgVsSqlite('warm');
  metrics.pgVsSqliteFreshDeliveriesRatio = fresh;
  if (peers.length > 0) {
    for (const p of peers) {
      const layout = `Graphile Worker, ${p.processes} process${p.processes > 1 ? 'es' : ''}`;
      for (const phase of phases) {
        const d = phase === 'warm' ? p : p.fresh;
        if (!d) continue;
        const key = keyOf(`graphile${p.processes}`, phase);
        rows.push(ledgerRow(d.ledger));
        rows.push({
          metric: `deliveries/s, ${phase}, ${layout}`,
          value: unlessVoid(round(d.deliveriesPerSecond, 0), d.ledger),
          unit: '/s',
          note: `the same backlog and receiver; CPU per delivery: workers ${d.workersMs.map((ms) => round(ms, 3)).join(' + ')}${d.databaseMs !== undefined ? `, PostgreSQL ${round(d.databaseMs, 3)}` : ''}, receiver ${round(d.receiverMs, 3)}`,
        });
        metrics[`${key}DeliveriesPerSecond`] = unlessVoid(round(d.deliveriesPerSecond), d.ledger);
        metrics[`${key}CpuPerDeliveryWorkersMs`] = unlessVoid(round(sum(d.workersMs), 3), d.ledger);
        if (d.databaseMs !== undefined) metrics[`${key}CpuPerDeliveryDatabaseMs`] = unlessVoid(round(d.databaseMs, 3), d.ledger);
        metrics[`${key}LedgerBalances`] = balances(d.ledger);
      }
    }
    // Best of one and two on each side: each at its own best layout on this machine.
    const pgLayouts = results.filter((r) => r.layout.engine === 'postgres' && r.layout.nodes <= 2);
    const versus = (phase: (typeof phases)[number]) => {
      const peerDrains = peers.flatMap((p) => (phase === 'warm' ? [p] : p.fresh ? [p.fresh] : []));
      const borderdBest = Math.max(...pgLayouts.map((r) => r[phase].deliveriesPerSecond));
      const peerBest = Math.max(...peerDrains.map((d) => d.deliveriesPerSecond));
      const ratio = unlessVoid(
        round(borderdBest / peerBest, 2),
        ...pgLayouts.map((r) => r[phase].ledger),
        ...peerDrains.map((d) => d.ledger),
      );
      return { borderdBest, peerBest, ratio };
    };
    const warm = versus('warm');
    const freshVersus = versus('fresh');
    rows.push({
      metric: 'borderd ÷ Graphile Worker, deliveries/s, warm',
      value: warm.ratio,
      unit: '×',
      note: `best of 1 or 2 nodes (${round(warm.borderdBest, 0)}/s) ÷ best of 1 or 2 processes (${round(warm.peerBest, 0)}/s); fresh ${freshVersus.ratio}× (${round(freshVersus.borderdBest, 0)} ÷ ${round(freshVersus.peerBest, 0)}/s); target ≥ 1.5×`,
    });
    metrics.borderdVsGraphileRatio = warm.ratio;
    metrics.borderdVsGraphileFreshRatio = freshVersus.ratio;
  }
  rows.push({
    metric: `claim of 50 due rows, p50, ${claims.delivered} delivered rows beside them`,
    value: round(claims.full.p50, 2),
    unit: 'ms',
    note: `without them ${round(claims.empty.p50, 2)} ms (ratio ${round(claims.full.p50 / claims.empty.p50, 2)}); p99 ${round(claims.full.p99, 2)} vs ${round(claims.empty.p99, 2)} ms; ${claims.rounds} claims each`,
  });
  metrics.claimDeliveredRows = claims.delivered;
  metrics.claimP50MsEmpty = round(claims.empty.p50, 3);
  metrics.claimP50MsFull = round(claims.full.p50, 3);
  metrics.claimP99MsEmpty = round(claims.empty.p99, 3);
  metrics.claimP99MsFull = round(claims.full.p99, 3);
  return { rows, metrics };
}
