/**
 * The alerts that are incidents, opened and resolved once each: an organization's outbox backlog
 * (its oldest pending delivery older than alerts.backlogAgeSeconds; resolved when it is under half
 * of that again, so a backlog hovering at the line does not flap) and inbound decryption failures
 * (a decryption pass with failures; resolved by a pass that decrypts and fails none). An open
 * incident is a `service_meta` row, written in the transaction that raises its alert under the
 * incident's lock, so processes sharing the database raise it once between them.
 *
 * @module alerts/incident-watch
 */
import type { AppContext } from '../context.js';
import { holdLock, withTransaction } from '../db/database.js';
import { isoAt } from '../domain/clock.js';
import { wakeDispatcher } from '../delivery/enqueue.js';
import type { InboundPassCounts } from '../signals.js';
import { pendingBacklog } from '../store/delivery-views.js';
import { listOrganizationIds, operatorOrganizationId } from '../store/organizations.js';
import { deleteServiceMeta, readServiceMeta, recordServiceMetaOnce } from '../store/service-meta.js';
import type { Worker } from '../worker.js';
import { prepareOperatorOrganization } from './operator-organization.js';
import { raiseAlert, type Alert } from './alerts.js';

const backlogKey = (orgId: string) => `alert.outbox_backlog.${orgId}`;
const DECRYPTION_KEY = 'alert.inbound_decryption';

/**
 * Opens or resolves the incident under `key` when `open` differs from what the database holds,
 * with its alert in the same transaction. Returns whether this call changed it.
 */
async function moveIncident(ctx: AppContext, key: string, open: boolean, alert: () => Alert): Promise<boolean> {
  if (((await readServiceMeta(ctx.db, key)) !== undefined) === open) return false;
  const moved = await withTransaction(ctx, async (ctx) => {
    await holdLock(ctx.db, key);
    // Another process may have moved it since the read above.
    if (((await readServiceMeta(ctx.db, key)) !== undefined) === open) return false;
    if (open) await recordServiceMetaOnce(ctx.db, key, isoAt(ctx.clock.now()));
    else await deleteServiceMeta(ctx.db, key);
    await raiseAlert(ctx, alert());
    return true;
  });
  if (moved) wakeDispatcher(ctx);
  return moved;
}

/** One look at every organization's oldest pending delivery: one index seek each. */
export async function checkBacklogs(ctx: AppContext): Promise<void> {
  const thresholdS = ctx.config.alerts.backlogAgeSeconds;
  const operatorOrg = await operatorOrganizationId(ctx.db);
  for (const orgId of await listOrganizationIds(ctx.db)) {
    // The operator organization's own backlog is its alerts: an alert about it could not be delivered either.
    if (orgId === operatorOrg) continue;
    const { oldestCreatedAt } = await pendingBacklog(ctx.db, orgId, 1);
    const ageS = oldestCreatedAt === undefined ? 0 : Math.max(0, ctx.clock.now() - Date.parse(oldestCreatedAt)) / 1000;
    const open = (await readServiceMeta(ctx.db, backlogKey(orgId))) !== undefined;
    const shouldBeOpen = open ? ageS >= thresholdS / 2 : ageS > thresholdS;
    await moveIncident(ctx, backlogKey(orgId), shouldBeOpen, () => ({
      alert: 'outbox_backlog',
      state: shouldBeOpen ? 'firing' : 'resolved',
      summary: shouldBeOpen
        ? `organization ${orgId} has a delivery pending for ${Math.round(ageS)} s (alerts.backlogAgeSeconds: ${thresholdS})`
        : `organization ${orgId}'s outbox backlog is back under ${thresholdS / 2} s`,
      details: { organizationId: orgId, oldestPendingAgeSeconds: Math.round(ageS), thresholdSeconds: thresholdS },
    }));
  }
}

/** What one decryption pass says about the inbound incident. */
export async function checkDecryption(ctx: AppContext, counts: InboundPassCounts): Promise<void> {
  const failures = (counts.failed ?? 0) + (counts.retry ?? 0);
  if (failures > 0) {
    await moveIncident(ctx, DECRYPTION_KEY, true, () => ({
      alert: 'inbound_decryption_failures',
      state: 'firing',
      summary: `card-network notifications fail decryption (${counts.failed ?? 0} failed for good, ${counts.retry ?? 0} to retry in the last pass); see borderd inbound list --state failed`,
      details: { failed: counts.failed ?? 0, retry: counts.retry ?? 0 },
    }));
  } else if ((counts.decrypted ?? 0) > 0) {
    await moveIncident(ctx, DECRYPTION_KEY, false, () => ({
      alert: 'inbound_decryption_failures',
      state: 'resolved',
      summary: 'card-network notifications decrypt again',
      details: { decrypted: counts.decrypted ?? 0 },
    }));
  }
}

/** The daemon's alert worker: the operator organization set from the configuration, then the backlog checks and the decryption watch. */
export function createAlertWorker(ctx: AppContext): Worker {
  let timer: NodeJS.Timeout | undefined;
  let unlisten: (() => void) | undefined;
  let running: Promise<void> = Promise.resolve();
  // One check at a time, in order; a failed check is logged and the next runs.
  const run = (check: () => Promise<void>): void => {
    running = running.then(check).catch((err: unknown) => ctx.log.error({ err }, 'alert check failed'));
  };
  return {
    name: 'alerts',
    async start() {
      await prepareOperatorOrganization(ctx);
      // The signal's listener schedules its check; it never runs it inside the emitter's call stack.
      unlisten = ctx.signals.inboundPassed.listen((counts) => run(() => checkDecryption(ctx, counts)));
      timer = setInterval(() => run(() => checkBacklogs(ctx)), ctx.config.alerts.checkIntervalMs);
      timer.unref();
      run(() => checkBacklogs(ctx));
    },
    async stop() {
      unlisten?.();
      clearInterval(timer);
      await running;
    },
  };
}
