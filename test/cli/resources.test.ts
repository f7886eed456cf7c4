import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../support/process.js';
import { tempDir } from '../support/context.js';

async function orgIn(db: string): Promise<string> {
  // Only serve and migrate create a database.
  expect((await runCli(['migrate', '--db', db])).code).toBe(0);
  const res = await runCli(['orgs', 'create', '--name', 'Acme', '--db', db, '--json']);
  expect(res.code).toBe(0);
  return JSON.parse(res.stdout).id as string;
}

describe('resource CLI commands', () => {
  it('imports identities all or nothing, naming bad lines', async () => {
    const dir = tempDir();
    const db = join(dir, 'b.db');
    const org = await orgIn(db);
    const file = join(dir, 'ids.jsonl');
    writeFileSync(file, [JSON.stringify({ type: 'Personal', data: { firstName: 'Ana' } }), '', '{"type":"Robot"}', 'nope'].join('\n'));
    const bad = await runCli(['identities', 'import', file, '--org', org, '--db', db, '--json']);
    expect(bad.code).toBe(1);
    const err = JSON.parse(bad.stdout).error;
    expect(err.errors.map((e: { path: string }) => e.path)).toEqual(['line 3.type', 'line 4']);
    writeFileSync(
      file,
      [JSON.stringify({ type: 'Personal', data: { firstName: 'Ana' } }), JSON.stringify({ type: 'Business' })].join('\n') + '\n',
    );
    const ok = await runCli(['identities', 'import', file, '--org', org, '--db', db, '--json']);
    expect(ok.code).toBe(0);
    expect(JSON.parse(ok.stdout)).toMatchObject({ imported: 2, ids: [expect.stringMatching(/^idn_/), expect.stringMatching(/^idn_/)] });
    const human = await runCli(['identities', 'import', file, '--org', 'org_nope', '--db', db]);
    expect(human.code).toBe(1);
    expect(human.stderr).toMatch(/organization org_nope was not found/);
  });

  it('imports transactions from CSV and creates accounts', async () => {
    const dir = tempDir();
    const db = join(dir, 'b.db');
    const org = await orgIn(db);
    const file = join(dir, 'tx.csv');
    writeFileSync(
      file,
      'type,status,amountUsd,costVsMarketUsd,benchmark,createdAt\nDeposit,Completed,10.5,0.25,InLine,2026-01-01T00:00:00Z\nDeposit,Completed,1,,OffMarket,2026-01-01T00:00:00Z\n',
    );
    const bad = await runCli(['import', 'transactions', file, '--org', org, '--db', db]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('line 3.costVsMarketUsd');
    writeFileSync(
      file,
      'type,status,amountUsd,costVsMarketUsd,benchmark,createdAt\nDeposit,Completed,10.5,0.25,InLine,2026-01-01T00:00:00Z\n',
    );
    const ok = await runCli(['import', 'transactions', file, '--org', org, '--db', db, '--json']);
    expect(ok.code).toBe(0);
    expect(JSON.parse(ok.stdout)).toMatchObject({ imported: 1, importId: expect.stringMatching(/^imp_/) });

    const acc = await runCli([
      'accounts',
      'create',
      '--org',
      org,
      '--db',
      db,
      '--json',
      '--record',
      JSON.stringify({ provider: 'Standalone', name: 'Ops', fiats: [{ fiat: 'USD' }] }),
    ]);
    expect(acc.code).toBe(0);
    expect(JSON.parse(acc.stdout)).toMatchObject({ id: expect.stringMatching(/^acc_/), provider: 'Standalone', name: 'Ops' });
    const plans = await runCli(['refunds', 'list', '--db', db, '--json']);
    expect(JSON.parse(plans.stdout)).toEqual([]);
    const dispatch = await runCli(['refunds', 'dispatch', 'rfp_nope', '--db', db, '--json']);
    expect(dispatch.code).toBe(1);
    expect(JSON.parse(dispatch.stdout).error.status).toBe(404);
  });
});
