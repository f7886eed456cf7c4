import type { Db } from '../db/open.js';

export const DELIVERY_STATES = ['pending', 'delivered', 'failed', 'skipped', 'cancelled'] as const;
export type DeliveryState = (typeof DELIVERY_STATES)[number];

export interface Delivery {
  id: string;
  eventId: string;
  webhookId: string;
  orgId: string;
  state: DeliveryState;
  attempts: number;
  step: number;
  nextAttemptAt: string;
  lastStatus: number | null;
  lastError: string | null;
  deliveredAt: string | null;
  createdAt: string;
  updatedAt: string;
}

interface Row {
  id: string;
  event_id: string;
  webhook_id: string;
  org_id: string;
  state: DeliveryState;
  attempts: number;
  step: number;
  next_attempt_at: number;
  claimed_by: string | null;
  lease_until: number | null;
  last_status: number | null;
  last_error: string | null;
  delivered_at: string | null;
  created_at: string;
  updated_at: string;
}

const toDelivery = (r: Row): Delivery => ({
  id: r.id,
  eventId: r.event_id,
  webhookId: r.webhook_id,
  orgId: r.org_id,
  state: r.state,
  attempts: r.attempts,
  step: r.step,
  nextAttemptAt: new Date(r.next_attempt_at).toISOString(),
  lastStatus: r.last_status,
  lastError: r.last_error,
  deliveredAt: r.delivered_at,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

export function insertDelivery(db: Db, d: { id: string; eventId: string; webhookId: string; orgId: string; state: DeliveryState; nextAttemptAt: number; at: string }): void {
  db.prepare(
    `INSERT INTO deliveries (id, event_id, webhook_id, org_id, state, next_attempt_at, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(d.id, d.eventId, d.webhookId, d.orgId, d.state, d.nextAttemptAt, d.at, d.at);
}

/**
 * Puts (event, webhook) back in the queue: a new pending row, or the existing row reset to a fresh
 * retry cycle. A row already pending is left alone. Returns true when something was queued.
 */
export function requeueDelivery(db: Db, d: { id: string; eventId: string; webhookId: string; orgId: string; nowMs: number; at: string }): boolean {
  const info = db
    .prepare(
      `INSERT INTO deliveries (id, event_id, webhook_id, org_id, state, next_attempt_at, created_at, updated_at)
       VALUES (@id, @eventId, @webhookId, @orgId, 'pending', @nowMs, @at, @at)
       ON CONFLICT (event_id, webhook_id) DO UPDATE SET state = 'pending', step = 0, next_attempt_at = @nowMs,
         claimed_by = NULL, lease_until = NULL, updated_at = @at
       WHERE deliveries.state <> 'pending'`,
    )
    .run(d);
  return info.changes > 0;
}

export function getDelivery(db: Db, id: string): Delivery | undefined {
  const row = db.prepare('SELECT * FROM deliveries WHERE id = ?').get(id) as Row | undefined;
  return row && toDelivery(row);
}

/** Marks a webhook's pending rows as `state` (skipped when disabled, cancelled when deleted). */
export function setPendingState(db: Db, webhookId: string, state: 'skipped' | 'cancelled', at: string): number {
  return db
    .prepare("UPDATE deliveries SET state = ?, claimed_by = NULL, lease_until = NULL, updated_at = ? WHERE webhook_id = ? AND state = 'pending'")
    .run(state, at, webhookId).changes;
}

export interface DueDelivery {
  id: string;
  eventId: string;
  webhookId: string;
  orgId: string;
  url: string;
  attempts: number;
  step: number;
  eventType: string;
  body: string;
}

/**
 * Due, unleased rows of enabled webhooks, at most `perWebhook` per webhook (oldest first), leaving
 * out webhooks whose slots are all taken (`busyWebhookIds`), so one endpoint with a deep backlog
 * or slow answers cannot fill every slot.
 */
export function findDue(db: Db, nowMs: number, perWebhook: number, limit: number, busyWebhookIds: string[] = []): DueDelivery[] {
  return db
    .prepare(
      `SELECT d.id, d.event_id AS eventId, d.webhook_id AS webhookId, d.org_id AS orgId, w.url, d.attempts, d.step,
              e.type AS eventType, e.body
       FROM (SELECT id, webhook_id, ROW_NUMBER() OVER (PARTITION BY webhook_id ORDER BY next_attempt_at, id) AS rn
             FROM deliveries
             WHERE state = 'pending' AND next_attempt_at <= @now AND (lease_until IS NULL OR lease_until < @now)
               AND webhook_id NOT IN (SELECT value FROM json_each(@busy))) c
       JOIN deliveries d ON d.id = c.id
       JOIN webhooks w ON w.id = d.webhook_id AND w.enabled = 1 AND w.deleted_at IS NULL
       JOIN events e ON e.id = d.event_id
       WHERE c.rn <= @perWebhook
       ORDER BY d.next_attempt_at, d.id
       LIMIT @limit`,
    )
    .all({ now: nowMs, perWebhook, limit, busy: JSON.stringify(busyWebhookIds) }) as DueDelivery[];
}

/** Takes the lease if nobody holds it; false when another dispatcher won. */
export function claimDelivery(db: Db, id: string, owner: string, nowMs: number, leaseUntil: number): boolean {
  return (
    db
      .prepare(
        `UPDATE deliveries SET claimed_by = ?, lease_until = ?
         WHERE id = ? AND state = 'pending' AND next_attempt_at <= ? AND (lease_until IS NULL OR lease_until < ?)`,
      )
      .run(owner, leaseUntil, id, nowMs, nowMs).changes > 0
  );
}

/** Rows whose webhook was disabled while they waited: skipped, not lost. */
export function skipPendingOfDisabled(db: Db, at: string): number {
  return db
    .prepare(
      `UPDATE deliveries SET state = 'skipped', claimed_by = NULL, lease_until = NULL, updated_at = ?
       WHERE state = 'pending' AND webhook_id IN (SELECT id FROM webhooks WHERE enabled = 0)`,
    )
    .run(at).changes;
}

export interface AttemptRecord {
  id: string;
  deliveryId: string;
  attempt: number;
  startedAt: string;
  durationMs: number;
  statusCode: number | null;
  error: string | null;
  responseBody: string | null;
  keyId: string | null;
}

export function insertAttempt(db: Db, a: AttemptRecord): void {
  db.prepare(
    `INSERT INTO delivery_attempts (id, delivery_id, attempt, started_at, duration_ms, status_code, error, response_body, key_id)
     VALUES (@id, @deliveryId, @attempt, @startedAt, @durationMs, @statusCode, @error, @responseBody, @keyId)`,
  ).run(a);
}

export function listAttempts(db: Db, deliveryId: string): AttemptRecord[] {
  return db
    .prepare(
      `SELECT id, delivery_id AS deliveryId, attempt, started_at AS startedAt, duration_ms AS durationMs, status_code AS statusCode,
              error, response_body AS responseBody, key_id AS keyId
       FROM delivery_attempts WHERE delivery_id = ? ORDER BY attempt, id`,
    )
    .all(deliveryId) as AttemptRecord[];
}

/** The outcome of an attempt made under `owner`'s lease; false when the lease was lost meanwhile. */
export function finishAttempt(
  db: Db,
  id: string,
  owner: string,
  next: { state: DeliveryState; attempts: number; step: number; nextAttemptAt: number; lastStatus: number | null; lastError: string | null; deliveredAt: string | null; at: string },
): boolean {
  return (
    db
      .prepare(
        `UPDATE deliveries SET state = @state, attempts = @attempts, step = @step, next_attempt_at = @nextAttemptAt,
           last_status = @lastStatus, last_error = @lastError, delivered_at = COALESCE(@deliveredAt, delivered_at),
           claimed_by = NULL, lease_until = NULL, updated_at = @at
         WHERE id = @id AND claimed_by = @owner`,
      )
      .run({ ...next, id, owner }).changes > 0
  );
}

/** Gives leases back without counting an attempt (clean shutdown). */
export function releaseLeases(db: Db, owner: string): number {
  return db.prepare('UPDATE deliveries SET claimed_by = NULL, lease_until = NULL WHERE claimed_by = ?').run(owner).changes;
}

export function listDeliveries(db: Db, filter: { state?: DeliveryState | undefined; webhookId?: string | undefined; eventId?: string | undefined; limit: number }): Delivery[] {
  const where: string[] = [];
  const params: unknown[] = [];
  if (filter.state) (where.push('state = ?'), params.push(filter.state));
  if (filter.webhookId) (where.push('webhook_id = ?'), params.push(filter.webhookId));
  if (filter.eventId) (where.push('event_id = ?'), params.push(filter.eventId));
  const sql = `SELECT * FROM deliveries ${where.length ? 'WHERE ' + where.join(' AND ') : ''} ORDER BY id LIMIT ?`;
  return (db.prepare(sql).all(...params, filter.limit) as Row[]).map(toDelivery);
}

export function countByState(db: Db): Record<DeliveryState, number> {
  const out = Object.fromEntries(DELIVERY_STATES.map((s) => [s, 0])) as Record<DeliveryState, number>;
  for (const r of db.prepare('SELECT state, COUNT(*) AS n FROM deliveries GROUP BY state').all() as { state: DeliveryState; n: number }[]) out[r.state] = r.n;
  return out;
}

export interface WebhookHealth {
  lastSuccessAt: string | null;
  failuresInARow: number;
  pending: number;
}

export function webhookHealth(db: Db, webhookId: string): WebhookHealth {
  const last = db.prepare("SELECT MAX(delivered_at) AS at FROM deliveries WHERE webhook_id = ? AND state = 'delivered'").get(webhookId) as { at: string | null };
  const pending = db.prepare("SELECT COUNT(*) AS n FROM deliveries WHERE webhook_id = ? AND state = 'pending'").get(webhookId) as { n: number };
  // Attempts after the last successful one, across this webhook's deliveries.
  const rows = db
    .prepare(
      `SELECT a.status_code AS statusCode FROM delivery_attempts a JOIN deliveries d ON d.id = a.delivery_id
       WHERE d.webhook_id = ? ORDER BY a.started_at DESC, a.id DESC LIMIT 1000`,
    )
    .all(webhookId) as { statusCode: number | null }[];
  let failures = 0;
  for (const r of rows) {
    if (r.statusCode !== null && r.statusCode >= 200 && r.statusCode < 300) break;
    failures++;
  }
  return { lastSuccessAt: last.at, failuresInARow: failures, pending: pending.n };
}

export function getCachedSignature(db: Db, eventId: string, keyId: string): string | undefined {
  return (db.prepare('SELECT signature FROM event_signatures WHERE event_id = ? AND key_id = ?').get(eventId, keyId) as { signature: string } | undefined)?.signature;
}

export function cacheSignature(db: Db, eventId: string, keyId: string, signature: string): void {
  db.prepare('INSERT OR IGNORE INTO event_signatures (event_id, key_id, signature) VALUES (?, ?, ?)').run(eventId, keyId, signature);
}

/** Event ids of an organization created at or after `sinceIso`, oldest first. */
export function eventIdsSince(db: Db, orgId: string, sinceIso: string): string[] {
  return (db.prepare('SELECT id FROM events WHERE org_id = ? AND created_at >= ? ORDER BY id').all(orgId, sinceIso) as { id: string }[]).map((r) => r.id);
}
