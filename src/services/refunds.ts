/**
 * Refunds: the organization's default destination and its freshness, and the refund plan recorded
 * when a transaction fails, re-planned or dispatched as the default changes.
 *
 * @module services/refunds
 */
import { z } from 'zod';
import type { AppContext } from '../context.js';
import { isoAt } from '../domain/clock.js';
import { instant } from '../domain/instant.js';
import { asNetworkId, NETWORK_IDS, type NetworkId } from '../domain/crypto-address.js';
import { conflict, notFound } from '../domain/errors.js';
import { newId } from '../domain/ids.js';
import {
  REFUND_DESTINATION_TYPES,
  refundDestinationProblems,
  transactionDestinationSchema,
  transactionRefundDestinationProblems,
  type OrgRefundDestination,
} from '../domain/refund-destination.js';
import { refundFreshness } from '../domain/refund-freshness.js';
import { canDispatch, decideRefundPlan, type RefundPlanDecision, type TransactionRefundDestination } from '../domain/refund-plan.js';
import { getRefundConfig, markRefundConfigVerified, upsertRefundConfig, type StoredRefundConfig } from '../store/refund-configs.js';
import {
  getRefundPlan,
  getRefundPlanForTransaction,
  getTransactionRefundFacts,
  insertRefundPlan,
  listRefundPlans,
  replaceRefundPlanDecision,
  setRefundPlanState,
  type RefundPlan,
} from '../store/refund-plans.js';
import type { TransactionStatusChange } from '../context.js';
import { holdLock, withTransaction } from '../db/database.js';

export const orgRefundAddressSchema = z.strictObject({
  network: z.enum(NETWORK_IDS),
  address: z.string().min(1).max(128),
});

export const orgRefundDestinationSchema = z
  .strictObject({
    type: z.enum(REFUND_DESTINATION_TYPES),
    addresses: z
      .array(orgRefundAddressSchema)
      .max(NETWORK_IDS.length * 2)
      .optional(),
    autoRefund: z.boolean().default(true),
    autoFiatReturn: z.boolean().default(false),
  })
  .superRefine((d, zctx) => {
    for (const e of refundDestinationProblems(d))
      zctx.addIssue({ code: 'custom', path: e.path.split('.').map((p) => (/^\d+$/.test(p) ? Number(p) : p)), message: e.message });
  });

/** The organization's default refund destination as the API answers it, with its freshness. */
export const refundConfigSchema = z.object({
  destination: orgRefundDestinationSchema,
  verifiedAt: instant,
  isStaleWarning: z.boolean(),
  isStaleReject: z.boolean(),
});
export type RefundConfig = z.infer<typeof refundConfigSchema>;

export async function readRefundConfig(ctx: AppContext, orgId: string): Promise<RefundConfig | null> {
  const c = await getRefundConfig(ctx.db, orgId);
  if (!c) return null;
  return { destination: c.destination, verifiedAt: c.verifiedAt, ...refundFreshness(Date.parse(c.verifiedAt), ctx.clock.now()) };
}

/**
 * Sets the default (and verifiedAt). When it replaces a default, the plans Paused on the old one
 * (stale, never re-confirmed) are planned again against the new default in the same transaction: the
 * organization has just said where refunds go now, so nothing is ever sent to the replaced address.
 * Plans in other states keep their decision.
 */
export async function setRefundConfig(
  ctx: AppContext,
  orgId: string,
  destination: OrgRefundDestination,
): Promise<RefundConfig & { replannedPlans: string[] }> {
  const nowMs = ctx.clock.now();
  const at = isoAt(nowMs);
  const replanned = await withTransaction(ctx, async (ctx) => {
    await holdLock(ctx.db, `refunds:${orgId}`);
    const version = await upsertRefundConfig(ctx.db, { orgId, destination, verifiedAt: at, updatedAt: at });
    const stale = (await listRefundPlans(ctx.db, { orgId, state: 'Paused' })).filter(
      (p) => p.destinationFrom === 'default' && p.defaultVersion !== version,
    );
    // Read back once (not built from the arguments) so every re-plan sees the default exactly as stored.
    const config = await getRefundConfig(ctx.db, orgId);
    for (const p of stale) {
      const planned = await planFor(ctx, orgId, p.transactionId, nowMs, config);
      if (!planned) continue;
      const reason = `re-planned when the default it was paused on was replaced: ${planned.decision.reason}`;
      await replaceRefundPlanDecision(ctx.db, p.id, { ...planned.decision, reason }, planned.defaultVersion, at);
    }
    return stale.map((p) => p.id);
  });
  if (replanned.length) ctx.log.info({ orgId, plans: replanned }, 'paused refund plans re-planned against the new default');
  return { ...(await readRefundConfig(ctx, orgId))!, replannedPlans: replanned };
}

/**
 * Re-confirms the default as it is: verifiedAt moves to now and the plans paused on staleness of THIS
 * default (same version) are dispatched. Plans made from a default it replaced are not touched.
 */
