import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../support/context.js';
import { ROOT } from '../support/process.js';

type Metrics = Record<string, number | string | boolean>;
interface Results {
  mode: string;
  machine: { cpus: number; node: string };
  benchmarks: Record<string, Metrics>;
}

function runBench(args: string[]): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const proc = spawn(process.execPath, [join(ROOT, 'dist', 'bench', 'run.js'), ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    proc.stdout.on('data', (d: Buffer) => (output += d.toString()));
    proc.stderr.on('data', (d: Buffer) => (output += d.toString()));
    proc.on('exit', (code) => resolve({ code, output }));
  });
}

const positive = (m: Metrics, keys: string[]) => {
  for (const k of keys) {
    expect(typeof m[k], k).toBe('number');
    expect(m[k] as number, k).toBeGreaterThan(0);
  }
};

// The benchmark scripts must not rot: run every one of them briefly, as a real process, and check
// the results file holds each with sane figures. No timing thresholds: those belong to the docs.
describe('npm run bench -- --quick', () => {
  it('runs every benchmark and writes every figure', { timeout: 600_000 }, async () => {
    const out = join(tempDir('borderd-bench-test-'), 'results.json');
    const run = await runBench(['--quick', '--out', out]);
    expect(run.code, run.output).toBe(0);
    const results = JSON.parse(readFileSync(out, 'utf8')) as Results;
    expect(results.mode).toBe('quick');
    expect(results.machine.cpus).toBeGreaterThan(0);
    expect(Object.keys(results.benchmarks).sort()).toEqual(['api', 'csv', 'growth', 'idempotency', 'inbound', 'outbox', 'receiver']);
    for (const [name, m] of Object.entries(results.benchmarks)) expect(m.error, `${name} failed`).toBeUndefined();

    const { outbox, api, receiver, inbound, growth, csv, idempotency } = results.benchmarks as Record<string, Metrics>;
    positive(outbox!, [
      'signaturesPerSecond',
      'eventsWrittenPerSecond',
      'deliveriesPerSecondSingle',
      'cpuPerDeliveryMs',
      'cpuPerDeliveryWarmDaemonMainMs',
      'cpuPerDeliveryWarmReceiverMs',
      'cpuCeilingPerSecond',
      'commitToReceiptP99Ms',
      'deliveriesPerSecondFanout',
      'daemonPeakRssMb',
      'noisyNeighbourQuietP99Ms',
      'noisyNeighbourP99Ms',
      'noisyNeighbourRatio',
    ]);
    expect(outbox!.eventsWritten).toBe(200);
    expect(outbox!.deliveriesSingle).toBeGreaterThanOrEqual(200);
    expect(outbox!.deliveriesFanout).toBeGreaterThanOrEqual(500);
    expect(outbox!.verificationFailures).toBe(0);
    expect(outbox!.latencyMachineBusyPct).toBeGreaterThan(0);
    expect(outbox!.latencyMachineStealPct).toBeGreaterThanOrEqual(0);
    // The signature is made once per event and key, whatever the number of endpoints.
    expect(outbox!.fanoutEventSignatures).toBe(outbox!.fanoutEventsStored);
    // Ordered delivery beside unordered on the same events (its figure is the ratio; the quick run's is not a measure).
    positive(outbox!, ['deliveriesUnordered50', 'deliveriesOrdered50', 'orderedRatioPct']);
    // The Redis peer alternated with borderd where redis-server is on the PATH; without it, why it was skipped.
    if (typeof outbox!.bullmqSkipped === 'string') expect(outbox!.bullmqSkipped).toMatch(/redis-server/);
    else {
      positive(outbox!, [
        'bullmqRatioRound1',
        'bullmqBorderdPerSecondRound1',
        'bullmq1PerSecondRound1',
        'bullmq2PerSecondRound1',
        'bullmqRatioMin',
      ]);
      expect(outbox!.bullmqRounds).toBe(1);
      expect(outbox!.bullmqLedgersBalance).toBe(true);
    }

    positive(api!, [
      'identitiesPrefixRps',
      'identitiesRarePrefixRps',
      'accountByIdRps',
      'benchmarkSummaryRps',
      'bareExpressRps',
      'identitiesPrefixVsBareRatio',
      'daemonPeakRssMb',
    ]);
    expect(api!.identities).toBe(2000);
    expect(api!.transactions).toBe(2000);

    positive(receiver!, [
      'directP50Ms',
      'receiverP50Ms',
      'receiverP99Ms',
      'oneWayDirectP50Ms',
      'oneWayThroughP50Ms',
      'oneWayThroughP99Ms',
      'ownP50Ms',
      'ownP99Ms',
      'forwardP50Ms',
      'forwardP99Ms',
      'receiverPeakRssMb',
    ]);
    expect(receiver!.deliveries).toBe(200);
    expect(typeof receiver!.addedP99Ms).toBe('number');
    expect(typeof receiver!.oneWayAddedP99Ms).toBe('number');

    positive(inbound!, [
      'acceptedPerSecond',
      'decryptionsPerSecond',
      'joseDecryptionsPerSecond',
      'decryptionVsJoseRatio',
      'daemonPeakRssMb',
    ]);
    expect(inbound!.notifications).toBe(300);
    expect(inbound!.decrypted).toBe(300);

    positive(growth!, ['smallDeliveriesPerSecond', 'largeDeliveriesPerSecond', 'smallDueQueryP50Ms', 'largeDueQueryP50Ms']);
    expect(growth!.largeDelivered as number).toBeGreaterThan(growth!.smallDelivered as number);

    positive(csv!, ['csvRowsPerSecond', 'csvQuoteLeadingRowsPerSecond', 'jsonlRowsPerSecond']);
    expect(csv!.rows).toBe(5000);

    positive(idempotency!, ['plainRps', 'keyedRps', 'keyedVsPlainRatio', 'replayedRps']);

    // Every benchmark printed its table.
    for (const name of ['outbox', 'api', 'receiver', 'inbound', 'growth', 'idempotency']) expect(run.output).toContain(`\n${name}: `);
  });

  it('--soak --quick runs only the soak, and nothing is dropped under its mixed load', { timeout: 120_000 }, async () => {
    const out = join(tempDir('borderd-bench-test-'), 'results.json');
    const run = await runBench(['--soak', '--quick', '--out', out]);
    expect(run.code, run.output).toBe(0);
    const results = JSON.parse(readFileSync(out, 'utf8')) as Results;
    expect(results.mode).toBe('soak');
    expect(Object.keys(results.benchmarks)).toEqual(['soak']);
    const soak = results.benchmarks.soak!;
    expect(soak.error).toBeUndefined();
    expect(soak.eventsDelivered).toBe(soak.events);
    expect(soak.events as number).toBeGreaterThan(0);
    expect(soak.notifications as number).toBeGreaterThan(0);
    expect(soak.rssSamples as number).toBeGreaterThan(4);
    positive(soak, ['rssEarlyMb', 'rssLateMb', 'daemonPeakRssMb']);
  });

  it('refuses an unknown benchmark name with exit code 2', async () => {
    const run = await runBench(['--only', 'nope']);
    expect(run.code).toBe(2);
    expect(run.output).toMatch(/unknown benchmark nope; one of outbox, api, receiver, inbound, growth, csv, idempotency, soak/);
  });

  it('refuses --no-peer without PostgreSQL with exit code 2', async () => {
    const run = await runBench(['--no-peer']);
    expect(run.code).toBe(2);
    expect(run.output).toMatch(/--no-peer goes with --postgres or --database-url/);
  });
});
