import type { Benchmark, BenchOutcome } from './bench-types.js';
import { bullmqComparison } from './bullmq-peer.js';
import { noisyNeighbour } from './noisy-neighbour.js';
import { nodesComparison } from './outbox-nodes.js';
import { orderingComparison } from './outbox-ordering.js';
import { externalPostgres, startPostgresServer } from './postgres-server.js';
import { DaemonDatabase } from './daemon-database.js';
import { cpus } from 'node:os';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { processCpuSeconds, sampleRss, startDaemon } from './daemon-process.js';
import { machineCpu, machineCpuBetween } from './machine-cpu.js';
import { OutboxScenario } from './outbox-scenario.js';
import { balances, ledgerOf, ledgerRow, unlessVoid, type Ledger } from './ledger.js';
import { mb, round, summarize } from './percentiles.js';
import type { Row } from './report-table.js';
import { makeSigningKey, measureSigningRate } from './signing-limit.js';

/** Receipts per second between the first and the last delivery the receiver saw. */
const receiptRate = (s: { deliveries: number; firstAt: number; lastAt: number }): number =>
  s.deliveries > 1 && s.lastAt > s.firstAt ? ((s.deliveries - 1) * 1000) / (s.lastAt - s.firstAt) : 0;

export { OUTBOX_ENV } from './outbox-env.js';
import { OUTBOX_ENV } from './outbox-env.js';

/**
 * Benchmark 1: the outbox of a real `borderd serve` delivering to one verifying local receiver.
 * - events written/s: admin API event writes (event row + delivery rows, one transaction each);
 * - deliveries/s: a backlog written while the webhook was disabled, then released at once, so the
 *   dispatcher alone is timed (first to last receipt), against the one-core signing limit;
 * - commit-to-receipt latency at a fixed offered rate (event createdAt to first receipt);
 * - fan-out: the same with 10 webhooks; one signature per event and key, reused by every endpoint;
 * - ordered delivery: deliveries/s with `ordering: resource` beside `none` on 50 resources (outbox-ordering.ts).
 * - noisy neighbour: one organization's commit-to-receipt p99 beside another's slow endpoints, as a ratio.
 * - the Redis peer: the same backlog drained by BullMQ, alternated with borderd (bullmq-peer.ts), where redis-server is on the PATH.
 */
export const outboxBenchmark: Benchmark = {
  name: 'outbox',
  title:
    'Outbox delivery: events written/s, deliveries/s vs the signing limit, commit-to-receipt latency, fan-out, noisy neighbour, BullMQ',
  async run({ quick, log, postgres }) {
    const single = await singleNode(quick, log);
    const ordering = await orderingComparison(quick, log, receiptRate);
    const noisy = await noisyNeighbour(quick, log);
    const peer = await bullmqComparison(quick, log);
    const base = {
      rows: [...single.rows, ...ordering.rows, ...noisy.rows, ...peer.rows],
      metrics: { ...single.metrics, ...ordering.metrics, ...noisy.metrics, ...peer.metrics },
    };
    if (!postgres) return base;
    const server =
      postgres.url !== undefined ? externalPostgres(postgres.url) : await startPostgresServer(undefined, { statementStats: true });
    try {
      const nodes = await nodesComparison(server, quick, log, postgres.peer !== false);
      return { rows: [...base.rows, ...nodes.rows], metrics: { ...base.metrics, ...nodes.metrics } };
    } finally {
      await server.remove();
    }
  },
};

