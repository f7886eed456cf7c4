/**
 * The Redis peer of the outbox benchmark: BullMQ (npm bullmq, a dev dependency of the benchmarks
 * alone) on a private redis-server (bullmq-redis.ts), what a team would otherwise run for webhooks.
 * One job per delivery, each signed RSA-SHA256 and POSTed by bullmq-worker-node.ts to the same
 * verifying receiver program; PEER_SLOTS jobs in flight in all, in one process and in two. Jobs are
 * removed once completed and retried 5 times, BullMQ's usual settings for such work. Timed like
 * borderd's released backlog, from the first receipt to the last, with a ledger (peer-process.ts).
 *
 * bullmqComparison alternates rounds of borderd on SQLite (one webhook of PEER_SLOTS send slots,
 * every acknowledged write fsynced) with the peer's one and two processes in the same run, and
 * reports borderd's deliveries/s ÷ the peer's best per round. Both sides are measured warm: the
 * daemon and its receiver deliver a backlog before the first round, and each round's BullMQ
 * processes and their receiver deliver one per process before their measured backlog, since a
 * process's first jobs carry its compilation (bench/outbox-nodes.ts measures that start cost).
 * Without redis-server it says why and skips the peer.
 *
 * @module bench/bullmq-peer
 */
import { Queue } from 'bullmq';
import type { BenchOutcome } from './bench-types.js';
import { redisMissing, REDIS_DURABILITY, startRedis, type RedisServer } from './bullmq-redis.js';
import { processCpuSeconds, startDaemon } from './daemon-process.js';
import { balances, ledgerOf, ledgerRow, unlessVoid, type Ledger } from './ledger.js';
import { OUTBOX_ENV } from './outbox-env.js';
import { OutboxScenario } from './outbox-scenario.js';
import { drainByPeer, PEER_SLOTS, type PeerResult } from './peer-process.js';
import { round } from './percentiles.js';
import type { Row } from './report-table.js';

/** Jobs added per call: one pipeline each, so a big backlog is not one huge Redis transaction. */
const ADD_CHUNK = 1_000;

/**
 * BullMQ in `processes` processes drains `backlog` jobs from a queue of its own (`queueName`) on
 * `redis`, after `warmUp` jobs drained by the same processes (none: the processes' first jobs are
 * the measured ones); `round` names its ledgers' phase.
 */
export async function bullmqPeer(
  redis: RedisServer,
  processes: number,
  backlog: number,
  queueName: string,
  log: (line: string) => void,
  { round, warmUp = 0 }: { round?: number; warmUp?: number } = {},
): Promise<PeerResult> {
  const queue = new Queue(queueName, { connection: { host: redis.host, port: redis.port } });
  try {
    return await drainByPeer(
      {
        name: round === undefined ? 'BullMQ' : `BullMQ, round ${round}`,
        script: 'bullmq-worker-node',
        workerEnv: { PEER_REDIS_PORT: String(redis.port), PEER_QUEUE: queueName },
        addJobs: async (jobs) => {
          for (let i = 0; i < jobs.length; i += ADD_CHUNK) {
            await queue.addBulk(
              jobs.slice(i, i + ADD_CHUNK).map((data) => ({
                name: 'deliver',
                data,
                opts: { jobId: data.id, removeOnComplete: true, attempts: 5, backoff: { type: 'exponential', delay: 1000 } },
              })),
            );
          }
        },
        serverCpuSeconds: () => redis.cpuSeconds(),
      },
      processes,
      backlog,
      queueName,
      log,
      { warmUp },
    );
  } finally {
    await queue.close();
  }
}

/** One round of borderd: a backlog written while its webhook is disabled, released at once, drained. */
interface BorderdRound {
  deliveriesPerSecond: number;
  ledger: Ledger;
  /** CPU ms per delivery: the daemon (every thread) and the receiver. */
  daemonMs: number;
  receiverMs: number;
}

async function borderdRound(scenario: OutboxScenario, backlog: number, phase: string): Promise<BorderdRound> {
  await scenario.setEnabled(false);
  const written = await scenario.writeEvents({ amount: backlog });
  await scenario.resetReceiver();
  const cpu = () => {
    const d = processCpuSeconds(scenario.daemon.pid);
    const r = processCpuSeconds(scenario.receiver.pid);
    return { daemon: d.main + d.other, receiver: r.main + r.other };
  };
  const before = cpu();
  await scenario.releaseBacklog();
  const s = await scenario.waitForDeliveries(backlog, 600_000);
  const after = cpu();
  const ledger = ledgerOf(`backlog, borderd on SQLite, ${phase}`, written.requests, await scenario.stats());
  return {
    deliveriesPerSecond: s.deliveries > 1 && s.lastAt > s.firstAt ? ((s.deliveries - 1) * 1000) / (s.lastAt - s.firstAt) : 0,
    ledger,
    daemonMs: ((after.daemon - before.daemon) * 1000) / backlog,
    receiverMs: ((after.receiver - before.receiver) * 1000) / backlog,
  };
}

const perSecond = (r: number) => `${round(r, 0)}/s`;

