/**
 * Operator alerts: what borderd tells the people who run it, without a shell on the host. Each
 * alert is one warning line in the log and, when alerts.webhookUrl is set, an `Operator_Alert`
 * event of the operator organization (src/alerts/operator-organization.ts), written inside the
 * transaction that decided it and delivered through the same outbox as every event: signed,
 * retried, recorded. Alerts go once per incident: a webhook is disabled once per disabling; a
 * backlog and decryption failures open an incident (kept in the database, so several processes
 * agree) that raises one alert and one more when it is resolved.
 *
 * @module alerts/alerts
 */
import type { AppContext, WebhookDisabledHook } from '../context.js';
import { enqueueShapedEvent } from '../delivery/enqueue.js';
import type { EventHead } from '../delivery/events.js';
import { operatorOrganizationId } from '../store/organizations.js';

/** The event type of an operator alert. */
export const OPERATOR_ALERT = 'Operator_Alert';

export type AlertKind = 'webhook_disabled' | 'outbox_backlog' | 'inbound_decryption_failures' | 'storage_full';

export interface Alert {
  alert: AlertKind;
  /** `firing` when the incident opens (a disabling is only that), `resolved` when it is over. */
  state: 'firing' | 'resolved';
  /** One line for people: the log message and, prefixed with `borderd: `, the body's `text`. */
  summary: string;
  /** Ids and figures of the incident; ids, never records or secrets. */
  details: Record<string, string | number | null>;
}

/** The body of an alert event: an event's head, a Slack-compatible `text`, and the alert's fields. */
export interface AlertEvent extends EventHead {
  text: string;
  data: { alert: AlertKind; state: 'firing' | 'resolved' } & Alert['details'];
}

/** Inside the caller's transaction: the warning line, and the alert event when there is an operator organization. */
export async function raiseAlert(ctx: AppContext, a: Alert): Promise<AlertEvent | undefined> {
  ctx.log.warn({ alert: a.alert, state: a.state, ...a.details }, a.summary);
  const operatorOrg = await operatorOrganizationId(ctx.db);
  if (operatorOrg === undefined) return undefined;
  return enqueueShapedEvent(ctx, operatorOrg, OPERATOR_ALERT, (head) => ({
    ...head,
    text: `borderd: ${a.summary}`,
    data: { alert: a.alert, state: a.state, ...a.details },
  }));
}

/** The webhookDisabledHooks entry: an alert for every webhook disabled, but the alerts webhook's own (it could not carry it). */
export const alertOnWebhookDisabled: WebhookDisabledHook = async ({ ctx, webhook, reason, at }) => {
  if (webhook.orgId === (await operatorOrganizationId(ctx.db))) {
    ctx.log.warn(
      { alert: 'webhook_disabled', webhookId: webhook.id, reason },
      'the alerts webhook (alerts.webhookUrl) is disabled: operator alerts are logged only until it is enabled again',
    );
    return;
  }
  await raiseAlert(ctx, {
    alert: 'webhook_disabled',
    state: 'firing',
    summary: `webhook ${webhook.id} of organization ${webhook.orgId} disabled: ${reason}`,
    details: { organizationId: webhook.orgId, webhookId: webhook.id, reason, disabledAt: at },
  });
};
