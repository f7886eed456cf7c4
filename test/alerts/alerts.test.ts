import { describe, expect, it } from 'vitest';
import { checkBacklogs, checkDecryption } from '../../src/alerts/incident-watch.js';
import { prepareOperatorOrganization } from '../../src/alerts/operator-organization.js';
import { Dispatcher } from '../../src/delivery/dispatch/dispatcher.js';
import { emitEvent } from '../../src/services/outbox.js';
import { disableWebhook, enableWebhook, getPublicKey } from '../../src/services/webhooks.js';
import { listOrganizations } from '../../src/store/organizations.js';
import { getWebhookById, listWebhooks } from '../../src/store/webhooks.js';
import { ADMIN_TOKEN, makeApi, makeContext, makeOrg } from '../support/context.js';
import { signatureVerifies, startReceiver, type Received } from '../delivery/receiver.js';

interface AlertBody {
  id: string;
  type: string;
  text: string;
  organizationId: string;
  data: { alert: string; state: string; [k: string]: unknown };
}
/** The alerts a receiver got, in the order they were raised (their event ids): sends of one pass arrive in any order. */
const bodies = (r: Received[]) =>
  r.map((x) => JSON.parse(x.body.toString()) as AlertBody).sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));

/** An organization with one webhook on `endpoint`, and alerts going to a receiver of their own. */
async function setup(endpoint: Awaited<ReturnType<typeof startReceiver>>, overrides: Record<string, unknown> = {}) {
  const alerts = await startReceiver();
  const ctx = await makeContext({
    'delivery.retryScheduleSeconds': [0, 0],
    'delivery.jitter': 0,
    'alerts.webhookUrl': alerts.url,
    'alerts.backlogAgeSeconds': 600,
    ...overrides,
  });
  const api = makeApi(ctx);
  const org = await makeOrg(ctx, api.tokens);
  const created = await api.http.post('/v1/notifications/webhooks/settings').set('authorization', org.auth).send({ url: endpoint.url });
  expect(created.status).toBe(201);
  const operatorOrg = (await prepareOperatorOrganization(ctx))!;
  const dispatcher = new Dispatcher(ctx, { random: () => 0.5 });
  /** Sends everything due until nothing is. */
  const drain = async () => {
    while ((await dispatcher.runOnce()) > 0);
  };
  return { ctx, api, org, webhookId: created.body.id as string, alerts, operatorOrg, dispatcher, drain };
}

