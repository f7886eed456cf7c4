import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { listMigrations } from '../../src/db/migrate.js';
import { getApiClientWithHash } from '../../src/store/api-clients.js';
import { describe, expect, it } from 'vitest';
import { runCli } from '../support/process.js';
import { openSqlite, tempDir } from '../support/context.js';

describe('borderd orgs and clients', () => {
  it('creates, lists and revokes with --json', async () => {
    const db = join(tempDir(), 'cli.db');
    expect((await runCli(['migrate', '--db', db])).code).toBe(0);
    const org = await runCli(['orgs', 'create', '--name', 'Acme Payments', '--db', db, '--json']);
    expect(org.code).toBe(0);
    const created = JSON.parse(org.stdout) as { id: string; name: string };
    expect(created.id).toMatch(/^org_/);
    expect(created.name).toBe('Acme Payments');

    const client = await runCli(['clients', 'create', '--org', created.id, '--pii', 'redacted', '--db', db, '--json']);
    expect(client.code).toBe(0);
    const c = JSON.parse(client.stdout) as { id: string; clientSecret: string; piiAccess: string; orgId: string };
    expect(c).toMatchObject({ orgId: created.id, piiAccess: 'redacted' });
    expect(c.clientSecret).toMatch(/^bsk_/);
    // At rest only the scrypt hash: no byte of the database file, nor of its WAL, holds the secret.
    const sqlite = openSqlite(db, { readonly: true });
    expect((await getApiClientWithHash(sqlite, c.id))?.secretHash).toMatch(/^scrypt\$/);
    await sqlite.close();
    for (const file of [db, `${db}-wal`].filter((f) => existsSync(f)))
      expect(readFileSync(file).includes(c.clientSecret.slice(4)), file).toBe(false);

    const list = JSON.parse((await runCli(['clients', 'list', '--db', db, '--json'])).stdout) as { id: string; revokedAt: string | null }[];
    expect(list).toHaveLength(1);
    expect(list[0]).not.toHaveProperty('clientSecret');
    expect(list[0]!.revokedAt).toBeNull();

    const revoked = JSON.parse((await runCli(['clients', 'revoke', c.id, '--db', db, '--json'])).stdout) as { revokedAt: string };
    expect(revoked.revokedAt).toMatch(/^\d{4}-\d\d-\d\dT/);

    const orgs = JSON.parse((await runCli(['orgs', 'list', '--db', db, '--json'])).stdout) as { id: string }[];
    expect(orgs.map((o) => o.id)).toEqual([created.id]);
  });

  it('fails clearly for an unknown organization and a bad config', async () => {
    const db = join(tempDir(), 'cli.db');
    expect((await runCli(['migrate', '--db', db])).code).toBe(0);
    const missing = await runCli(['clients', 'create', '--org', 'org_nope', '--db', db]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('organization org_nope was not found');
    const bad = await runCli(['orgs', 'list', '--db', db], { BORDERD_SERVER_PORT: 'x' });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/invalid config: server\.port/);
    // Every error at once, one line each: a config is not fixed one error per start.
    const two = await runCli(['orgs', 'list', '--db', db], { BORDERD_SERVER_PORT: 'x', BORDERD_LOG_LEVEL: 'loud' });
    expect(two.code).toBe(2);
    expect(two.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(/^borderd: invalid config: server\.port: .*BORDERD_SERVER_PORT/),
      expect.stringMatching(/^borderd: invalid config: log\.level: .*BORDERD_LOG_LEVEL/),
    ]);
  });

  it('migrates on demand, twice without harm', async () => {
    const db = join(tempDir(), 'm.db');
    const a = await runCli(['migrate', '--db', db, '--json']);
    const b = await runCli(['migrate', '--db', db, '--json']);
    expect(a.code).toBe(0);
    const all = listMigrations().map((m) => ({ version: m.version, name: m.name }));
    expect(JSON.parse(a.stdout)).toEqual({ version: all.at(-1)!.version, applied: all });
    expect(JSON.parse(b.stdout)).toEqual({ version: all.at(-1)!.version, applied: [] });
  });
});
