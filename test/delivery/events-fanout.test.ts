/**
 * An event's deliveries as the outbox writes them with the event (store/event-fanout.ts), on both
 * engines: one row per live webhook whose filter takes the type (the rule of
 * domain/event-type-filter), pending or skipped by its enabled flag; every webhook gets its row
 * whatever the write expected; an unknown organization writes nothing.
 */
import { describe, expect, it } from 'vitest';
import { filterTakes } from '../../src/domain/event-type-filter.js';
import { createOrganization } from '../../src/services/organizations.js';
import { emitEvent } from '../../src/services/outbox.js';
import { createWebhook, deleteWebhook } from '../../src/services/webhooks.js';
import { listWebhooks } from '../../src/store/webhooks.js';
import type { EventType } from '../../src/verify/events.js';
import { makeContext, type TestContext } from '../support/context.js';

/** The (webhook, state) rows of an event, by webhook id. */
async function rowsOf(ctx: TestContext, eventId: string): Promise<{ webhook_id: string; state: string }[]> {
  return await ctx.db.all<{ webhook_id: string; state: string }>(
    'SELECT webhook_id, state FROM deliveries WHERE event_id = ? ORDER BY webhook_id',
    [eventId],
  );
}

describe('the deliveries written with an event', () => {
  it('one per live webhook whose filter takes the type: pending when enabled, skipped when disabled', async () => {
    const ctx = await makeContext();
    const org = await createOrganization(ctx, 'Acme');
    const other = await createOrganization(ctx, 'Other');
    const hook = (eventTypes?: string[], enabled?: boolean) =>
      createWebhook(ctx, org.id, { url: 'http://127.0.0.1:9/hook', eventTypes, enabled }).then((w) => w.id);
    const all = await hook();
    const transactions = await hook(['Transaction_*']);
    const updated = await hook(['Transaction_Updated']);
    const accounts = await hook(['VirtualAccount_Created', 'VirtualAccount_CreationFailed']);
    const everything = await hook(['*']);
    const disabled = await hook(['Transaction_*'], false);
    await deleteWebhook(ctx, org.id, await hook());
    await createWebhook(ctx, other.id, { url: 'http://127.0.0.1:9/other' });
    const live = await listWebhooks(ctx.db, org.id);

    const expected: Record<string, string[]> = {
      Transaction_Updated: [all, transactions, updated, everything, disabled],
      Transaction_Created: [all, transactions, everything, disabled],
      VirtualAccount_Created: [all, accounts, everything],
      IdentityComplianceCheck_Updated: [all, everything],
    };
    for (const [type, webhooks] of Object.entries(expected)) {
      const { event } = await emitEvent(ctx, org.id, type as EventType);
      const rows = await rowsOf(ctx, event.id);
      expect(rows.map((r) => r.webhook_id)).toEqual([...webhooks].sort());
      // The same rule as the domain's filter, which picks a receiver's route.
      expect(rows.map((r) => r.webhook_id)).toEqual(live.filter((w) => filterTakes(w.eventTypes, type)).map((w) => w.id));
      expect(rows.map((r) => r.state)).toEqual(rows.map((r) => (r.webhook_id === disabled ? 'skipped' : 'pending')));
    }
  });

  it('every webhook gets its row when the organization has more than its last event took, or fewer', async () => {
    const ctx = await makeContext();
    const org = await createOrganization(ctx, 'Acme');
    const first = (await createWebhook(ctx, org.id, { url: 'http://127.0.0.1:9/0' })).id;
    expect((await rowsOf(ctx, (await emitEvent(ctx, org.id, 'Transaction_Updated')).event.id)).map((r) => r.webhook_id)).toEqual([first]);

    const more = [first];
    for (let i = 1; i <= 3; i++) more.push((await createWebhook(ctx, org.id, { url: `http://127.0.0.1:9/${i}` })).id);
    const { event } = await emitEvent(ctx, org.id, 'Transaction_Updated');
    expect((await rowsOf(ctx, event.id)).map((r) => r.webhook_id)).toEqual(more.sort());
    const ids = await ctx.db.column<string>('SELECT id FROM deliveries WHERE event_id = ?', [event.id]);
    expect(new Set(ids).size).toBe(4);

    for (const id of more.slice(1)) await deleteWebhook(ctx, org.id, id);
    const fewer = await emitEvent(ctx, org.id, 'Transaction_Updated');
    expect((await rowsOf(ctx, fewer.event.id)).map((r) => r.webhook_id)).toEqual([first]);
  });

  it('an unknown organization: not found, and nothing written', async () => {
    const ctx = await makeContext();
    const org = await createOrganization(ctx, 'Acme');
    await createWebhook(ctx, org.id, { url: 'http://127.0.0.1:9/hook' });
    await expect(emitEvent(ctx, 'org_unknown', 'Transaction_Updated')).rejects.toMatchObject({ status: 404, code: 'not_found' });
    expect(Number(await ctx.db.value('SELECT COUNT(*) FROM events'))).toBe(0);
    expect(Number(await ctx.db.value('SELECT COUNT(*) FROM deliveries'))).toBe(0);
  });
});
