/**
 * The `webhooks` table: an organization's endpoints, their url and enabled flag. A deleted webhook
 * is kept (deleted_at) so its deliveries stay readable; every read here leaves it out. The enabled
 * flag moves only through delivery/webhook-state.
 *
 * @module store/webhooks
 */
import { sql, type Db } from '../db/database.js';
import { FOR_NO_KEY_UPDATE, JSON_LIST } from '../db/dialect.js';

/**
 * The order a webhook's deliveries go out in: `none`, any order (several sends at once);
 * `resource`, each resource's events (the event's `data.id`) in commit order; `webhook`, every
 * event in commit order, one send at a time.
 */
export const WEBHOOK_ORDERINGS = ['none', 'resource', 'webhook'] as const;
export type WebhookOrdering = (typeof WEBHOOK_ORDERINGS)[number];

export interface WebhookSettings {
  id: string;
  url: string;
  enabled: boolean;
  /** The event types sent to this webhook (exact, or a prefix ending in `*`); empty sends every type. */
  eventTypes: string[];
  ordering: WebhookOrdering;
  createdAt: string;
  updatedAt: string;
}

export interface WebhookRecord extends WebhookSettings {
  orgId: string;
  /** Why it was disabled (the dispatcher's reason, or who disabled it); null while enabled. */
  disabledReason: string | null;
  /** When it was disabled; null while enabled. */
  disabledAt: string | null;
}

interface Row {
  id: string;
  org_id: string;
  url: string;
  enabled: number;
  disabled_reason: string | null;
  event_types: string | null;
  ordering: WebhookOrdering;
  disabled_at: string | null;
  created_at: string;
  updated_at: string;
}

const toRecord = (r: Row): WebhookRecord => ({
  id: r.id,
  orgId: r.org_id,
  url: r.url,
  enabled: r.enabled === 1,
  disabledReason: r.disabled_reason,
  eventTypes: r.event_types ? (JSON.parse(r.event_types) as string[]) : [],
  ordering: r.ordering,
  disabledAt: r.disabled_at,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

/** The public WebhookSettings shape (spec): no internal fields. */
export const toSettings = (w: WebhookRecord): WebhookSettings => ({
  id: w.id,
  url: w.url,
  enabled: w.enabled,
  eventTypes: w.eventTypes,
  ordering: w.ordering,
  createdAt: w.createdAt,
  updatedAt: w.updatedAt,
});

export async function insertWebhook(db: Db, w: WebhookRecord): Promise<void> {
  await db.run(
    'INSERT INTO webhooks (id, org_id, url, enabled, disabled_reason, disabled_at, event_types, ordering, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
    [
      w.id,
      w.orgId,
      w.url,
      w.enabled ? 1 : 0,
      w.enabled ? null : w.disabledReason,
      w.enabled ? null : w.createdAt,
      eventTypesColumn(w.eventTypes),
      w.ordering,
      w.createdAt,
      w.updatedAt,
    ],
  );
}

/** The stored form of a filter: NULL for "every type", so the common case reads no JSON. */
const eventTypesColumn = (types: readonly string[]): string | null => (types.length ? JSON.stringify(types) : null);

/** Sets a webhook's event-type filter (empty: every type). */
export async function setWebhookEventTypes(db: Db, id: string, types: readonly string[], updatedAt: string): Promise<void> {
  await db.run('UPDATE webhooks SET event_types = ?, updated_at = ? WHERE id = ?', [eventTypesColumn(types), updatedAt, id]);
}

/** Sets the order a webhook's deliveries go out in; it applies to what is queued already. */
export async function setWebhookOrdering(db: Db, id: string, ordering: WebhookOrdering, updatedAt: string): Promise<void> {
  await db.run('UPDATE webhooks SET ordering = ?, updated_at = ? WHERE id = ?', [ordering, updatedAt, id]);
}

/** A live webhook of this organization (another organization's id is as good as unknown). */
export async function getWebhook(db: Db, orgId: string, id: string): Promise<WebhookRecord | undefined> {
  const row = (await db.get('SELECT * FROM webhooks WHERE org_id = ? AND id = ? AND deleted_at IS NULL', [orgId, id])) as Row | undefined;
  return row && toRecord(row);
}

/** Operator lookup, across organizations. */
export async function getWebhookById(db: Db, id: string): Promise<WebhookRecord | undefined> {
  const row = (await db.get('SELECT * FROM webhooks WHERE id = ? AND deleted_at IS NULL', [id])) as Row | undefined;
  return row && toRecord(row);
}

export async function listWebhooks(db: Db, orgId?: string): Promise<WebhookRecord[]> {
  const rows = orgId
    ? await db.all('SELECT * FROM webhooks WHERE org_id = ? AND deleted_at IS NULL ORDER BY id', [orgId])
    : await db.all('SELECT * FROM webhooks WHERE deleted_at IS NULL ORDER BY id');
  return (rows as Row[]).map(toRecord);
}

/**
 * The url and flag. Enabling clears the reason and time; disabling sets them, and a webhook that
 * was disabled already keeps its first reason and time (a url change while disabled, say).
 */
export async function updateWebhook(
  db: Db,
  id: string,
  url: string,
  enabled: boolean,
  disabledReason: string | null,
  updatedAt: string,
): Promise<void> {
  await db.run(
    `UPDATE webhooks SET url = ?, enabled = ?,
       disabled_reason = CASE WHEN ? = 1 THEN NULL WHEN enabled = 0 THEN disabled_reason ELSE ? END,
       disabled_at = CASE WHEN ? = 1 THEN NULL WHEN enabled = 0 THEN disabled_at ELSE ? END,
       updated_at = ? WHERE id = ?`,
    [url, enabled ? 1 : 0, enabled ? 1 : 0, disabledReason, enabled ? 1 : 0, updatedAt, updatedAt, id],
  );
}

/**
 * Inside a write transaction: locks these webhooks' rows, in id order, as an UPDATE of them would
 * (PostgreSQL). Every change to a webhook locks its row before its deliveries (delivery/webhook-state),
 * so a transaction that writes deliveries first and may change their webhook after (a result batch
 * that disables it) takes these first, and never holds a delivery a change to the webhook waits for
 * while it waits for that change. On SQLite, which runs write transactions one at a time, a plain read.
 */
export async function lockWebhooks(db: Db, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return;
  await db.column(sql`SELECT id FROM webhooks WHERE id IN (${JSON_LIST}) ORDER BY id ${FOR_NO_KEY_UPDATE}`, [
    JSON.stringify([...new Set(ids)]),
  ]);
}

export async function markWebhookDeleted(db: Db, id: string, at: string): Promise<void> {
  await db.run('UPDATE webhooks SET deleted_at = ?, enabled = 0, updated_at = ? WHERE id = ?', [at, at, id]);
}

export async function countWebhooks(db: Db, orgId: string): Promise<number> {
  return ((await db.get('SELECT COUNT(*) AS n FROM webhooks WHERE org_id = ? AND deleted_at IS NULL', [orgId])) as { n: number }).n;
}

/** Live webhooks by their flag. Bounded by webhooks.maxPerOrganization per organization, so the walk stays small. */
export async function countWebhooksByState(db: Db): Promise<{ enabled: number; disabled: number }> {
  const rows = (await db.all('SELECT enabled, COUNT(*) AS n FROM webhooks WHERE deleted_at IS NULL GROUP BY enabled')) as {
    enabled: number;
    n: number;
  }[];
  const counts = { enabled: 0, disabled: 0 };
  for (const r of rows) counts[Number(r.enabled) === 1 ? 'enabled' : 'disabled'] += Number(r.n);
  return counts;
}