export async function reconfirmRefundConfig(ctx: AppContext, orgId: string): Promise<RefundConfig & { dispatchedPlans: string[] }> {
  const at = isoAt(ctx.clock.now());
  const dispatched = await withTransaction(ctx, async (ctx) => {
    const config = await getRefundConfig(ctx.db, orgId);
    if (!config) throw notFound('refund configuration');
    await markRefundConfigVerified(ctx.db, orgId, at);
    const paused = (await listRefundPlans(ctx.db, { orgId, state: 'Paused' })).filter(
      (p) => p.destinationFrom === 'default' && p.defaultVersion === config.version && p.autoRefund,
    );
    for (const p of paused) await setRefundPlanState(ctx.db, p.id, 'Dispatched', 'dispatched after the default was re-confirmed', at, at);
    return paused.map((p) => p.id);
  });
  return { ...(await readRefundConfig(ctx, orgId))!, dispatchedPlans: dispatched };
}

/** The per-transaction destination column, or null when it is absent or unusable (the reason is logged). */
function parseTransactionDestination(
  ctx: AppContext,
  transactionId: string,
  raw: string | null,
  network: NetworkId | null,
): TransactionRefundDestination | null {
  if (!raw) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    parsed = undefined;
  }
  const r = transactionDestinationSchema.safeParse(parsed);
  // Stored before addresses were checked at creation, or written around the API: checked again here.
  if (!r.success || transactionRefundDestinationProblems(r.data, network).length > 0) {
    ctx.log.warn({ transactionId }, 'per-transaction refund destination is unusable; falling back to the default');
    return null;
  }
  const d = r.data;
  return {
    type: d.type,
    ...(d.address ? { address: d.address, network: d.network ?? network ?? undefined } : {}),
    ...(d.autoRefund !== undefined ? { autoRefund: d.autoRefund } : {}),
  } as TransactionRefundDestination;
}

/** `source.network` of the transaction's source JSON when it names a known network, else null. */
function sourceNetworkOf(raw: string | null): NetworkId | null {
  if (!raw) return null;
  try {
    const source = JSON.parse(raw) as unknown;
    return source && typeof source === 'object' ? asNetworkId((source as { network?: unknown }).network) : null;
  } catch {
    return null;
  }
}

/**
 * The transaction hook: when a transaction moves to Failed, record its refund plan inside the same
 * SQLite transaction. A second failure of the same transaction keeps the first plan.
 */
export async function recordRefundPlanOnFailure(change: TransactionStatusChange): Promise<void> {
  if (change.to !== 'Failed') return;
  const { ctx, orgId, transactionId, nowMs } = change;
  if (await getRefundPlanForTransaction(ctx.db, transactionId)) return;
  const planned = await planFor(ctx, orgId, transactionId, nowMs, await getRefundConfig(ctx.db, orgId));
  if (!planned) throw notFound(`transaction ${transactionId}`);
  const { decision, defaultVersion } = planned;
  const at = isoAt(nowMs);
  await insertRefundPlan(ctx.db, {
    id: newId('rfp', nowMs),
    orgId,
    transactionId,
    ...decision,
    createdAt: at,
    updatedAt: at,
    dispatchedAt: decision.state === 'Dispatched' ? at : null,
    defaultVersion,
  });
  ctx.log.info({ transactionId, state: decision.state, kind: decision.kind }, 'refund plan recorded');
}

/**
 * The decision for a failed transaction against `config` (the organization's current default, read by
 * the caller so that re-planning many plans reads it once), and that default's version when the
 * destination came from it.
 */
async function planFor(
  ctx: AppContext,
  orgId: string,
  transactionId: string,
  nowMs: number,
  config: StoredRefundConfig | undefined,
): Promise<{ decision: RefundPlanDecision; defaultVersion: number | null } | undefined> {
  const facts = await getTransactionRefundFacts(ctx.db, orgId, transactionId);
  if (!facts) return undefined;
  const network = asNetworkId(facts.network);
  const decision = decideRefundPlan({
    network,
    sourceNetwork: sourceNetworkOf(facts.source),
    isFiatPayout: facts.type === 'Withdrawal' && network === null,
    transactionDestination: parseTransactionDestination(ctx, transactionId, facts.refundDestination, network),
    orgDefault: config
      ? { destination: config.destination, isStaleReject: refundFreshness(Date.parse(config.verifiedAt), nowMs).isStaleReject }
      : null,
  });
  return { decision, defaultVersion: decision.destinationFrom === 'default' && config ? config.version : null };
}

/** Operator dispatch (CLI or admin API) of a plan in Created or Paused. */
export async function dispatchRefundPlan(ctx: AppContext, planId: string): Promise<RefundPlan> {
  return await withTransaction(ctx, async (ctx) => {
    const plan = await getRefundPlan(ctx.db, planId);
    if (!plan) throw notFound(`refund plan ${planId}`);
    if (!canDispatch(plan.state))
      throw conflict(
        'refund_plan_not_dispatchable',
        `refund plan ${planId} is ${plan.state}; only Created or Paused plans can be dispatched`,
      );
    const at = isoAt(ctx.clock.now());
    await setRefundPlanState(ctx.db, planId, 'Dispatched', 'dispatched by an operator', at, at);
    return (await getRefundPlan(ctx.db, planId))!;
  });
}
