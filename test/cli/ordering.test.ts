/**
 * Ordered delivery on the command line: `webhooks ordering` sets it (a bad value is one line, exit
 * 2), `webhooks list` shows it, `outbox blocked` lists a resource held by its failing head, and
 * `outbox skip` / `outbox cancel` release it. Needs the compiled CLI (npm run build).
 */
import { describe, expect, it } from 'vitest';
import { Dispatcher } from '../../src/delivery/dispatch/dispatcher.js';
import { enqueueEvent, inOutboxTransaction } from '../../src/delivery/enqueue.js';
import { createOrganization } from '../../src/services/organizations.js';
import { createWebhook } from '../../src/services/webhooks.js';
import { listDeliveries } from '../../src/store/delivery-views.js';
import type { EventDataByType } from '../../src/verify/events.js';
import { startReceiver } from '../delivery/receiver.js';
import { makeContext } from '../support/context.js';
import { runCli } from '../support/process.js';
import { onPostgres } from '../support/postgres.js';

describe.skipIf(onPostgres)('borderd webhooks ordering, outbox blocked, skip and cancel', () => {
  it('sets and shows the ordering, refuses an unknown one, lists the blocked resource and releases its head', async () => {
    const ctx = await makeContext({ 'delivery.retryScheduleSeconds': [0, 5, 60], 'delivery.jitter': 0 });
    const db = ['--db', ctx.config.database.path];
    const cli = async (...args: string[]) => {
      const r = await runCli([...args, ...db, '--json']);
      return { ...r, json: r.stdout.trim() ? JSON.parse(r.stdout) : undefined };
    };
    const receiver = await startReceiver((_r, res) => res.writeHead(500).end('down'));
    const org = await createOrganization(ctx, 'Acme');
    const webhook = await createWebhook(ctx, org.id, { url: receiver.url });

    const bad = await runCli(['webhooks', 'ordering', webhook.id, 'fifo', ...db]);
    expect(bad.code).toBe(2);
    expect(bad.stderr.trim().split('\n')).toHaveLength(1);
    expect(bad.stderr).toMatch(/fifo/);
    expect(bad.stderr).toMatch(/not one of none, resource, webhook/);
    const set = await cli('webhooks', 'ordering', webhook.id, 'resource');
    expect(set.code).toBe(0);
    expect(set.json).toMatchObject({ id: webhook.id, ordering: 'resource' });
    expect((await cli('webhooks', 'list')).json).toEqual([expect.objectContaining({ id: webhook.id, ordering: 'resource' })]);

    const data = { id: 'txn_cli', status: 'Processing' } as unknown as EventDataByType['Transaction_Updated'];
    for (let i = 0; i < 3; i++) await inOutboxTransaction(ctx, (c) => enqueueEvent(c, org.id, 'Transaction_Updated', data));
    await new Dispatcher(ctx, { random: () => 0.5 }).runOnce();
    expect(receiver.received).toHaveLength(1);
    const [head, next] = (await listDeliveries(ctx.db, { webhookId: webhook.id, limit: 10 })).map((d) => d.id);

    const blocked = await cli('outbox', 'blocked');
    expect(blocked.json).toEqual([expect.objectContaining({ webhookId: webhook.id, resource: 'txn_cli', headId: head, waiting: 2 })]);
    const skipped = await cli('outbox', 'skip', head!);
    expect(skipped.code).toBe(0);
    expect(skipped.json).toMatchObject({ id: head, state: 'skipped' });
    const again = await runCli(['outbox', 'cancel', head!, ...db]);
    expect(again.code).toBe(1);
    expect(again.stderr.trim().split('\n')).toEqual([`borderd: delivery ${head} is skipped; only a pending delivery can be cancelled`]);
    const cancelled = await cli('outbox', 'cancel', next!);
    expect(cancelled.json).toMatchObject({ id: next, state: 'cancelled', waitingBehind: null });
  }, 120_000);
});