describe('operator alerts', () => {
  it('a webhook whose retries run out is disabled with its reason and time, and the operator gets one signed alert for it', async () => {
    const failing = await startReceiver((_r, res) => {
      res.statusCode = 500;
      res.end();
    });
    const { ctx, org, webhookId, alerts, operatorOrg, dispatcher, drain } = await setup(failing);
    try {
      await emitEvent(ctx, org.org.id, 'Transaction_Created');
      await emitEvent(ctx, org.org.id, 'Transaction_Created');
      await drain();
      // Two events, two attempts each (one per event was still to go when the first ran out): one alert.
      expect(failing.received.length).toBeGreaterThanOrEqual(3);
      const webhook = (await getWebhookById(ctx.db, webhookId))!;
      expect(webhook).toMatchObject({ enabled: false, disabledReason: 'all 2 attempts failed' });
      expect(webhook.disabledAt).toMatch(/^\d{4}-\d\d-\d\dT/);
      expect(alerts.received).toHaveLength(1);
      const [alert] = bodies(alerts.received);
      expect(alert).toMatchObject({
        type: 'Operator_Alert',
        organizationId: operatorOrg,
        data: { alert: 'webhook_disabled', state: 'firing', organizationId: org.org.id, webhookId, reason: 'all 2 attempts failed' },
      });
      expect(alert!.text).toBe(`borderd: webhook ${webhookId} of organization ${org.org.id} disabled: all 2 attempts failed`);
      // Signed like every delivery, with the operator organization's key.
      expect(signatureVerifies(alerts.received[0]!, (await getPublicKey(ctx, operatorOrg)).publicKey)).toBe(true);
      expect(ctx.logs.lines.filter((l) => l.alert === 'webhook_disabled')).toHaveLength(1);
      // The operator organization is borderd's own: organization lists leave it out.
      expect((await listOrganizations(ctx.db)).map((o) => o.id)).toEqual([org.org.id]);
    } finally {
      await dispatcher.stop();
    }
  });

  it("shows an operator's disable with who made it, clears it on enable, and alerts for it", async () => {
    const ok = await startReceiver();
    const { ctx, api, webhookId, alerts, dispatcher, drain } = await setup(ok);
    try {
      await disableWebhook(ctx, webhookId, 'borderd webhooks disable');
      const listed = await api.http.get('/admin/v1/webhooks').set('authorization', `Bearer ${ADMIN_TOKEN}`);
      expect(listed.status).toBe(200);
      const row = (listed.body.data as { id: string; disabledReason: string; disabledAt: string; enabled: boolean }[]).find(
        (w) => w.id === webhookId,
      );
      expect(row).toMatchObject({ enabled: false, disabledReason: 'disabled by an operator (borderd webhooks disable)' });
      expect(row!.disabledAt).toBe(new Date(ctx.clock.now()).toISOString());

      // Disabling a disabled webhook again keeps the first reason and raises nothing more.
      ctx.clock.advance(1000);
      const again = await api.http.post(`/admin/v1/webhooks/${webhookId}/disable`).set('authorization', `Bearer ${ADMIN_TOKEN}`);
      expect(again.body).toMatchObject({ enabled: false, disabledReason: 'disabled by an operator (borderd webhooks disable)' });
      await drain();
      expect(bodies(alerts.received).map((a) => a.data.reason)).toEqual(['disabled by an operator (borderd webhooks disable)']);

      await enableWebhook(ctx, webhookId);
      expect(await getWebhookById(ctx.db, webhookId)).toMatchObject({ enabled: true, disabledReason: null, disabledAt: null });
      const viaAdmin = await api.http.post(`/admin/v1/webhooks/${webhookId}/disable`).set('authorization', `Bearer ${ADMIN_TOKEN}`);
      expect(viaAdmin.body).toMatchObject({ disabledReason: 'disabled by an operator (admin API)' });
      await drain();
      expect(alerts.received).toHaveLength(2);
    } finally {
      await dispatcher.stop();
    }
  });

  it('an outbox backlog raises one alert when it passes the threshold and one when it is resolved, however often it is checked', async () => {
    const endpoint = await startReceiver((_r, res) => {
      res.statusCode = 503;
      res.end();
    });
    // Many attempts a long way apart: the delivery stays pending.
    const { ctx, org, alerts, dispatcher, drain } = await setup(endpoint, { 'delivery.retryScheduleSeconds': [0, 3600, 3600] });
    try {
      await emitEvent(ctx, org.org.id, 'Transaction_Created');
      await drain();
      await checkBacklogs(ctx);
      ctx.clock.advance(601_000);
      await checkBacklogs(ctx);
      await checkBacklogs(ctx);
      ctx.clock.advance(60_000);
      await checkBacklogs(ctx);
      await drain();
      expect(bodies(alerts.received).map((a) => [a.data.alert, a.data.state])).toEqual([['outbox_backlog', 'firing']]);
      expect(bodies(alerts.received)[0]!.data).toMatchObject({
        organizationId: org.org.id,
        oldestPendingAgeSeconds: 601,
        thresholdSeconds: 600,
      });

      // The endpoint answers again; the retry delivers the row and the backlog is gone.
      endpoint.setResponder((_r, res) => res.end('ok'));
      ctx.clock.advance(3_600_000);
      await drain();
      await checkBacklogs(ctx);
      await checkBacklogs(ctx);
      await drain();
      expect(bodies(alerts.received).map((a) => [a.data.alert, a.data.state])).toEqual([
        ['outbox_backlog', 'firing'],
        ['outbox_backlog', 'resolved'],
      ]);
    } finally {
      await dispatcher.stop();
    }
  });

  it('inbound decryption failures raise one alert per incident, not one per failed pass', async () => {
    const ok = await startReceiver();
    const { ctx, alerts, dispatcher, drain } = await setup(ok);
    try {
      await checkDecryption(ctx, { decrypted: 3, failed: 0, retry: 0 });
      await checkDecryption(ctx, { decrypted: 0, failed: 2, retry: 0 });
      await checkDecryption(ctx, { decrypted: 0, failed: 1, retry: 4 });
      await checkDecryption(ctx, { decrypted: 1, failed: 1, retry: 0 });
      await checkDecryption(ctx, { decrypted: 2, failed: 0, retry: 0 });
      await checkDecryption(ctx, { decrypted: 2, failed: 0, retry: 0 });
      await drain();
      expect(bodies(alerts.received).map((a) => [a.data.alert, a.data.state])).toEqual([
        ['inbound_decryption_failures', 'firing'],
        ['inbound_decryption_failures', 'resolved'],
      ]);
      expect(bodies(alerts.received)[0]!.data).toMatchObject({ failed: 2, retry: 0 });
    } finally {
      await dispatcher.stop();
    }
  });

  it('without alerts.webhookUrl an alert is a warning line only, and a url removed disables the alerts webhook', async () => {
    const ok = await startReceiver();
    const { ctx, operatorOrg } = await setup(ok);
    delete ctx.config.alerts.webhookUrl;
    expect(await prepareOperatorOrganization(ctx)).toBe(operatorOrg);
    const [alertsHook] = await listWebhooks(ctx.db, operatorOrg);
    expect(alertsHook).toMatchObject({ enabled: false, disabledReason: 'disabled by the configuration (alerts.webhookUrl)' });
    await checkDecryption(ctx, { failed: 1 });
    const line = ctx.logs.lines.find((l) => l.alert === 'inbound_decryption_failures');
    expect(line).toMatchObject({ level: 40, state: 'firing', failed: 1 });
  });
});