/** borderd on SQLite against BullMQ on Redis, alternated rounds in one run (bench/outbox.ts). */
export async function bullmqComparison(quick: boolean, log: (line: string) => void): Promise<BenchOutcome> {
  const missing = redisMissing();
  if (missing !== undefined) {
    log(`outbox: BullMQ peer skipped: ${missing}`);
    return {
      rows: [
        { metric: 'borderd ÷ BullMQ on Redis', value: 'skipped', note: `${missing}; install Debian's redis-server package to run it` },
      ],
      metrics: { bullmqSkipped: missing },
    };
  }
  const backlog = quick ? 200 : 5_000;
  const rounds = quick ? 1 : 3;
  const redis = await startRedis();
  const daemon = await startDaemon({ env: { ...OUTBOX_ENV, BORDERD_DELIVERY_PER_ENDPOINT_CONCURRENCY: String(PEER_SLOTS) } });
  const scenario = await OutboxScenario.start(daemon);
  try {
    await scenario.addWebhooks(1, false);
    const rows: Row[] = [];
    const metrics: BenchOutcome['metrics'] = {};
    const ratios: number[] = [];
    log('outbox: warm-up, borderd on SQLite');
    const warmUp = await borderdRound(scenario, backlog, 'warm-up');
    const ledgers: Ledger[] = [warmUp.ledger];
    rows.push({
      metric: 'borderd on SQLite, warm-up',
      value: unlessVoid(round(warmUp.deliveriesPerSecond, 0), warmUp.ledger),
      unit: '/s',
      note: `a fresh daemon's first ${backlog} events, not a round; daemon ${round(warmUp.daemonMs, 3)} ms, receiver ${round(warmUp.receiverMs, 3)} ms CPU per delivery`,
    });
    metrics.bullmqBorderdWarmUpPerSecond = round(warmUp.deliveriesPerSecond);
    for (let n = 1; n <= rounds; n++) {
      // Alternated within the round too: borderd first in odd rounds, last in even ones.
      const peers: PeerResult[] = [];
      const runPeers = async () => {
        for (const processes of [1, 2]) {
          log(`outbox: round ${n}, BullMQ in ${processes} process${processes > 1 ? 'es' : ''}`);
          peers.push(
            await bullmqPeer(redis, processes, backlog, `bench_r${n}_p${processes}`, log, { round: n, warmUp: backlog * processes }),
          );
        }
      };
      if (n % 2 === 0) await runPeers();
      log(`outbox: round ${n}, borderd on SQLite`);
      const b = await borderdRound(scenario, backlog, `round ${n}`);
      if (n % 2 === 1) await runPeers();
      const best = Math.max(...peers.map((p) => p.deliveriesPerSecond));
      // The warm-ups' ledgers void the round too: a job lost or sent twice there is the peer's all the same.
      const roundLedgers = [b.ledger, ...peers.flatMap((p) => (p.fresh ? [p.fresh.ledger, p.ledger] : [p.ledger]))];
      ledgers.push(...roundLedgers);
      const ratio = best > 0 ? b.deliveriesPerSecond / best : 0;
      if (roundLedgers.every(balances)) ratios.push(ratio);
      const peerCpu = (p: PeerResult) =>
        `workers ${p.workersMs.map((m) => round(m, 3)).join(' + ')} ms, Redis ${round(p.databaseMs ?? 0, 3)} ms, receiver ${round(p.receiverMs, 3)} ms per delivery`;
      rows.push(
        {
          metric: `borderd ÷ BullMQ, round ${n}`,
          value: unlessVoid(round(ratio, 2), ...roundLedgers),
          unit: '×',
          note: `borderd ${perSecond(b.deliveriesPerSecond)} ÷ best of BullMQ ${peers.map((p) => `${p.processes}p ${perSecond(p.deliveriesPerSecond)}`).join(', ')}; target ≥ 1.5×`,
        },
        {
          metric: `borderd on SQLite, round ${n}`,
          value: unlessVoid(round(b.deliveriesPerSecond, 0), b.ledger),
          unit: '/s',
          note: `${backlog} events, ${PEER_SLOTS} send slots, every write fsynced; daemon ${round(b.daemonMs, 3)} ms, receiver ${round(b.receiverMs, 3)} ms CPU per delivery`,
        },
        ...peers.map((p) => ({
          metric: `BullMQ, ${p.processes} process${p.processes > 1 ? 'es' : ''}, round ${n}`,
          value: unlessVoid(round(p.deliveriesPerSecond, 0), p.ledger),
          unit: '/s',
          note: `${REDIS_DURABILITY}; ${peerCpu(p)}${
            p.fresh
              ? `; the same processes' first ${p.fresh.ledger.written} jobs (fresh) ${perSecond(p.fresh.deliveriesPerSecond)}, workers ${round(
                  p.fresh.workersMs.reduce((a, m) => a + m, 0),
                  3,
                )} ms`
              : ''
          }`,
        })),
      );
      metrics[`bullmqRatioRound${n}`] = round(ratio, 3);
      metrics[`bullmqBorderdPerSecondRound${n}`] = round(b.deliveriesPerSecond);
      metrics[`bullmqBorderdDaemonCpuMsRound${n}`] = round(b.daemonMs, 3);
      for (const p of peers) {
        metrics[`bullmq${p.processes}PerSecondRound${n}`] = round(p.deliveriesPerSecond);
        metrics[`bullmq${p.processes}CpuMsRound${n}`] = round(p.workersMs.reduce((a, m) => a + m, 0) + (p.databaseMs ?? 0), 3);
      }
    }
    rows.push(...ledgers.map(ledgerRow));
    metrics.bullmqRounds = rounds;
    metrics.bullmqLedgersBalance = ledgers.every(balances);
    if (ratios.length > 0) metrics.bullmqRatioMin = round(Math.min(...ratios), 3);
    metrics.bullmqDurability = REDIS_DURABILITY;
    return { rows, metrics };
  } finally {
    await scenario.stop();
    await daemon.stop();
    await redis.stop();
  }
}
