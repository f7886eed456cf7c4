import { spawnSync } from 'node:child_process';
import { chownSync, statSync } from 'node:fs';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, makeApi, makeContext, makeOrg, tempDir } from '../support/context.js';
import { startOwnPostgres, type OwnPostgres } from '../support/own-postgres.js';

// A real "could not extend file" (SQLSTATE 53100): borderd's tables moved to a tablespace on a 2 MiB
// tmpfs, filled up. Mounting needs root, as CI and the developers' machines run; elsewhere it skips.
const probe = tempDir('borderd-mount-probe-');
const canMount = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', probe]).status === 0;
if (canMount) spawnSync('umount', [probe]);

const mounted: string[] = [];
let server: OwnPostgres | undefined;
afterEach(async () => {
  await server?.remove();
  server = undefined;
  for (const dir of mounted.splice(0)) spawnSync('umount', [dir]);
});

describe('a full disk on PostgreSQL', () => {
  it.skipIf(!canMount)(
    'answers 503 storage_full and /readyz 503 while the tablespace is full, and recovers once space returns',
    async () => {
      server = await startOwnPostgres();
      const ctx = await makeContext({ 'database.url': server.url });
      const api = makeApi(ctx);
      const org = await makeOrg(ctx, api.tokens);
      const create = () =>
        api.http
          .post('/admin/v1/transactions')
          .set('authorization', `Bearer ${ADMIN_TOKEN}`)
          .send({ orgId: org.org.id, type: 'Deposit', amount: '1.00' });
      expect((await create()).status).toBe(201);

      const admin = new pg.Client({ connectionString: server.url });
      await admin.connect();
      try {
        const dir = tempDir('borderd-tablespace-');
        expect(spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=2m', 'tmpfs', dir]).status).toBe(0);
        mounted.push(dir);
        // The tablespace's folder belongs to the server's own user, as PostgreSQL requires.
        const dataDir = (await admin.query<{ data_directory: string }>('SHOW data_directory')).rows[0]!.data_directory;
        const { uid, gid } = statSync(dataDir);
        chownSync(dir, uid, gid);
        await admin.query(`CREATE TABLESPACE tiny LOCATION '${dir}'`);
        const tables = await admin.query<{ tablename: string }>('SELECT tablename FROM pg_tables WHERE schemaname = current_schema()');
        for (const { tablename } of tables.rows) await admin.query(`ALTER TABLE ${tablename} SET TABLESPACE tiny`);
        await admin.query('CREATE TABLE filler (v text) TABLESPACE tiny');
        let fillError: { code?: string } | undefined;
        for (let i = 0; i < 2000 && !fillError; i++) {
          await admin
            .query("INSERT INTO filler SELECT string_agg(md5(random()::text), '') FROM generate_series(1, 200)")
            .catch((err: { code?: string }) => {
              fillError = err;
            });
        }
        expect(fillError?.code).toBe('53100');

        let refused: Awaited<ReturnType<typeof create>> | undefined;
        for (let i = 0; i < 200 && !refused; i++) {
          const res = await create();
          if (res.status !== 201) refused = res;
        }
        expect(refused?.status).toBe(503);
        expect(refused?.headers['retry-after']).toBe('30');
        expect(refused?.body).toMatchObject({ code: 'storage_full' });
        expect((await api.http.get('/readyz')).body).toEqual({ status: 'not ready', reason: 'storage_full' });
        expect(ctx.logs.lines.filter((l) => (l.level as number) >= 50)).toEqual([]);
        expect(ctx.logs.lines.filter((l) => l.alert === 'storage_full').map((l) => [l.state, l.code])).toEqual([['firing', '53100']]);

        await admin.query('DROP TABLE filler');
        expect((await api.http.get('/readyz')).body).toEqual({ status: 'ready' });
        expect((await create()).status).toBe(201);
        expect(ctx.logs.lines.filter((l) => l.alert === 'storage_full').map((l) => l.state)).toEqual(['firing', 'resolved']);
      } finally {
        await admin.end();
        await ctx.db.close();
      }
    },
  );
});
