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
    const orgId = JSON.parse((await runCli(['orgs', 'create', '--name', 'Acme', '--db', db, '--json'])).stdout).id as string;
    const client = JSON.parse((await runCli(['clients', 'create', '--org', orgId, '--db', db, '--json'])).stdout) as { id: string; clientSecret: string };
    const d = await startBorderd({ dataDir, env: { BORDERD_NETWORK_DEPOSIT_COUNTRIES: '["MX","AR"]' } });
    running.push(d);
    const { accessToken } = await daemonToken(d, { clientId: client.id, clientSecret: client.clientSecret });
    const auth = { authorization: `Bearer ${accessToken}` };
    const created = await runCli(['identities', 'create', '--org', orgId, '--db', d.dbPath, '--json', '--record', JSON.stringify({ type: 'Personal', data: { firstName: 'Zoë', email: 'zoe@example.com' } })]);
    expect(created.code).toBe(0);
    const list = await fetch(`${d.url}/v1/identities?name=ZO`, { headers: auth });
    expect(await list.json()).toEqual({ hasMore: false, data: [{ id: JSON.parse(created.stdout).id, type: 'Personal', deleted: false, hasComplianceChecks: false, data: { firstName: 'Zoë', email: 'zoe@example.com' } }] });
    const countries = await fetch(`${d.url}/v1/deposits/countries`, { headers: auth });
    expect(await countries.json()).toEqual(['AR', 'MX']);
    expect(countries.headers.get('deprecation')).toMatch(/^@\d+$/);
    const network = await fetch(`${d.url}/v1/organizations/network`, { headers: auth });
    expect(((await network.json()) as { countries: string[] }).countries).toEqual(['AR', 'MX']);
  });
});
