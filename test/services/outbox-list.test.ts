import { describe, expect, it } from 'vitest';
import { createOrganization } from '../../src/services/organizations.js';
import { emitEvent, listOutbox } from '../../src/services/outbox.js';
import { createWebhook } from '../../src/services/webhooks.js';
import { makeContext } from '../support/context.js';

// The operator's list of deliveries (borderd outbox list), on both engines: newest first, paged by
// startingAfter with hasMore, filtered by state, webhook and creation time.
describe('listOutbox', () => {
  it('pages newest first across organizations, by state, webhook and since', async () => {
    const ctx = await makeContext({}, '2026-11-20T00:00:00.000Z');
    const a = await createOrganization(ctx, 'A');
    const b = await createOrganization(ctx, 'B');
    const hooks = [
      await createWebhook(ctx, a.id, { url: 'http://127.0.0.1:9/a' }),
      await createWebhook(ctx, b.id, { url: 'http://127.0.0.1:9/b' }),
    ];
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      ctx.clock.advance(60_000);
      const { event } = await emitEvent(ctx, i % 2 === 0 ? a.id : b.id, 'Transaction_Created');
      ids.push((await listOutbox(ctx, { limit: 1 })).data[0]!.id);
      expect((await listOutbox(ctx, { limit: 1 })).data[0]!.eventId).toBe(event.id);
    }
    const newest = [...ids].reverse();
    const page = (q: Parameters<typeof listOutbox>[1]) => listOutbox(ctx, q).then((p) => [p.data.map((d) => d.id), p.hasMore]);

    expect(await page({ limit: 2 })).toEqual([newest.slice(0, 2), true]);
    expect(await page({ limit: 2, startingAfter: newest[1] })).toEqual([newest.slice(2, 4), true]);
    expect(await page({ limit: 2, startingAfter: newest[3] })).toEqual([newest.slice(4), false]);
    expect(await page({ state: 'pending', limit: 10, startingAfter: newest[0] })).toEqual([newest.slice(1), false]);
    expect(await page({ state: 'delivered', limit: 10 })).toEqual([[], false]);
    expect(await page({ webhookId: hooks[1]!.id, limit: 10 })).toEqual([[ids[3], ids[1]], false]);
    // Created at minutes 1 to 5: since minute 3 takes the last three.
    expect(await page({ since: '2026-11-20T00:03:00.000Z', limit: 10 })).toEqual([newest.slice(0, 3), false]);
    expect(await page({ since: '2026-11-20T00:03:00.000Z', state: 'pending', limit: 2 })).toEqual([newest.slice(0, 2), true]);
    await expect(listOutbox(ctx, { limit: 1, startingAfter: 'dlv_nope' })).rejects.toMatchObject({ status: 400, code: 'invalid_cursor' });
  });
});