/** The single-node figures on SQLite (every run). */
async function singleNode(quick: boolean, log: (line: string) => void): Promise<BenchOutcome> {
  const backlog = quick ? 200 : 5_000;
  const fanoutEvents = quick ? 50 : 2_000;
  const rate = quick ? 100 : 500;
  const latencySeconds = quick ? 1 : 20;
  const signing = measureSigningRate(makeSigningKey(), quick ? 0.3 : 3);
  const daemon = await startDaemon({ env: OUTBOX_ENV });
  const rss = sampleRss(() => daemon.rss(), 500);
  const db = new DaemonDatabase(daemon.dbPath);
  const scenario = await OutboxScenario.start(daemon);
  try {
    // 1. One endpoint: write a backlog while it is disabled, then deliver it.
    await scenario.addWebhooks(1, false);
    log(`outbox: writing ${backlog} events`);
    const written = await scenario.writeEvents({ amount: backlog });
    await scenario.resetReceiver();
    const cpu0 = { daemon: processCpuSeconds(daemon.pid), receiver: processCpuSeconds(scenario.receiver.pid) };
    await scenario.releaseBacklog();
    const single = await scenario.waitForDeliveries(backlog, quick ? 30_000 : 300_000);
    const singleRate = receiptRate(single);
    // Counted when the wait ended: duplicates can make up the count while an event is missing.
    const ledgers: Ledger[] = [ledgerOf('backlog, 1 endpoint', written.requests, await scenario.stats())];
    // What one delivery costs in CPU on each side: with every process on the same cores, the
    // machine cannot deliver faster than its cores divided by that sum, whatever the signing limit.
    const cpu1 = { daemon: processCpuSeconds(daemon.pid), receiver: processCpuSeconds(scenario.receiver.pid) };
    const cost = costPerDelivery(cpu0, cpu1, backlog);
    const costMs = cost.daemonMain + cost.daemonOther + cost.receiver;
    const ceiling = costMs > 0 ? (cpus().length * 1000) / costMs : 0;
    log(`outbox: ${round(singleRate, 0)} deliveries/s to one endpoint`);

    // 1b. The same backlog again, warm: with a Prometheus-like scraper reading /metrics every
    // second, and without; the difference is what scrapes cost delivery.
    const scrapeDurationsMs: number[] = [];
    const roundBacklog = quick ? 200 : 3_000;
    // The unscraped rounds' CPU: the same work on a daemon whose code is compiled by then, where the
    // first drain's figure includes V8 compiling it on its helper threads.
    const warmCosts: CpuCost[] = [];
    const backlogAgain = async (scraped: boolean): Promise<number> => {
      await scenario.setEnabled(false);
      const again = await scenario.writeEvents({ amount: roundBacklog });
      await scenario.resetReceiver();
      const before = { daemon: processCpuSeconds(daemon.pid), receiver: processCpuSeconds(scenario.receiver.pid) };
      let scraping = scraped;
      const scraper = (async () => {
        while (scraping) {
          const t0 = performance.now();
          const res = await fetch(`${daemon.url}/metrics`);
          const text = await res.text();
          if (res.status !== 200 || !text.includes('borderd_outbox_pending')) throw new Error(`scrape failed: ${res.status}`);
          scrapeDurationsMs.push(performance.now() - t0);
          await sleep(1000);
        }
      })();
      await scenario.releaseBacklog();
      const s = await scenario.waitForDeliveries(roundBacklog, quick ? 30_000 : 300_000);
      scraping = false;
      await scraper;
      const after = { daemon: processCpuSeconds(daemon.pid), receiver: processCpuSeconds(scenario.receiver.pid) };
      if (!scraped) warmCosts.push(costPerDelivery(before, after, roundBacklog));
      ledgers.push(ledgerOf(`backlog again, ${scraped ? '' : 'not '}scraped`, again.requests, await scenario.stats()));
      return receiptRate(s);
    };
    // Alternated rounds, so load from outside the run falls on both alike; medians compared.
    const scrapedRates: number[] = [];
    const unscrapedRates: number[] = [];
    for (let i = 0; i < (quick ? 1 : 3); i++) {
      scrapedRates.push(await backlogAgain(true));
      unscrapedRates.push(await backlogAgain(false));
    }
    const scrapedRate = summarize(scrapedRates).p50;
    // The round whose daemon CPU is the median, whole: its threads' figures belong together.
    const warm = [...warmCosts].sort((a, b) => a.daemonMain + a.daemonOther - (b.daemonMain + b.daemonOther))[
      Math.floor((warmCosts.length - 1) / 2)
    ]!;
    const unscrapedRate = summarize(unscrapedRates).p50;
    const scrape = summarize(scrapeDurationsMs);
    log(`outbox: ${round(scrapedRate, 0)} deliveries/s scraped every second, ${round(unscrapedRate, 0)} not scraped`);

    // 2. Latency at a fixed offered rate (a paced sender: one event every 1/rate s), the webhook enabled.
    await scenario.resetReceiver();
    const cpuBefore = machineCpu();
    const offered = await scenario.writeEventsPaced(rate, latencySeconds);
    const timed = await scenario.waitForDeliveries(offered.requests, 60_000, 'distinctEvents');
    const machine = machineCpuBetween(cpuBefore, machineCpu());
    const pacedStats = await scenario.stats(true);
    const pacedLedger = ledgerOf(`${rate}/s paced`, offered.requests, pacedStats);
    ledgers.push(pacedLedger);
    const latency = summarize(pacedStats.latenciesMs ?? []);
    log(`outbox: p99 commit-to-receipt ${round(latency.p99, 2)} ms at ${rate} events/s`);

    // 3. Fan-out to 10 webhooks.
    await scenario.setEnabled(false);
    await scenario.addWebhooks(9, false);
    const since3 = new Date().toISOString();
    await scenario.writeEvents({ amount: fanoutEvents });
    await scenario.resetReceiver();
    await scenario.releaseBacklog();
    const fan = await scenario.waitForDeliveries(fanoutEvents * 10, quick ? 30_000 : 300_000);
    const fanRate = receiptRate(fan);
    log(`outbox: ${round(fanRate, 0)} deliveries/s fanned out to 10 endpoints`);

    // Stored signatures per event and key (INSERT OR IGNORE: this cannot show a re-sign; the unit test counts sign() calls).
    const events = db.get<{ n: number }>('SELECT count(*) AS n FROM events WHERE created_at >= ?', since3)!.n;
    const signatures = db.get<{ n: number }>(
      'SELECT count(*) AS n FROM event_signatures s JOIN events e ON e.id = s.event_id WHERE e.created_at >= ?',
      since3,
    )!.n;
    const delivered = db.get<{ n: number }>("SELECT count(*) AS n FROM deliveries WHERE state = 'delivered'")!.n;
    const samples = rss.stop();
    const peak = daemon.peakRss();
    const rows: Row[] = [
      {
        metric: 'signing limit (node:crypto, one core)',
        value: round(signing.perSecond, 0),
        unit: 'sig/s',
        note: `RSA-2048 SHA-256, per CPU second (${round(signing.wallPerSecond, 0)}/s by the clock)`,
      },
      {
        metric: 'events written/s (admin API)',
        value: round(written.requestsPerSecond, 0),
        unit: '/s',
        note: `${written.requests} events, 10 connections, p99 ${written.p99Ms} ms`,
      },
      ...ledgers.map(ledgerRow),
      {
        metric: 'deliveries/s, 1 endpoint',
        value: unlessVoid(round(singleRate, 0), ledgers[0]!),
        unit: '/s',
        note: `${single.deliveries} verified deliveries`,
      },
      {
        metric: 'deliveries/s, 1 endpoint, /metrics scraped every 1 s',
        value: unlessVoid(round(scrapedRate, 0), ...ledgers.slice(1, -1)),
        unit: '/s',
        note: `median of ${scrapedRates.length} rounds (${scrapedRates.map((r) => round(r, 0)).join(', ')}) alternated with unscraped ones: ${round(unscrapedRate, 0)}/s (${unscrapedRates.map((r) => round(r, 0)).join(', ')}), ratio ${round(unscrapedRate > 0 ? (scrapedRate / unscrapedRate) * 100 : 0, 1)}%; ${scrapeDurationsMs.length} scrapes, p50 ${round(scrape.p50, 1)} ms, max ${round(scrape.max, 1)} ms`,
      },
      {
        metric: 'deliveries/s ÷ signing limit',
        value: round((singleRate / signing.perSecond) * 100, 1),
        unit: '%',
        note: 'target ≥ 80%',
      },
      {
        metric: 'CPU per delivery, 1 endpoint',
        value: round(costMs, 3),
        unit: 'ms',
        note: `daemon main thread ${round(cost.daemonMain, 3)}, its other threads (signing, GC) ${round(cost.daemonOther, 3)}, verifying receiver ${round(cost.receiver, 3)}`,
      },
      {
        metric: 'CPU per delivery, 1 endpoint, warm',
        value: round(warm.daemonMain + warm.daemonOther + warm.receiver, 3),
        unit: 'ms',
        note: `median of the ${warmCosts.length} unscraped rounds' daemon CPU (main ${round(warm.daemonMain, 3)}, other threads ${round(warm.daemonOther, 3)}); receiver ${round(warm.receiver, 3)}`,
      },
      {
        metric: `CPU ceiling on ${cpus().length} cores`,
        value: round(ceiling, 0),
        unit: '/s',
        note: `cores ÷ CPU per delivery; 1 endpoint reached ${round(ceiling > 0 ? (singleRate / ceiling) * 100 : 0, 1)}% of it`,
      },
      {
        metric: `commit→receipt p50 at ${rate}/s`,
        value: unlessVoid(round(latency.p50, 2), pacedLedger),
        unit: 'ms',
        note: `${timed.distinctEvents} events over ${latencySeconds} s, paced: ${round(offered.offeredPerSecond, 1)}/s offered, sender at most ${round(offered.maxLagMs, 1)} ms late`,
      },
      { metric: `commit→receipt p95 at ${rate}/s`, value: unlessVoid(round(latency.p95, 2), pacedLedger), unit: 'ms' },
      {
        metric: `commit→receipt p99 at ${rate}/s`,
        value: unlessVoid(round(latency.p99, 2), pacedLedger),
        unit: 'ms',
        note: 'target < 50 ms',
      },
      {
        metric: `machine CPU during the ${rate}/s phase`,
        value: round(machine.busyPct, 1),
        unit: '%',
        note: `of all ${cpus().length} cores, every process; ${round(machine.stealPct, 1)}% more taken by the host (steal)`,
      },
      {
        metric: 'deliveries/s, 10 endpoints',
        value: round(fanRate, 0),
        unit: '/s',
        note: `${fan.deliveries} verified deliveries of ${fanoutEvents} events`,
      },
      {
        metric: 'fan-out ÷ signing limit',
        value: round((fanRate / signing.perSecond) * 100, 1),
        unit: '%',
        note: '> 100% means the signature is reused',
      },
      {
        metric: 'fan-out: stored signatures / events',
        value: `${signatures} / ${events}`,
        note: 'rows of event_signatures; sign() calls are counted in test/delivery/signatures.test.ts',
      },
      { metric: 'daemon peak RSS', value: mb(peak), unit: 'MB', note: `target < 200 MB; last sample ${mb(samples.at(-1) ?? 0)} MB` },
    ];
    return {
      rows,
      metrics: {
        ledgersBalance: ledgers.every(balances),
        signaturesPerSecond: round(signing.perSecond),
        signaturesPerWallSecond: round(signing.wallPerSecond),
        eventsWritten: written.requests,
        eventsWrittenPerSecond: round(written.requestsPerSecond),
        deliveriesSingle: single.deliveries,
        deliveriesPerSecondSingle: round(singleRate),
        deliveriesPerSecondScraped: round(scrapedRate),
        deliveriesPerSecondUnscraped: round(unscrapedRate),
        scrapes: scrapeDurationsMs.length,
        scrapeP50Ms: round(scrape.p50),
        scrapeMaxMs: round(scrape.max),
        singleVsSigningRatio: round(singleRate / signing.perSecond, 3),
        cpuPerDeliveryMs: round(costMs, 3),
        cpuPerDeliveryDaemonMainMs: round(cost.daemonMain, 3),
        cpuPerDeliveryDaemonOtherMs: round(cost.daemonOther, 3),
        cpuPerDeliveryReceiverMs: round(cost.receiver, 3),
        cpuPerDeliveryWarmDaemonMainMs: round(warm.daemonMain, 3),
        cpuPerDeliveryWarmDaemonOtherMs: round(warm.daemonOther, 3),
        cpuPerDeliveryWarmReceiverMs: round(warm.receiver, 3),
        cpuCeilingPerSecond: round(ceiling),
        offeredRate: rate,
        latencyEvents: timed.distinctEvents,
        latencyOfferedPerSecond: round(offered.offeredPerSecond),
        latencySenderMaxLagMs: round(offered.maxLagMs),
        latencyWriteP99Ms: round(offered.p99Ms),
        commitToReceiptP50Ms: round(latency.p50),
        commitToReceiptP95Ms: round(latency.p95),
        commitToReceiptP99Ms: round(latency.p99),
        latencyMachineBusyPct: round(machine.busyPct, 1),
        latencyMachineStealPct: round(machine.stealPct, 1),
        deliveriesFanout: fan.deliveries,
        deliveriesPerSecondFanout: round(fanRate),
        fanoutVsSigningRatio: round(fanRate / signing.perSecond, 3),
        fanoutEventsStored: events,
        fanoutEventSignatures: signatures,
        delivered,
        verificationFailures: single.failures + fan.failures + timed.failures,
        daemonPeakRssMb: mb(peak),
      },
    };
  } finally {
    rss.stop();
    await scenario.stop();
    db.close();
    await daemon.stop();
  }
}

type CpuSnapshot = { daemon: ReturnType<typeof processCpuSeconds>; receiver: ReturnType<typeof processCpuSeconds> };
interface CpuCost {
  daemonMain: number;
  daemonOther: number;
  receiver: number;
}

/** The CPU milliseconds per delivery between two snapshots of `deliveries`: the daemon's main thread, its other threads, the receiver. */
function costPerDelivery(a: CpuSnapshot, b: CpuSnapshot, deliveries: number): CpuCost {
  const ms = (from: number, to: number) => ((to - from) * 1000) / deliveries;
  return {
    daemonMain: ms(a.daemon.main, b.daemon.main),
    daemonOther: ms(a.daemon.other, b.daemon.other),
    receiver: ms(a.receiver.main + a.receiver.other, b.receiver.main + b.receiver.other),
  };
}
