/**
 * The outbox benchmark's comparison of SQLite with PostgreSQL on one, two and three nodes
 * (bench/outbox-nodes.ts), at `--quick` sizes on a server of its own, without the peer: each
 * layout's nodes deliver a warm-up backlog and then three warm ones, the median of which is
 * measured, with balanced ledgers, and the table has the first and the measured backlog's figures and
 * the warm ratios to one node, beside each warm drain's server CPU. No timing: the
 * figures belong to `npm run bench -- --only outbox --postgres`. Needs `npm run build` (the daemons
 * run compiled).
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { BenchOutcome } from '../../bench/bench-types.js';
import { ROOT } from '../support/process.js';

/**
 * nodesComparison run from the compiled benchmark, as `npm run bench` runs it: the scenario starts
 * its receiver by its compiled path. Its server is an embedded PostgreSQL of its own.
 */
function runComparison(): Promise<BenchOutcome & { lines: string[] }> {
  const module = (name: string) => pathToFileURL(join(ROOT, 'dist', 'bench', `${name}.js`)).href;
  const script = `
    const { nodesComparison } = await import(${JSON.stringify(module('outbox-nodes'))});
    const { startPostgresServer } = await import(${JSON.stringify(module('postgres-server'))});
    const server = await startPostgresServer(undefined, { statementStats: true });
    const lines = [];
    try {
      const outcome = await nodesComparison(server, true, (line) => lines.push(line), false);
      process.stdout.write(JSON.stringify({ ...outcome, lines }));
    } finally {
      await server.remove();
    }`;
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    proc.stdout.on('data', (d: Buffer) => (out += d.toString()));
    proc.stderr.on('data', (d: Buffer) => (err += d.toString()));
    proc.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out) as BenchOutcome & { lines: string[] }) : reject(new Error(err))));
  });
}

describe('the outbox on several nodes', () => {
  it(
    'measures each layout fresh and warm (the median of three drains), with ledgers, and the warm ratios to one node',
    { timeout: 600_000 },
    async () => {
      const { rows, metrics, lines } = await runComparison();
      const metric = (name: string) => rows.find((r) => r.metric === name);
      const layouts = ['SQLite, 1 node', 'PostgreSQL, 1 node', 'PostgreSQL, 2 nodes', 'PostgreSQL, 3 nodes'];
      for (const layout of layouts) {
        for (const phase of ['fresh', 'warm']) {
          expect(metric(`ledger, backlog, ${phase}, ${layout}`)?.value, `${phase} ${layout}`).toBe('balanced');
          expect(metric(`deliveries/s, ${phase}, ${layout}`)?.value, `${phase} ${layout}`).toBeGreaterThan(0);
          expect(metric(`CPU per delivery, ${phase}, ${layout}`)?.value, `${phase} ${layout}`).toBeGreaterThan(0);
        }
        expect(typeof metric(`a fresh node's first backlog beyond a warm one, ${layout}`)?.value).toBe('number');
        // The warm ledger is the three warm drains' together (quick backlogs of 400 events).
        expect(metric(`ledger, backlog, warm, ${layout}`)?.note, layout).toMatch(/^written 1200, delivered 1200, missing 0,/);
      }
      for (const key of ['sqlite1', 'postgres1', 'postgres2', 'postgres3']) {
        expect(metrics[`${key}LedgersBalance`], key).toBe(true);
        expect(metrics[`${key}DeliveriesPerSecond`], key).toBeGreaterThan(0);
        expect(metrics[`${key}FreshDeliveriesPerSecond`], key).toBeGreaterThan(0);
        expect(metrics[`${key}CpuPerDeliveryNodesMs`], key).toBeGreaterThan(0);
        expect(metrics[`${key}FreshCpuPerDeliveryNodesMs`], key).toBeGreaterThan(0);
      }
      for (const key of ['postgres2', 'postgres3']) {
        for (const ratio of ['ClusterCpuRatio', 'ServerCpuRatio', 'FreshClusterCpuRatio', 'FreshServerCpuRatio'])
          expect(metrics[`${key}${ratio}`], `${key}${ratio}`).toBeGreaterThan(0);
      }
      for (const layout of layouts.slice(2))
        expect(metric(`server CPU per delivery ÷ 1 node's, warm, ${layout}`)?.note, layout).toMatch(
          /in the warm drains: [\d.]+, [\d.]+, [\d.]+; one node's: [\d.]+, [\d.]+, [\d.]+\)/,
        );
      expect(metrics.postgres1CpuPerDeliveryDatabaseMs).toBeGreaterThan(0);
      // The server's statements are counted on the measured (warm) backlog.
      expect(metrics.postgres1StatementsPerDelivery).toBeGreaterThan(0);
      for (const drain of ['warm 1 of 3', 'warm 2 of 3', 'warm 3 of 3'])
        expect(lines.some((line) => line.startsWith(`outbox nodes: PostgreSQL, 1 node, ${drain}, per delivery:`))).toBe(true);
      expect(lines.some((line) => line.includes(', fresh, per delivery'))).toBe(false);
      expect(metric('PostgreSQL 1 node ÷ SQLite, deliveries/s, warm')?.value).toBeGreaterThan(0);
      expect(metrics.pgVsSqliteFreshDeliveriesRatio).toBeGreaterThan(0);
    },
  );
});
