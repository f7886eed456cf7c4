import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { daemonToken } from '../support/daemon-token.js';
import { runCli, startBorderd, type RunningBorderd } from '../support/process.js';
import { tempDir } from '../support/context.js';

const running: RunningBorderd[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((r) => r.stop()));
});

describe('resource API on the real daemon', () => {
  it('serves identities created by the CLI, the network and the deprecated countries', async () => {
    const dataDir = tempDir('borderd-proc-');
    const db = join(dataDir, 'borderd.db');
    expect((await runCli(['migrate', '--db', db])).code).toBe(0);
    const orgId = JSON.parse((await runCli(['orgs', 'create', '--name', 'Acme', '--db', db, '--json'])).stdout).id as string;
    const client = JSON.parse((await runCli(['clients', 'create', '--org', orgId, '--db', db, '--json'])).stdout) as {
      id: string;
      clientSecret: string;
    };
    const d = await startBorderd({ dataDir, env: { BORDERD_NETWORK_DEPOSIT_COUNTRIES: '["MX","AR"]' } });
    running.push(d);
    const { accessToken } = await daemonToken(d, { clientId: client.id, clientSecret: client.clientSecret });
    const auth = { authorization: `Bearer ${accessToken}` };
    const created = await runCli([
      'identities',
      'create',
      '--org',
      orgId,
      '--db',
      d.dbPath,
      '--json',
      '--record',
      JSON.stringify({ type: 'Personal', data: { firstName: 'Zoë', email: 'zoe@example.com' } }),
    ]);
    expect(created.code).toBe(0);
    const list = await fetch(`${d.url}/v1/identities?name=ZO`, { headers: auth });
    expect(await list.json()).toEqual({
      hasMore: false,
      data: [
        {
          id: JSON.parse(created.stdout).id,
          type: 'Personal',
          deleted: false,
          hasComplianceChecks: false,
          data: { firstName: 'Zoë', email: 'zoe@example.com' },
        },
      ],
    });
    const countries = await fetch(`${d.url}/v1/deposits/countries`, { headers: auth });
    expect(await countries.json()).toEqual(['AR', 'MX']);
    expect(countries.headers.get('deprecation')).toMatch(/^@\d+$/);
    const network = await fetch(`${d.url}/v1/organizations/network`, { headers: auth });
    expect(((await network.json()) as { countries: string[] }).countries).toEqual(['AR', 'MX']);
  });

  it('answers identity lists and the benchmark summary from its read workers, errors included, and stops cleanly', async () => {
    const dataDir = tempDir('borderd-proc-');
    const db = join(dataDir, 'borderd.db');
    expect((await runCli(['migrate', '--db', db])).code).toBe(0);
    const orgId = JSON.parse((await runCli(['orgs', 'create', '--name', 'Acme', '--db', db, '--json'])).stdout).id as string;
    const client = JSON.parse((await runCli(['clients', 'create', '--org', orgId, '--db', db, '--json'])).stdout) as {
      id: string;
      clientSecret: string;
    };
    const redacted = JSON.parse(
      (await runCli(['clients', 'create', '--org', orgId, '--pii', 'redacted', '--db', db, '--json'])).stdout,
    ) as { id: string; clientSecret: string };
    const d = await startBorderd({ dataDir, env: { BORDERD_DATABASE_READ_WORKERS: '2' } });
    running.push(d);
    const auth = {
      authorization: `Bearer ${(await daemonToken(d, { clientId: client.id, clientSecret: client.clientSecret })).accessToken}`,
    };
    // The workers start at the first read: two more threads in the daemon (Linux shows them in /proc).
    const threads = () => readdirSync(`/proc/${d.proc.pid}/task`).length;
    const idle = threads();
    const before = await fetch(`${d.url}/v1/transactions/import-benchmark-summary`, { headers: auth });
    expect(await before.json()).toMatchObject({ hasSignal: false, sampleSize: 0 });
    expect(threads()).toBeGreaterThanOrEqual(idle + 2);

    // Written by another process after the workers opened their connections: they read it.
    const file = join(dataDir, 'tx.csv');
    writeFileSync(
      file,
      'type,status,amountUsd,costVsMarketUsd,benchmark,createdAt\nDeposit,Completed,10.5,0.25,InLine,2026-01-01T00:00:00Z\nDeposit,Completed,4,-1.5,OffMarket,2026-01-02T00:00:00Z\n',
    );
    expect((await runCli(['import', 'transactions', file, '--org', orgId, '--db', db, '--json'])).code).toBe(0);
    const after = await fetch(`${d.url}/v1/transactions/import-benchmark-summary?toDate=2026-01-01`, { headers: auth });
    expect(after.status).toBe(200);
    expect(await after.json()).toMatchObject({ sampleSize: 1, totalVolumeUsd: '10.5', inLineCount: 1, offMarketCount: 0 });
    const created = await runCli([
      'identities',
      'create',
      '--org',
      orgId,
      '--db',
      db,
      '--json',
      '--record',
      JSON.stringify({ type: 'Personal', data: { firstName: 'Ana', lastName: 'Ruiz' } }),
    ]);
    const list = await fetch(`${d.url}/v1/identities?name=ana%20r`, { headers: auth });
    expect(await list.json()).toEqual({
      hasMore: false,
      data: [
        {
          id: JSON.parse(created.stdout).id,
          type: 'Personal',
          deleted: false,
          hasComplianceChecks: false,
          data: { firstName: 'Ana', lastName: 'Ruiz' },
        },
      ],
    });

    // A refusal raised inside the read keeps its problem: 403 with the parameter named.
    const masked = {
      authorization: `Bearer ${(await daemonToken(d, { clientId: redacted.id, clientSecret: redacted.clientSecret })).accessToken}`,
    };
    const forbidden = await fetch(`${d.url}/v1/identities?name=ana`, { headers: masked });
    expect(forbidden.status).toBe(403);
    expect(await forbidden.json()).toMatchObject({ code: 'pii_filter_forbidden', errors: [{ path: 'query.name' }] });
    expect(await d.stop('SIGTERM')).toEqual({ code: 0, signal: null });
    expect(d.output()).not.toMatch(/read worker/);
  });
});
