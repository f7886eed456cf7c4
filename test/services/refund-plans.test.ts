import { describe, expect, it, vi } from 'vitest';
import { DAY_MS, isoAt } from '../../src/domain/clock.js';
import { createOrganization } from '../../src/services/organizations.js';
import { dispatchRefundPlan, reconfirmRefundConfig, recordRefundPlanOnFailure, setRefundConfig } from '../../src/services/refunds.js';
import { changeTransactionStatus, createTransaction, getTransaction } from '../../src/services/transactions.js';
import type { TransactionHook, TransactionStatusChange } from '../../src/context.js';
import { committedEvents } from '../support/events.js';
import { getRefundPlanForTransaction, listRefundPlans, replaceRefundPlanDecision } from '../../src/store/refund-plans.js';
import { insertOrchestratedTransaction, updateTransactionStatus } from '../../src/store/transactions.js';
import type { TransactionType } from '../../src/verify/events.js';
import { makeContext, type TestContext } from '../support/context.js';
import { withTransaction, type Db } from '../../src/db/database.js';

const EVM = '0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed';
const OTHER = '0xfb6916095ca1df60bb79ce92ce3ea74c37c5d359';

/** A Processing transaction as stored, its refund destination unchecked (the API would refuse some of these). */
async function insertTransaction(
  ctx: TestContext,
  orgId: string,
  id: string,
  fields: {
    type?: TransactionType;
    network?: string | null;
    refundDestination?: Record<string, unknown>;
    source?: Record<string, unknown>;
  },
): Promise<void> {
  const at = isoAt(ctx.clock.now());
  await insertOrchestratedTransaction(ctx.db, {
    id,
    orgId,
    type: fields.type ?? 'Deposit',
    status: 'Processing',
    amount: null,
    currency: null,
    network: fields.network === undefined ? 'POLYGON' : fields.network,
    source: fields.source ?? null,
    destination: null,
    refundDestination: fields.refundDestination ?? null,
    failureReason: null,
    identityId: null,
    accountId: null,
    createdAt: at,
    updatedAt: at,
  });
}

/** An organization whose refund default is one POLYGON address (EVM), auto-refund on. */
async function withPolygonDefault(): Promise<{ ctx: TestContext; org: Awaited<ReturnType<typeof createOrganization>> }> {
  const ctx = await makeContext();
  const org = await createOrganization(ctx, 'Acme');
  await setRefundConfig(ctx, org.id, {
    type: 'Address',
    addresses: [{ network: 'POLYGON', address: EVM }],
    autoRefund: true,
    autoFiatReturn: false,
  });
  return { ctx, org };
}

async function fail(
  ctx: TestContext,
  orgId: string,
  transactionId: string,
  hooks: readonly TransactionHook[] = [recordRefundPlanOnFailure],
): Promise<void> {
  await withTransaction(ctx, async (ctx) => {
    const change: TransactionStatusChange = { ctx, orgId, transactionId, from: 'Processing', to: 'Failed', nowMs: ctx.clock.now() };
    await updateTransactionStatus(ctx.db, transactionId, 'Processing', 'Failed', null, isoAt(ctx.clock.now()));
    for (const h of hooks) await h(change);
  });
}

