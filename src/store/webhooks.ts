/**
 * The `webhooks` table: an organization's endpoints, their url and enabled flag. A deleted webhook
 * is kept (deleted_at) so its deliveries stay readable; every read here leaves it out. The enabled
 * flag moves only through delivery/webhook-state.
 *
 * @module store/webhooks
 */
import type { Db } from '../db/open.js';

export interface WebhookSettings {
  id: string;
  url: string;
  enabled: boolean;
  createdAt: string;
  updatedAt: string;
}

export interface WebhookRecord extends WebhookSettings {
  orgId: string;
  disabledReason: string | null;
}

interface Row {
  id: string;
  org_id: string;
  url: string;
  enabled: number;
  disabled_reason: string | null;
  created_at: string;
  updated_at: string;
}

const toRecord = (r: Row): WebhookRecord => ({
  id: r.id,
  orgId: r.org_id,
  url: r.url,
  enabled: r.enabled === 1,
  disabledReason: r.disabled_reason,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

/** The public WebhookSettings shape (spec): no internal fields. */
export const toSettings = (w: WebhookRecord): WebhookSettings => ({
  id: w.id,
  url: w.url,
  enabled: w.enabled,
  createdAt: w.createdAt,
  updatedAt: w.updatedAt,
});

export function insertWebhook(db: Db, w: WebhookRecord): void {
  db.prepare(
    'INSERT INTO webhooks (id, org_id, url, enabled, disabled_reason, created_at, updated_at) VALUES (?, ?, ?, ?, NULL, ?, ?)',
  ).run(w.id, w.orgId, w.url, w.enabled ? 1 : 0, w.createdAt, w.updatedAt);
}

/** A live webhook of this organization (another organization's id is as good as unknown). */
export function getWebhook(db: Db, orgId: string, id: string): WebhookRecord | undefined {
  const row = db.prepare('SELECT * FROM webhooks WHERE org_id = ? AND id = ? AND deleted_at IS NULL').get(orgId, id) as Row | undefined;
  return row && toRecord(row);
}

/** Operator lookup, across organizations. */
export function getWebhookById(db: Db, id: string): WebhookRecord | undefined {
  const row = db.prepare('SELECT * FROM webhooks WHERE id = ? AND deleted_at IS NULL').get(id) as Row | undefined;
  return row && toRecord(row);
}

export function listWebhooks(db: Db, orgId?: string): WebhookRecord[] {
  const rows = orgId
    ? db.prepare('SELECT * FROM webhooks WHERE org_id = ? AND deleted_at IS NULL ORDER BY id').all(orgId)
    : db.prepare('SELECT * FROM webhooks WHERE deleted_at IS NULL ORDER BY id').all();
  return (rows as Row[]).map(toRecord);
}

export function updateWebhook(db: Db, id: string, url: string, enabled: boolean, disabledReason: string | null, updatedAt: string): void {
  db.prepare('UPDATE webhooks SET url = ?, enabled = ?, disabled_reason = ?, updated_at = ? WHERE id = ?').run(
    url,
    enabled ? 1 : 0,
    disabledReason,
    updatedAt,
    id,
  );
}

export function markWebhookDeleted(db: Db, id: string, at: string): void {
  db.prepare('UPDATE webhooks SET deleted_at = ?, enabled = 0, updated_at = ? WHERE id = ?').run(at, at, id);
}

export function countWebhooks(db: Db, orgId: string): number {
  return (db.prepare('SELECT COUNT(*) AS n FROM webhooks WHERE org_id = ? AND deleted_at IS NULL').get(orgId) as { n: number }).n;
}
