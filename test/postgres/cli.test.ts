import { describe, expect, it } from 'vitest';
import { listMigrations } from '../../src/db/migrate.js';
import { freshPostgresDatabase } from '../support/postgres.js';
import { runCli } from '../support/process.js';
import { tempDir } from '../support/context.js';

// Needs the compiled CLI (npm run build). Every command group that works on the database, on PostgreSQL.
describe('borderd commands on PostgreSQL', () => {
  it('runs the admin commands against a database URL as they run against a SQLite file', async () => {
    const url = await freshPostgresDatabase();
    const env = { BORDERD_DATA_DIR: tempDir() };
    const cli = async (...args: string[]): Promise<unknown> => {
      const res = await runCli([...args, '--database-url', url, '--json'], env);
      expect(res.code, `${args.join(' ')}: ${res.stderr}`).toBe(0);
      return JSON.parse(res.stdout) as unknown;
    };
    const migrated = await cli('migrate');
    // Already migrated by the test database's setup: the newest version, nothing applied.
    expect(migrated).toMatchObject({ version: listMigrations('postgres').at(-1)!.version, applied: [] });
    const org = (await cli('orgs', 'create', '--name', 'Acme')) as { id: string };
    const client = (await cli('clients', 'create', '--org', org.id)) as { id: string; clientSecret: string };
    expect(client.clientSecret).toMatch(/^bsk_/);
    expect((await cli('orgs', 'list')) as unknown[]).toHaveLength(1);
    const tx = (await cli('tx', 'create', '--org', org.id, '--type', 'Withdrawal', '--amount', '10.00', '--currency', 'USDC')) as {
      id: string;
      status: string;
    };
    expect(tx.status).toBe('Submitted');
    expect(await cli('tx', 'status', tx.id, 'Failed', '--failure-reason', 'refused')).toMatchObject({ id: tx.id, status: 'Failed' });
    expect(await cli('outbox', 'status')).toMatchObject({ pending: 0, skipped: 0 });
    expect(await cli('webhooks', 'list')).toEqual([]);
    expect(await cli('inbound', 'list')).toEqual([]);
    const key = (await cli('keys', 'card-network', 'generate', '--org', org.id)) as { kid: string };
    expect((await cli('keys', 'card-network', 'list')) as { kid: string }[]).toEqual([expect.objectContaining({ kid: key.kid })]);
    expect(await cli('outbox', 'prune')).toMatchObject({ deliveriesDeleted: 0, eventsDeleted: 0 });
  });
});
