import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Dispatcher } from '../../src/delivery/dispatch/dispatcher.js';
import { createOrganization } from '../../src/services/organizations.js';
import { createWebhook } from '../../src/services/webhooks.js';
import { emitEvent } from '../../src/services/outbox.js';
import { listDeliveries } from '../../src/store/delivery-views.js';
import { currentKeyId } from '../../src/store/webhook-keys.js';
import { makeContext, tempDir } from '../support/context.js';
import { runCli } from '../support/process.js';
import { startReceiver } from '../delivery/receiver.js';

// Needs the compiled CLI (npm run build).
describe('re-enable tooling: borderd tx / webhooks / outbox', () => {
  it('shows health, re-enables with replay, lists attempts, replays by event', async () => {
    const ctx = await makeContext({ 'delivery.retryScheduleSeconds': [0, 5], 'delivery.jitter': 0 });
    const db = ['--db', ctx.config.database.path, '--json'];
    const cli = async (...args: string[]) => {
      const r = await runCli([...args, ...db]);
      return { ...r, json: r.stdout.trim() ? JSON.parse(r.stdout) : undefined };
    };
    const receiver = await startReceiver((_r, res) => {
      res.statusCode = 500;
      res.end('down');
    });
    const org = await createOrganization(ctx, 'Acme');
    const webhook = await createWebhook(ctx, org.id, { url: receiver.url });
    const dispatcher = new Dispatcher(ctx, { random: () => 0.5 });

    // The key its receivers verify with, for the operator to hand over.
    const key = await cli('webhooks', 'public-key', '--org', org.id);
    expect(key.json).toMatchObject({ algorithm: 'RSA-SHA256', publicKey: expect.stringMatching(/^-----BEGIN PUBLIC KEY-----/) });
    expect(key.json.keyId).toBe(await currentKeyId(ctx.db, org.id));
    const pem = await runCli(['webhooks', 'public-key', '--org', org.id, '--db', ctx.config.database.path]);
    expect(pem.stdout.trim()).toBe(key.json.publicKey.trim());
    const none = await cli('webhooks', 'public-key', '--org', (await createOrganization(ctx, 'No webhooks')).id);
    expect([none.code, none.json.error.status]).toEqual([1, 404]);

    const tx = await cli(
      'tx',
      'create',
      '--org',
      org.id,
      '--type',
      'Withdrawal',
      '--amount',
      '10.25',
      '--currency',
      'USD',
      '--destination',
      '{"iban":"DE00"}',
    );
    expect(tx.code).toBe(0);
    expect(tx.json).toMatchObject({ type: 'Withdrawal', status: 'Submitted', amount: '10.25', destination: { iban: 'DE00' } });
    const illegal = await cli('tx', 'status', tx.json.id, 'Refunded');
    expect(illegal.code).toBe(1);
    expect(illegal.json.error).toMatchObject({ status: 409, code: 'illegal_status_change' });

    // The CLI wrote its rows with the system clock; bring the manual clock up to it.
    ctx.clock.set(Date.now());
    expect(await dispatcher.runOnce()).toBe(1);
    ctx.clock.advance(5000);
    await dispatcher.runOnce();
    const emitted = await cli(
      'events',
      'emit',
      '--org',
      org.id,
      '--type',
      'IdentityComplianceCheck_Completed',
      '--data',
      '{"result":"Approved"}',
    );
    expect(emitted.json).toMatchObject({ type: 'IdentityComplianceCheck_Completed', data: { result: 'Approved' } });

    const list = await cli('webhooks', 'list');
    expect(list.json).toHaveLength(1);
    expect(list.json[0]).toMatchObject({ id: webhook.id, enabled: false, failuresInARow: 2, pending: 0, lastSuccessAt: null });
    expect(list.json[0].signatureSchemes).toEqual(['x-signature', 'webhook-signature:v1']);
    const status = await cli('outbox', 'status');
    expect(status.json).toMatchObject({ failed: 1, skipped: 1, pending: 0, delivered: 0 });
    const failed = await cli('outbox', 'list', '--state', 'failed');
    expect(failed.json.data).toHaveLength(1);
    const attempts = await cli('outbox', 'attempts', failed.json.data[0].id);
    expect(attempts.json.attempts.map((a: { statusCode: number; responseBody: string }) => [a.statusCode, a.responseBody])).toEqual([
      [500, 'down'],
      [500, 'down'],
    ]);
    // The operator's view shows each attempt's headers as the endpoint got them, as the organization's view does.
    const shown = attempts.json.attempts as { requestHeaders: Record<string, string>; requestHeadersSource: string }[];
    expect(shown.map((a) => a.requestHeadersSource)).toEqual(['sent', 'sent']);
    for (const [i, a] of shown.entries()) {
      expect(Object.keys(a.requestHeaders)).toEqual(expect.arrayContaining(['x-signature', 'x-event-id', 'webhook-signature']));
      for (const [name, value] of Object.entries(a.requestHeaders))
        expect([i, name, receiver.received[i]!.headers[name]]).toEqual([i, name, value]);
    }
    const unknown = await cli('outbox', 'attempts', 'dlv_unknown');
    expect([unknown.code, unknown.json.error.code]).toEqual([1, 'not_found']);
    const refused = await cli('outbox', 'replay', '--webhook', webhook.id, '--since', '2000-01-01T00:00:00Z');
    expect(refused.code).toBe(1);
    expect(refused.json.error.code).toBe('webhook_disabled');

    receiver.setResponder((_r, res) => res.end('ok'));
    const enabled = await cli('webhooks', 'enable', webhook.id, '--replay-since', '2000-01-01T00:00:00Z');
    expect(enabled.json).toMatchObject({ webhook: { enabled: true }, replay: { events: 2, requeued: 2 } });
    ctx.clock.set(Date.now() + 10_000);
    expect(await dispatcher.runOnce()).toBe(2);
    expect((await cli('outbox', 'status')).json).toMatchObject({ delivered: 2, failed: 0, skipped: 0 });

    const again = await cli('outbox', 'replay', '--event', emitted.json.id);
    expect(again.json).toEqual({ events: 1, requeued: 1 });
    ctx.clock.set(Date.now() + 10_000);
    expect(await dispatcher.runOnce()).toBe(1);
    expect(
      receiver.received.filter((r) => r.headers['x-event-id'] === emitted.json.id && r.headers['x-delivery-attempt'] === '2'),
    ).toHaveLength(1);

    const disabled = await cli('webhooks', 'disable', webhook.id);
    expect(disabled.json.enabled).toBe(false);
    const health = (await cli('webhooks', 'list')).json[0];
    expect(health.lastSuccessAt).not.toBeNull();
    expect(health.failuresInARow).toBe(0);
    const usage = await runCli(['outbox', 'replay', '--webhook', webhook.id, '--db', ctx.config.database.path]);
    expect(usage.code).toBe(2);
  }, 60_000);

  it('refuses a replay time that is neither ISO 8601 with a zone nor a duration as bad usage (exit 2), and requeues nothing', async () => {
    const ctx = await makeContext();
    const org = await createOrganization(ctx, 'Acme');
    const webhook = await createWebhook(ctx, org.id, { url: 'http://127.0.0.1:9/hook' });
    for (const args of [
      ['outbox', 'replay', '--webhook', webhook.id, '--since', 'hello 1'],
      ['webhooks', 'enable', webhook.id, '--replay-since', 'Nov 20'],
      ['outbox', 'replay', '--webhook', webhook.id, '--since', '2026-11-20T09:00:00'],
    ]) {
      const r = await runCli([...args, '--db', ctx.config.database.path, '--json']);
      expect([r.code, r.stderr], args.join(' ')).toEqual([2, expect.stringMatching(/^borderd: --(replay-)?since [^\n]*: give [^\n]*\n$/)]);
    }
    expect(await listDeliveries(ctx.db, { limit: 1 })).toEqual([]);
  });

  it('refuses a --limit that is not a whole number from 1 to 1000000 as bad usage (exit 2), before touching the database', async () => {
    const ctx = await makeContext();
    for (const args of [
      ['outbox', 'list', '--limit', 'abc'],
      ['outbox', 'list', '--limit', '-5'],
      ['inbound', 'list', '--limit', '1.5'],
      ['outbox', 'list', '--limit', '1e20'],
      ['inbound', 'list', '--limit', '9223372036854775808'],
    ]) {
      const r = await runCli([...args, '--db', ctx.config.database.path]);
      expect([r.code, r.stderr], args.join(' ')).toEqual([
        2,
        `borderd: --limit must be a whole number from 1 to 1000000, not ${args[3]}\n`,
      ]);
    }
  });

  it('says each usage or refusal in one line: yargs choices, a field error that repeats its message, --bits', async () => {
    const ctx = await makeContext();
    const org = await createOrganization(ctx, 'Acme');
    const webhook = await createWebhook(ctx, org.id, { url: 'http://127.0.0.1:9/hook' });
    const db = ['--db', ctx.config.database.path];
    const choices = await runCli(['outbox', 'list', '--state', 'bogus', ...db]);
    expect([choices.code, choices.stderr]).toEqual([
      2,
      'borderd: --state bogus is not one of pending, delivered, failed, skipped, cancelled\n',
    ]);
    const since = await runCli(['outbox', 'replay', '--webhook', webhook.id, '--since', 'Nov 20', ...db]);
    expect([since.code, since.stderr]).toEqual([2, expect.stringMatching(/^borderd: --since Nov 20: give [^\n]*\n$/)]);
    const bits = await runCli(['keys', 'card-network', 'generate', '--org', org.id, '--bits', 'abc', ...db]);
    expect([bits.code, bits.stderr]).toEqual([2, 'borderd: --bits must be a whole number from 2048 to 8192, not abc\n']);
  });
});

