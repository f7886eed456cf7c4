import { describe, expect, it } from 'vitest';
import { decideRefundPlan, type RefundPlanInput } from '../../src/domain/refund-plan.js';
import { refundFreshness } from '../../src/domain/refund-freshness.js';
import { DAY_MS } from '../../src/domain/clock.js';

const EVM = '0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed';
const addressDefault = (over: Partial<{ autoRefund: boolean; autoFiatReturn: boolean }> = {}) => ({
  destination: { type: 'Address' as const, addresses: [{ network: 'POLYGON' as const, address: EVM }], autoRefund: true, autoFiatReturn: false, ...over },
  isStaleReject: false,
});
const base: RefundPlanInput = { network: 'POLYGON', isFiatPayout: false, transactionDestination: null, orgDefault: null };

describe('decideRefundPlan', () => {
  it('prefers the per-transaction destination', () => {
    const d = decideRefundPlan({ ...base, transactionDestination: { type: 'Address', network: 'POLYGON', address: '0xabc' }, orgDefault: addressDefault() });
    expect(d).toMatchObject({ state: 'Dispatched', kind: 'CryptoRefund', destinationFrom: 'transaction', destination: { type: 'Address', network: 'POLYGON', address: '0xabc' } });
  });

  it('falls back to the default address for the transaction network, else none', () => {
    expect(decideRefundPlan({ ...base, orgDefault: addressDefault() })).toMatchObject({ state: 'Dispatched', destinationFrom: 'default', destination: { network: 'POLYGON', address: EVM } });
    expect(decideRefundPlan({ ...base, network: 'TRON', orgDefault: addressDefault() })).toMatchObject({ state: 'NoDestination', kind: 'None', destination: null });
    expect(decideRefundPlan(base)).toMatchObject({ state: 'NoDestination' });
  });

  it('keeps autoRefund false plans in Created, and pauses on a stale default', () => {
    expect(decideRefundPlan({ ...base, orgDefault: addressDefault({ autoRefund: false }) })).toMatchObject({ state: 'Created', autoRefund: false });
    expect(decideRefundPlan({ ...base, orgDefault: { ...addressDefault(), isStaleReject: true } })).toMatchObject({ state: 'Paused' });
    // A per-transaction destination is not paused by the default's staleness.
    expect(decideRefundPlan({ ...base, transactionDestination: { type: 'Source' }, orgDefault: { ...addressDefault(), isStaleReject: true } }).state).toBe('Dispatched');
  });

  it('returns a failed fiat payout as crypto only with autoFiatReturn', () => {
    expect(decideRefundPlan({ ...base, network: null, isFiatPayout: true, orgDefault: { destination: { type: 'ProviderBalance', autoRefund: true, autoFiatReturn: true }, isStaleReject: false } })).toMatchObject({
      state: 'Dispatched',
      kind: 'FiatReturnAsCrypto',
      destination: { type: 'ProviderBalance' },
    });
    expect(decideRefundPlan({ ...base, network: null, isFiatPayout: true, orgDefault: addressDefault() })).toMatchObject({ state: 'ManualHandling', kind: 'ManualFiat' });
  });
});

describe('refundFreshness', () => {
  it('is strict at the 30- and 90-day boundaries', () => {
    expect(refundFreshness(0, 30 * DAY_MS)).toEqual({ isStaleWarning: false, isStaleReject: false });
    expect(refundFreshness(0, 30 * DAY_MS + 1)).toEqual({ isStaleWarning: true, isStaleReject: false });
    expect(refundFreshness(0, 90 * DAY_MS)).toEqual({ isStaleWarning: true, isStaleReject: false });
    expect(refundFreshness(0, 90 * DAY_MS + 1)).toEqual({ isStaleWarning: true, isStaleReject: true });
  });
});
