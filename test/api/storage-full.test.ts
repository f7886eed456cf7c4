import { describe, expect, it } from 'vitest';
import { prepareOperatorOrganization } from '../../src/alerts/operator-organization.js';
import { isStorageFull } from '../../src/db/database.js';
import { createMetricsWorker } from '../../src/metrics/metrics-worker.js';
import { committedEvents } from '../support/events.js';
import { ADMIN_TOKEN, makeApi, makeContext, makeOrg } from '../support/context.js';
import { onPostgres } from '../support/postgres.js';

const admin = `Bearer ${ADMIN_TOKEN}`;

describe('a full database or disk', () => {
  it('tells SQLite, file-system and PostgreSQL disk-full errors from the rest', () => {
    expect(isStorageFull(Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' }))).toBe(true);
    expect(isStorageFull(Object.assign(new Error('write failed'), { code: 'ENOSPC' }))).toBe(true);
    // What node-postgres throws: the SQLSTATE in `code`, the server's message.
    expect(
      isStorageFull(Object.assign(new Error('could not extend file "base/16384/16417": No space left on device'), { code: '53100' })),
    ).toBe(true);
    expect(
      isStorageFull(Object.assign(new Error('could not extend file "base/16384/16417": wrote only 4096 of 8192 bytes'), { code: 'XX000' })),
    ).toBe(true);
    expect(isStorageFull(Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' }))).toBe(false);
    expect(isStorageFull(Object.assign(new Error('too many connections'), { code: '53300' }))).toBe(false);
    expect(isStorageFull(new Error('boom'))).toBe(false);
  });

  // max_page_count makes SQLite refuse to grow the file with its real SQLITE_FULL, as a full disk does.
  it.skipIf(onPostgres)(
    'answers 503 storage_full with Retry-After and /readyz 503 while it lasts, says it once, shows it in a metric, and recovers without a restart',
    async () => {
      const ctx = await makeContext({ 'alerts.webhookUrl': 'https://alerts.example.com/borderd' });
      const api = makeApi(ctx);
      const org = await makeOrg(ctx, api.tokens);
      const operatorOrg = (await prepareOperatorOrganization(ctx))!;
      const metrics = createMetricsWorker(ctx, () => 0);
      await metrics.start();
      const create = () =>
        api.http.post('/admin/v1/transactions').set('authorization', admin).send({ orgId: org.org.id, type: 'Deposit', amount: '1.00' });
      try {
        expect((await create()).status).toBe(201);
        const pages = Number(await ctx.db.value('PRAGMA page_count'));
        await ctx.db.value(`PRAGMA max_page_count = ${pages}`);
        const refused = [];
        for (let i = 0; i < 500 && refused.length < 3; i++) {
          const res = await create();
          if (res.status !== 201) refused.push(res);
        }
        expect(refused).toHaveLength(3);
        for (const res of refused) {
          expect(res.status).toBe(503);
          expect(res.headers['content-type']).toContain('application/problem+json');
          expect(res.headers['retry-after']).toBe('30');
          expect(res.body).toMatchObject({ code: 'storage_full', status: 503, type: 'urn:borderd:problem:storage_full' });
        }
        const notReady = await api.http.get('/readyz');
        expect(notReady.status).toBe(503);
        expect(notReady.body).toEqual({ status: 'not ready', reason: 'storage_full' });
        expect(await metrics.collect()).toMatch(/^borderd_storage_full 1$/m);
        // Once per incident, and no error with a stack per refused write.
        expect(ctx.logs.lines.filter((l) => (l.level as number) >= 50)).toEqual([]);
        expect(ctx.logs.lines.filter((l) => l.alert === 'storage_full').map((l) => [l.level, l.state, l.code])).toEqual([
          [40, 'firing', 'SQLITE_FULL'],
        ]);

        // Space returns: readiness finds it by itself, and writes go through again.
        await ctx.db.value('PRAGMA max_page_count = 1073741823');
        expect((await api.http.get('/readyz')).body).toEqual({ status: 'ready' });
        expect((await create()).status).toBe(201);
        expect(await metrics.collect()).toMatch(/^borderd_storage_full 0$/m);
        const said = ctx.logs.lines.filter((l) => l.alert === 'storage_full');
        expect(said.map((l) => l.state)).toEqual(['firing', 'resolved']);
        expect(said[1]).toMatchObject({ refusedWrites: 3, code: 'SQLITE_FULL' });
        // The operator alert goes out once the alert path can write: here the resolution at least.
        const alerts = (await committedEvents(ctx.db, operatorOrg)).map((e) => JSON.parse(e.body) as { data: Record<string, unknown> });
        expect(alerts.map((a) => a.data)).toContainEqual(
          expect.objectContaining({ alert: 'storage_full', state: 'resolved', refusedWrites: 3 }),
        );
      } finally {
        await metrics.stop();
      }
    },
  );
});
