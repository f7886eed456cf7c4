/**
 * How fast GET /v1/identities filters by prefix over 100,000 identities of one organization (and
 * 100,000 of another, so org scoping is exercised). Prints the query plan and median/p95 per filter.
 * Run: npm run build && node dist/bench/identities-prefix.js
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { loadConfig } from '../src/config/load.js';
import { createContext } from '../src/context.js';
import { createLogger } from '../src/logging/logger.js';
import { createOrganization } from '../src/services/organizations.js';
import { importIdentities, listIdentitiesPage } from '../src/services/identities.js';

const N = Number(process.env.BENCH_IDENTITIES ?? 100_000);
const FIRST = ['Ana', 'Andrés', 'Bruno', 'Carla', 'Diego', 'Elena', 'Fabio', 'Gina', 'Hugo', 'Inés', 'Jorge', 'Karla', 'Luis', 'María', 'Nora', 'Óscar'];
const LAST = ['García', 'López', 'Martínez', 'Smith', 'Nguyen', 'Silva', 'Rossi', 'Müller', 'Kim', 'Diaz', 'Santos', 'Reyes'];

const dir = mkdtempSync(join(tmpdir(), 'borderd-bench-'));
try {
  const config = loadConfig({ env: {}, flags: { 'database.path': join(dir, 'bench.db') } });
  const ctx = createContext(config, { log: createLogger({ level: 'warn', pretty: 'never', destination: process.stderr }) });
  const orgs = [createOrganization(ctx, 'Bench'), createOrganization(ctx, 'Other')];
  for (const org of orgs) {
    const lines: string[] = [];
    for (let i = 0; i < N; i++) {
      const firstName = `${FIRST[i % FIRST.length]}${i % 997}`;
      const lastName = `${LAST[(i * 7) % LAST.length]}${i % 389}`;
      lines.push(JSON.stringify({ type: i % 5 === 0 ? 'Business' : 'Personal', data: { firstName, lastName, email: `${firstName}.${lastName}.${i}@example.com`.normalize('NFD').replace(/[\u0300-\u036f]/g, '').toLowerCase() } }));
    }
    const t0 = performance.now();
    importIdentities(ctx, org.id, lines);
    console.log(`imported ${N} identities into ${org.id} in ${(performance.now() - t0).toFixed(0)} ms`);
  }
  // No ANALYZE: a production database rarely has fresh statistics; the plan must be good without them.
  if (process.env.BENCH_ANALYZE === '1') ctx.db.exec('ANALYZE');
  const orgId = orgs[0]!.id;
  const cases: Record<string, Parameters<typeof listIdentitiesPage>[2]> = {
    'name=and (≈6%)': { name: 'and', limit: 10 },
    'name=maría5 (rare)': { name: 'maría5', limit: 10 },
    'name="ana1 garcía" (full name)': { name: 'ana1 garcía', limit: 10 },
    'name=hugo1, limit=100 (≈1%)': { name: 'hugo1', limit: 100 },
    'name=a & email=zzz': { name: 'a', email: 'zzz', limit: 10 },
    'email=zzz (no match)': { email: 'zzz', limit: 10 },
    'email=hugo1 (prefix)': { email: 'hugo1', limit: 100 },
    'type=Business, limit=100': { type: 'Business', limit: 100 },
    'no filter, limit=100': { limit: 100 },
  };
  for (const [label, filter] of Object.entries(cases)) {
    const times: number[] = [];
    for (let i = 0; i < 50; i++) {
      const t0 = performance.now();
      listIdentitiesPage(ctx, orgId, filter, 'all');
      times.push(performance.now() - t0);
    }
    times.sort((a, b) => a - b);
    console.log(`${label.padEnd(36)} median ${times[25]!.toFixed(2)} ms  p95 ${times[47]!.toFixed(2)} ms`);
  }
  ctx.db.close();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