describe('borderd outbox list', () => {
  it('lists newest first, pages with --starting-after, says how to get the next page, and takes --since', async () => {
    const ctx = await makeContext();
    const now = Date.now();
    const acme = await createOrganization(ctx, 'Acme');
    const globex = await createOrganization(ctx, 'Globex');
    const hooks = [
      await createWebhook(ctx, acme.id, { url: 'http://127.0.0.1:9/a' }),
      await createWebhook(ctx, globex.id, { url: 'http://127.0.0.1:9/b' }),
    ];
    // Five deliveries, 3 h to 10 min old, alternating between the two organizations.
    const ids: string[] = [];
    for (const [i, minutesAgo] of [180, 120, 60, 30, 10].entries()) {
      ctx.clock.set(now - minutesAgo * 60_000);
      const org = i % 2 === 0 ? acme : globex;
      const event = await emitEvent(ctx, org.id, 'Transaction_Created');
      const [delivery] = await listDeliveries(ctx.db, { eventId: event.event.id, limit: 1 });
      ids.push(delivery!.id);
    }
    const newestFirst = [...ids].reverse();
    const db = ['--db', ctx.config.database.path];
    const list = async (...args: string[]) => {
      const r = await runCli(['outbox', 'list', ...args, ...db, '--json']);
      expect(r.code, r.stderr).toBe(0);
      return JSON.parse(r.stdout) as { data: { id: string }[]; hasMore: boolean };
    };

    const first = await list('--limit', '2');
    expect([first.data.map((d) => d.id), first.hasMore]).toEqual([newestFirst.slice(0, 2), true]);
    const second = await list('--limit', '2', '--starting-after', newestFirst[1]!);
    expect([second.data.map((d) => d.id), second.hasMore]).toEqual([newestFirst.slice(2, 4), true]);
    const last = await list('--limit', '2', '--starting-after', newestFirst[3]!);
    expect([last.data.map((d) => d.id), last.hasMore]).toEqual([newestFirst.slice(4), false]);

    // The table ends with the command for the next page, filters kept.
    const human = await runCli(['outbox', 'list', '--limit', '2', '--state', 'pending', ...db]);
    expect(human.stdout).toContain(newestFirst[0]);
    expect(human.stdout.trim().split('\n').at(-1)).toBe(
      `more: borderd outbox list --db ${ctx.config.database.path} --state pending --limit 2 --starting-after ${newestFirst[1]}`,
    );
    const end = await runCli(['outbox', 'list', ...db]);
    expect(end.stdout).not.toContain('more:');

    // By state across organizations, and by webhook: the same order and paging.
    const pending = await list('--state', 'pending', '--limit', '3', '--starting-after', newestFirst[0]!);
    expect(pending.data.map((d) => d.id)).toEqual(newestFirst.slice(1, 4));
    const acmeOnly = await list('--webhook', hooks[0]!.id);
    expect(acmeOnly.data.map((d) => d.id)).toEqual([ids[4], ids[2], ids[0]]);

    // --since: a duration ago or an ISO 8601 time, through the CLI's one time parser.
    expect((await list('--since', '90m')).data.map((d) => d.id)).toEqual(newestFirst.slice(0, 3));
    expect((await list('--since', new Date(now - 150 * 60_000).toISOString(), '--state', 'pending')).data.map((d) => d.id)).toEqual(
      newestFirst.slice(0, 4),
    );
    const bad = await runCli(['outbox', 'list', '--since', 'yesterday', ...db]);
    expect([bad.code, bad.stderr]).toEqual([2, expect.stringMatching(/^borderd: --since yesterday: give /)]);
    const unknown = await runCli(['outbox', 'list', '--starting-after', 'dlv_nope', ...db]);
    expect([unknown.code, unknown.stderr]).toEqual([1, expect.stringContaining('dlv_nope')]);
  });

  it('--print gives one line per delivery, the next-page hint keeps the database options, and only pending rows show a next attempt', async () => {
    const ctx = await makeContext({ 'delivery.retryScheduleSeconds': [0, 5], 'delivery.jitter': 0 });
    const receiver = await startReceiver();
    const org = await createOrganization(ctx, 'Acme');
    await createWebhook(ctx, org.id, { url: receiver.url });
    const dispatcher = new Dispatcher(ctx, { random: () => 0.5 });
    const delivered = await emitEvent(ctx, org.id, 'Transaction_Created');
    expect(await dispatcher.runOnce()).toBe(1);
    const pending = await emitEvent(ctx, org.id, 'Transaction_Created');
    const ids = async (eventId: string) => (await listDeliveries(ctx.db, { eventId, limit: 1 }))[0]!.id;
    const [deliveredId, pendingId] = [await ids(delivered.event.id), await ids(pending.event.id)];
    // A path with a space: the hint quotes it for the shell.
    const cfg = join(tempDir(), 'my borderd.yaml');
    writeFileSync(cfg, `database:\n  path: ${JSON.stringify(ctx.config.database.path)}\n`);

    const printed = await runCli(['outbox', 'list', '--config', cfg, '--print', 'id']);
    expect([printed.code, printed.stderr, printed.stdout]).toEqual([0, '', `${pendingId}\n${deliveredId}\n`]);
    const states = await runCli(['outbox', 'list', '--config', cfg, '--print', 'state']);
    expect(states.stdout).toBe('pending\ndelivered\n');
    const printedPage = await runCli(['outbox', 'list', '--config', cfg, '--limit', '1', '--print', 'id']);
    expect([printedPage.stdout, printedPage.stderr]).toEqual([
      `${pendingId}\n`,
      `borderd: more: borderd outbox list --config '${cfg}' --limit 1 --starting-after ${pendingId}\n`,
    ]);
    const paged = await runCli(['outbox', 'list', '--config', cfg, '--limit', '1']);
    expect(paged.stdout.trim().split('\n').at(-1)).toBe(
      `more: borderd outbox list --config '${cfg}' --limit 1 --starting-after ${pendingId}`,
    );
    const table = (await runCli(['outbox', 'list', '--config', cfg])).stdout.trim().split('\n');
    const header = table[0]!.split(/\s+/);
    const cell = (id: string, column: string) => table.find((l) => l.startsWith(id))!.split(/\s+/)[header.indexOf(column)];
    expect(cell(deliveredId, 'state')).toBe('delivered');
    expect(cell(deliveredId, 'nextAttemptAt')).toBe('-');
    expect(cell(pendingId, 'nextAttemptAt')).toMatch(/^\d{4}-\d\d-\d\dT/);
    await dispatcher.stop();
  });
});