describe('refund plan hook', () => {
  it('is wired into the context and records a plan only on Failed', async () => {
    const { ctx, org } = await withPolygonDefault();
    await insertTransaction(ctx, org.id, 'txn_1', {});
    const change: TransactionStatusChange = {
      ctx,
      orgId: org.id,
      transactionId: 'txn_1',
      from: 'Pending',
      to: 'Processing',
      nowMs: ctx.clock.now(),
    };
    expect(ctx.transactionHooks).toContain(recordRefundPlanOnFailure);
    for (const h of ctx.transactionHooks) await h(change);
    expect(await getRefundPlanForTransaction(ctx.db, 'txn_1')).toBeUndefined();
    await fail(ctx, org.id, 'txn_1', ctx.transactionHooks);
    expect(await getRefundPlanForTransaction(ctx.db, 'txn_1')).toMatchObject({
      orgId: org.id,
      state: 'Dispatched',
      destinationFrom: 'default',
      destination: { type: 'Address', network: 'POLYGON', address: EVM },
      dispatchedAt: isoAt(ctx.clock.now()),
    });
    // A second failure keeps the first plan.
    await fail(ctx, org.id, 'txn_1', ctx.transactionHooks);
    expect(await listRefundPlans(ctx.db, {})).toHaveLength(1);
  });

  it('uses the per-transaction destination first', async () => {
    const ctx = await makeContext();
    const org = await createOrganization(ctx, 'Acme');
    await setRefundConfig(ctx, org.id, { type: 'Source', autoRefund: true, autoFiatReturn: false });
    await insertTransaction(ctx, org.id, 'txn_2', { refundDestination: { address: OTHER, network: 'ETHEREUM' } });
    await fail(ctx, org.id, 'txn_2');
    expect(await getRefundPlanForTransaction(ctx.db, 'txn_2')).toMatchObject({
      destinationFrom: 'transaction',
      destination: { type: 'Address', address: OTHER, network: 'ETHEREUM' },
    });
  });

  it('ignores a stored per-transaction address that is not valid for its network and uses the default (logged without the address)', async () => {
    const { ctx, org } = await withPolygonDefault();
    await insertTransaction(ctx, org.id, 'txn_9', { refundDestination: { address: '0xdef' } });
    await fail(ctx, org.id, 'txn_9');
    expect(await getRefundPlanForTransaction(ctx.db, 'txn_9')).toMatchObject({
      destinationFrom: 'default',
      destination: { type: 'Address', network: 'POLYGON', address: EVM },
    });
    expect(ctx.logs.lines.some((l) => l.transactionId === 'txn_9' && /unusable/.test(String(l.msg)))).toBe(true);
    expect(ctx.logs.text()).not.toContain('0xdef');
  });

  it('keeps autoRefund false in Created until dispatched, and refuses a second dispatch', async () => {
    const ctx = await makeContext();
    const org = await createOrganization(ctx, 'Acme');
    await setRefundConfig(ctx, org.id, {
      type: 'Address',
      addresses: [{ network: 'POLYGON', address: EVM }],
      autoRefund: false,
      autoFiatReturn: false,
    });
    await insertTransaction(ctx, org.id, 'txn_3', {});
    await fail(ctx, org.id, 'txn_3');
    const plan = (await getRefundPlanForTransaction(ctx.db, 'txn_3'))!;
    expect(plan).toMatchObject({ state: 'Created', dispatchedAt: null });
    expect(await dispatchRefundPlan(ctx, plan.id)).toMatchObject({ state: 'Dispatched', dispatchedAt: isoAt(ctx.clock.now()) });
    await expect(dispatchRefundPlan(ctx, plan.id)).rejects.toThrow(/only Created or Paused/);
    await expect(dispatchRefundPlan(ctx, 'rfp_nope')).rejects.toThrow(/not found/);
  });

  it('pauses on a stale default and dispatches when it is re-confirmed', async () => {
    const { ctx, org } = await withPolygonDefault();
    ctx.clock.advance(90 * DAY_MS + 1);
    await insertTransaction(ctx, org.id, 'txn_4', {});
    await fail(ctx, org.id, 'txn_4');
    expect((await getRefundPlanForTransaction(ctx.db, 'txn_4'))!.state).toBe('Paused');
    const re = await reconfirmRefundConfig(ctx, org.id);
    expect(re.dispatchedPlans).toHaveLength(1);
    expect((await getRefundPlanForTransaction(ctx.db, 'txn_4'))!.state).toBe('Dispatched');
  });

  it('re-plans plans paused on a replaced default against the new one; re-confirming never sends them to the old address', async () => {
    const ctx = await makeContext();
    const org = await createOrganization(ctx, 'Acme');
    const NEW = '0xfb6916095ca1df60bb79ce92ce3ea74c37c5d359';
    await setRefundConfig(ctx, org.id, {
      type: 'Address',
      addresses: [
        { network: 'POLYGON', address: EVM },
        { network: 'ETHEREUM', address: EVM },
      ],
      autoRefund: true,
      autoFiatReturn: false,
    });
    ctx.clock.advance(90 * DAY_MS + 1);
    await insertTransaction(ctx, org.id, 'txn_a', { network: 'POLYGON' });
    await insertTransaction(ctx, org.id, 'txn_b', { network: 'ETHEREUM' });
    await fail(ctx, org.id, 'txn_a');
    await fail(ctx, org.id, 'txn_b');
    expect(await getRefundPlanForTransaction(ctx.db, 'txn_a')).toMatchObject({
      state: 'Paused',
      defaultVersion: 1,
      destination: { address: EVM },
    });

    // The new default has a POLYGON address only: txn_a goes to it, txn_b has no destination any more.
    const set = await setRefundConfig(ctx, org.id, {
      type: 'Address',
      addresses: [{ network: 'POLYGON', address: NEW }],
      autoRefund: true,
      autoFiatReturn: false,
    });
    expect(set.replannedPlans).toHaveLength(2);
    const a = (await getRefundPlanForTransaction(ctx.db, 'txn_a'))!;
    expect(a).toMatchObject({
      state: 'Dispatched',
      destinationFrom: 'default',
      destination: { type: 'Address', network: 'POLYGON', address: NEW },
      defaultVersion: 2,
      dispatchedAt: isoAt(ctx.clock.now()),
    });
    expect(a.reason).toMatch(/re-planned/);
    expect(await getRefundPlanForTransaction(ctx.db, 'txn_b')).toMatchObject({
      state: 'NoDestination',
      destination: null,
      defaultVersion: null,
    });

    // Re-confirming the new default dispatches nothing (and nothing to the old address).
    expect((await reconfirmRefundConfig(ctx, org.id)).dispatchedPlans).toEqual([]);
    expect((await getRefundPlanForTransaction(ctx.db, 'txn_b'))!.state).toBe('NoDestination');
  });

  it('re-confirming releases only the plans paused on the same default version', async () => {
    const { ctx, org } = await withPolygonDefault();
    ctx.clock.advance(90 * DAY_MS + 1);
    await insertTransaction(ctx, org.id, 'txn_c', {});
    await insertTransaction(ctx, org.id, 'txn_d', {});
    await fail(ctx, org.id, 'txn_c');
    await fail(ctx, org.id, 'txn_d');
    // txn_d's plan was made from another default (e.g. recorded before versions existed and not attributable).
    const d = (await getRefundPlanForTransaction(ctx.db, 'txn_d'))!;
    await replaceRefundPlanDecision(ctx.db, d.id, d, null, d.updatedAt);
    const re = await reconfirmRefundConfig(ctx, org.id);
    expect(re.dispatchedPlans).toEqual([(await getRefundPlanForTransaction(ctx.db, 'txn_c'))!.id]);
    expect((await getRefundPlanForTransaction(ctx.db, 'txn_c'))!.state).toBe('Dispatched');
    expect((await getRefundPlanForTransaction(ctx.db, 'txn_d'))!.state).toBe('Paused');
  });

  it('marks a failed fiat payout for manual handling unless autoFiatReturn', async () => {
    const ctx = await makeContext();
    const org = await createOrganization(ctx, 'Acme');
    await setRefundConfig(ctx, org.id, { type: 'Source', autoRefund: true, autoFiatReturn: false });
    await insertTransaction(ctx, org.id, 'txn_5', { type: 'Withdrawal', network: null });
    await fail(ctx, org.id, 'txn_5');
    expect(await getRefundPlanForTransaction(ctx.db, 'txn_5')).toMatchObject({ state: 'ManualHandling', kind: 'ManualFiat' });
    await setRefundConfig(ctx, org.id, { type: 'Source', autoRefund: true, autoFiatReturn: true });
    await insertTransaction(ctx, org.id, 'txn_6', { type: 'Withdrawal', network: null });
    await fail(ctx, org.id, 'txn_6');
    expect(await getRefundPlanForTransaction(ctx.db, 'txn_6')).toMatchObject({
      state: 'Dispatched',
      kind: 'FiatReturnAsCrypto',
      destination: { type: 'Source' },
    });
  });

  it('returns a failed fiat payout as crypto to the Address default of its source network (autoFiatReturn true)', async () => {
    const ctx = await makeContext();
    const org = await createOrganization(ctx, 'Acme');
    const TRON = 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t';
    await setRefundConfig(ctx, org.id, {
      type: 'Address',
      addresses: [
        { network: 'TRON', address: TRON },
        { network: 'POLYGON', address: EVM },
      ],
      autoRefund: true,
      autoFiatReturn: true,
    });
    await insertTransaction(ctx, org.id, 'txn_7', {
      type: 'Withdrawal',
      network: null,
      source: { network: 'POLYGON', accountId: 'acc_1' },
    });
    await fail(ctx, org.id, 'txn_7');
    expect(await getRefundPlanForTransaction(ctx.db, 'txn_7')).toMatchObject({
      state: 'Dispatched',
      kind: 'FiatReturnAsCrypto',
      destinationFrom: 'default',
      destination: { type: 'Address', network: 'POLYGON', address: EVM },
    });
    // No source network and two addresses: nothing to choose by, an operator handles it.
    await insertTransaction(ctx, org.id, 'txn_8', { type: 'Withdrawal', network: null, source: { iban: 'DE00' } });
    await fail(ctx, org.id, 'txn_8');
    expect(await getRefundPlanForTransaction(ctx.db, 'txn_8')).toMatchObject({
      state: 'ManualHandling',
      kind: 'ManualFiat',
      destination: null,
    });
  });

  it('rolls back the status change, its event and the plan when recording the plan fails after the plan row is written', async () => {
    const { ctx, org } = await withPolygonDefault();
    const t = await createTransaction(ctx, { orgId: org.id, type: 'Deposit', network: 'POLYGON' });
    const planRows = async (db: Db = ctx.db) => (await listRefundPlans(db, {})).length;
    const eventTypes = async () => (await committedEvents(ctx.db, org.id)).map((e) => e.type);
    expect(await eventTypes()).toEqual(['Transaction_Created']);

    // The failure is injected at the last step of recording the plan (its log line), after the
    // plan row is inserted: only the enclosing database transaction can take that row back.
    // The plan rows are counted there, in that transaction (a hook ahead of the refund hook hands it over).
    const hooks = ctx.transactionHooks;
    let inTransaction: Db | undefined;
    ctx.transactionHooks = [async (change) => void (inTransaction = change.ctx.db), ...hooks];
    const info = ctx.log.info.bind(ctx.log);
    let insertedBeforeFailure: Promise<number> | undefined;
    const spy = vi.spyOn(ctx.log, 'info').mockImplementation(((obj: unknown, msg?: string) => {
      if (msg === 'refund plan recorded') {
        insertedBeforeFailure = planRows(inTransaction);
        throw new Error('injected failure while recording the refund plan');
      }
      return info(obj as object, msg);
    }) as typeof ctx.log.info);
    await expect(changeTransactionStatus(ctx, t.id, 'Failed', 'provider timeout')).rejects.toThrow(/injected failure/);
    spy.mockRestore();
    ctx.transactionHooks = hooks;

    expect(inTransaction?.inTransaction).toBe(true);
    expect(await insertedBeforeFailure).toBe(1);
    expect(await planRows()).toBe(0);
    expect(await getTransaction(ctx, t.id)).toMatchObject({ status: 'Submitted', failureReason: null });
    expect(await eventTypes()).toEqual(['Transaction_Created']);

    // The same change succeeds once nothing fails, with its event and its plan.
    await changeTransactionStatus(ctx, t.id, 'Failed', 'provider timeout');
    expect((await getTransaction(ctx, t.id)).status).toBe('Failed');
    expect(await eventTypes()).toEqual(['Transaction_Created', 'Transaction_Updated']);
    expect(await getRefundPlanForTransaction(ctx.db, t.id)).toMatchObject({ state: 'Dispatched' });
  });

  it('refuses to record a plan for an unknown transaction', async () => {
    const ctx = await makeContext();
    const org = await createOrganization(ctx, 'Acme');
    await expect(fail(ctx, org.id, 'txn_missing')).rejects.toThrow(/not found/);
    expect(await listRefundPlans(ctx.db, {})).toEqual([]);
  });
});
