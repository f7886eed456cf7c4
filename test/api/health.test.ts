import { describe, expect, it } from 'vitest';
import { makeApi, makeContext } from '../support/context.js';
import { forgetNewestMigration } from '../support/schema-migrations.js';

describe('/healthz and /readyz', () => {
  it('is ready only while the database answers and has every migration', async () => {
    const ctx = await makeContext();
    const { http } = makeApi(ctx);
    expect((await http.get('/healthz')).body).toEqual({ status: 'ok' });
    expect((await http.get('/readyz')).body).toEqual({ status: 'ready' });

    await forgetNewestMigration(ctx.db);
    const behind = await http.get('/readyz');
    expect(behind.status).toBe(503);
    expect(behind.body).toEqual({ status: 'not ready' });

    await ctx.db.close();
    expect((await http.get('/readyz')).status).toBe(503);
    expect((await http.get('/healthz')).status).toBe(200); // alive, just not ready
  });

  it('ignores a query parameter, as load balancers and probes add them', async () => {
    const { http } = makeApi(await makeContext());
    expect((await http.get('/healthz?probe=lb')).status).toBe(200);
    expect((await http.head('/readyz?_=1')).status).toBe(200);
  });
});
