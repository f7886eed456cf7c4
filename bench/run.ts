/**
 * `npm run bench [-- --quick] [-- --soak] [-- --only outbox,api] [-- --out FILE] [-- --cpu-prof DIR] [-- --postgres [--no-peer]]`: runs the
 * benchmarks against real processes on 127.0.0.1, prints a table per benchmark and writes every
 * figure to bench/results.json. Numbers come from here, never from timed assertions in tests.
 */
import { writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { join, resolve } from 'node:path';
import { apiBenchmark } from './api.js';
import type { Benchmark, BenchOutcome } from './bench-types.js';
import { csvImportBenchmark } from './csv-import.js';
import { daemonNodeArgs, ROOT } from './daemon-process.js';
import { growthBenchmark } from './growth.js';
import { idempotencyBenchmark } from './idempotency.js';
import { inboundBenchmark } from './inbound.js';
import { outboxBenchmark } from './outbox.js';
import { receiverBenchmark } from './receiver.js';
import { printTable } from './report-table.js';
import { soakBenchmark } from './soak.js';

/** In run order; `--only` picks by name; the soak runs only when asked for. */
const BENCHMARKS: Benchmark[] = [
  outboxBenchmark,
  apiBenchmark,
  receiverBenchmark,
  inboundBenchmark,
  growthBenchmark,
  csvImportBenchmark,
  idempotencyBenchmark,
  soakBenchmark,
];

interface Args {
  quick: boolean;
  soak: boolean;
  only?: string[];
  out: string;
  cpuProfDir?: string;
  postgres?: { url?: string };
  /** Whether the PostgreSQL comparison leaves out its peer (Graphile Worker). */
  noPeer: boolean;
}

function parseArgs(argv: string[]): Args {
  const args: Args = { quick: false, soak: false, out: join(ROOT, 'bench', 'results.json'), noPeer: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const [flag, inline] = a.includes('=') ? [a.slice(0, a.indexOf('=')), a.slice(a.indexOf('=') + 1)] : [a, undefined];
    const value = () => inline ?? argv[++i] ?? usage(`${flag} needs a value`);
    if (flag === '--quick') args.quick = true;
    else if (flag === '--soak') args.soak = true;
    else if (flag === '--only')
      args.only = value()
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
    else if (flag === '--out') args.out = value();
    else if (flag === '--cpu-prof') args.cpuProfDir = value();
    else if (flag === '--postgres') args.postgres = {};
    else if (flag === '--database-url') args.postgres = { url: value() };
    else if (flag === '--no-peer') args.noPeer = true;
    else usage(`unknown option ${a}`);
  }
  if (args.noPeer && !args.postgres) usage('--no-peer goes with --postgres or --database-url');
  const names = BENCHMARKS.map((b) => b.name);
  for (const n of args.only ?? []) if (!names.includes(n)) usage(`unknown benchmark ${n}; one of ${names.join(', ')}`);
  return args;
}

function usage(message: string): never {
  process.stderr.write(
    `bench: ${message}\nusage: node dist/bench/run.js [--quick] [--soak] [--only ${BENCHMARKS.map((b) => b.name).join(',')}] [--out FILE] [--cpu-prof DIR] [--postgres | --database-url URL] [--no-peer]\n`,
  );
  process.exit(2);
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  // Profiles of every daemon started (one .cpuprofile each, written when it stops); read them with
  // node dist/bench/cpu-profile-summary.js FILE. Profiling slows the daemon: figures of such a run are not comparable.
  // Absolute: each daemon runs in its own temporary data directory, removed when it stops.
  if (args.cpuProfDir) daemonNodeArgs.push('--cpu-prof', `--cpu-prof-dir=${resolve(args.cpuProfDir)}`);
  // --soak runs the soak alone (it takes ten minutes); otherwise every benchmark but the soak.
  const selected = BENCHMARKS.filter((b) => (args.only ? args.only.includes(b.name) : args.soak ? b.name === 'soak' : b.name !== 'soak'));
  const log = (line: string) => process.stderr.write(`${line}\n`);
  const results: Record<string, BenchOutcome['metrics'] & { durationSeconds: number }> = {};
  let failed = false;
  for (const b of selected) {
    const t0 = Date.now();
    log(`bench: ${b.name} …`);
    try {
      const outcome = await b.run({
        quick: args.quick,
        soak: args.soak,
        log,
        ...(args.postgres ? { postgres: { ...args.postgres, peer: !args.noPeer } } : {}),
      });
      printTable(`${b.name}: ${b.title}`, outcome.rows);
      results[b.name] = { ...outcome.metrics, durationSeconds: (Date.now() - t0) / 1000 };
    } catch (err) {
      failed = true;
      log(`bench: ${b.name} failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
      results[b.name] = { error: err instanceof Error ? err.message : String(err), durationSeconds: (Date.now() - t0) / 1000 };
    }
  }
  const document = {
    generatedAt: new Date().toISOString(),
    mode: args.soak ? 'soak' : args.quick ? 'quick' : 'full',
    machine: {
      cpus: cpus().length,
      cpuModel: cpus()[0]?.model ?? 'unknown',
      memoryGb: Math.round(totalmem() / 2 ** 30),
      node: process.version,
      platform: process.platform,
    },
    benchmarks: results,
  };
  writeFileSync(args.out, JSON.stringify(document, null, 2) + '\n');
  log(`bench: wrote ${args.out}`);
  process.exitCode = failed ? 1 : 0;
}

await main();
