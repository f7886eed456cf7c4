import { describe, expect, it } from 'vitest';
import { decideRefundPlan, type RefundPlanInput } from '../../src/domain/refund-plan.js';
import type { OrgRefundDestination } from '../../src/domain/refund-destination.js';
import { refundFreshness } from '../../src/domain/refund-freshness.js';
import { DAY_MS } from '../../src/domain/clock.js';

const EVM = '0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed';
const OTHER = '0xfb6916095ca1df60bb79ce92ce3ea74c37c5d359';
const addressDefault = (over: Partial<{ autoRefund: boolean; autoFiatReturn: boolean }> = {}) => ({
  destination: {
    type: 'Address' as const,
    addresses: [{ network: 'POLYGON' as const, address: EVM }],
    autoRefund: true,
    autoFiatReturn: false,
    ...over,
  },
  isStaleReject: false,
});
const base: RefundPlanInput = { network: 'POLYGON', isFiatPayout: false, transactionDestination: null, orgDefault: null };

describe('decideRefundPlan', () => {
  it('prefers the per-transaction destination', () => {
    const d = decideRefundPlan({
      ...base,
      transactionDestination: { type: 'Address', network: 'POLYGON', address: OTHER },
      orgDefault: addressDefault(),
    });
    expect(d).toMatchObject({
      state: 'Dispatched',
      kind: 'CryptoRefund',
      destinationFrom: 'transaction',
      destination: { type: 'Address', network: 'POLYGON', address: OTHER },
    });
  });

  it('falls back to the default address for the transaction network, else none', () => {
    expect(decideRefundPlan({ ...base, orgDefault: addressDefault() })).toMatchObject({
      state: 'Dispatched',
      destinationFrom: 'default',
      destination: { network: 'POLYGON', address: EVM },
    });
    expect(decideRefundPlan({ ...base, network: 'TRON', orgDefault: addressDefault() })).toMatchObject({
      state: 'NoDestination',
      kind: 'None',
      destination: null,
    });
    expect(decideRefundPlan(base)).toMatchObject({ state: 'NoDestination' });
  });

  it('keeps autoRefund false plans in Created, and pauses on a stale default', () => {
    expect(decideRefundPlan({ ...base, orgDefault: addressDefault({ autoRefund: false }) })).toMatchObject({
      state: 'Created',
      autoRefund: false,
    });
    expect(decideRefundPlan({ ...base, orgDefault: { ...addressDefault(), isStaleReject: true } })).toMatchObject({ state: 'Paused' });
    // A per-transaction destination is not paused by the default's staleness.
    expect(
      decideRefundPlan({ ...base, transactionDestination: { type: 'Source' }, orgDefault: { ...addressDefault(), isStaleReject: true } })
        .state,
    ).toBe('Dispatched');
  });

  it('returns a failed fiat payout as crypto only with autoFiatReturn', () => {
    expect(
      decideRefundPlan({
        ...base,
        network: null,
        isFiatPayout: true,
        orgDefault: { destination: { type: 'ProviderBalance', autoRefund: true, autoFiatReturn: true }, isStaleReject: false },
      }),
    ).toMatchObject({
      state: 'Dispatched',
      kind: 'FiatReturnAsCrypto',
      destination: { type: 'ProviderBalance' },
    });
    expect(decideRefundPlan({ ...base, network: null, isFiatPayout: true, orgDefault: addressDefault() })).toMatchObject({
      state: 'ManualHandling',
      kind: 'ManualFiat',
    });
  });
});

describe('decideRefundPlan: a failed fiat payout', () => {
  const TRON = 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t';
  const fiat: RefundPlanInput = { ...base, network: null, isFiatPayout: true };
  const def = (destination: Record<string, unknown>) => ({
    destination: { autoRefund: true, autoFiatReturn: true, ...destination } as OrgRefundDestination,
    isStaleReject: false,
  });
  const twoAddresses = {
    type: 'Address',
    addresses: [
      { network: 'TRON', address: TRON },
      { network: 'POLYGON', address: EVM },
    ],
  };

  it.each(['Address', 'Source', 'ProviderBalance'] as const)('with a %s default and autoFiatReturn false is ManualHandling', (type) => {
    const destination = type === 'Address' ? { type, addresses: [{ network: 'POLYGON', address: EVM }] } : { type };
    expect(
      decideRefundPlan({ ...fiat, sourceNetwork: 'POLYGON', orgDefault: def({ ...destination, autoFiatReturn: false }) }),
    ).toMatchObject({ state: 'ManualHandling', kind: 'ManualFiat', destination: null });
  });

  it.each(['Source', 'ProviderBalance'] as const)(
    'with a %s default and autoFiatReturn true is returned as crypto to that default',
    (type) => {
      expect(decideRefundPlan({ ...fiat, orgDefault: def({ type }) })).toMatchObject({
        state: 'Dispatched',
        kind: 'FiatReturnAsCrypto',
        destinationFrom: 'default',
        destination: { type },
      });
    },
  );

  it('with an Address default and autoFiatReturn true uses the address of the source network', () => {
    expect(decideRefundPlan({ ...fiat, sourceNetwork: 'POLYGON', orgDefault: def(twoAddresses) })).toMatchObject({
      state: 'Dispatched',
      kind: 'FiatReturnAsCrypto',
      destinationFrom: 'default',
      destination: { type: 'Address', network: 'POLYGON', address: EVM },
    });
    expect(decideRefundPlan({ ...fiat, sourceNetwork: 'TRON', orgDefault: def(twoAddresses) })).toMatchObject({
      state: 'Dispatched',
      destination: { network: 'TRON', address: TRON },
    });
  });

  it('with an Address default of one address uses it when the source network is unknown or has no entry', () => {
    const one = def({ type: 'Address', addresses: [{ network: 'TRON', address: TRON }] });
    for (const sourceNetwork of [null, undefined, 'POLYGON'] as const) {
      expect(decideRefundPlan({ ...fiat, sourceNetwork, orgDefault: one })).toMatchObject({
        state: 'Dispatched',
        kind: 'FiatReturnAsCrypto',
        destination: { type: 'Address', network: 'TRON', address: TRON },
      });
    }
    // autoRefund false and a stale default apply as for any other plan from the default.
    expect(
      decideRefundPlan({
        ...fiat,
        orgDefault: def({ type: 'Address', addresses: [{ network: 'TRON', address: TRON }], autoRefund: false }),
      }),
    ).toMatchObject({ state: 'Created', kind: 'FiatReturnAsCrypto' });
    expect(decideRefundPlan({ ...fiat, orgDefault: { ...one, isStaleReject: true } })).toMatchObject({
      state: 'Paused',
      kind: 'FiatReturnAsCrypto',
    });
  });

  it('with several Address entries and none for the source network leaves it to an operator (ManualHandling)', () => {
    const noSource = decideRefundPlan({ ...fiat, orgDefault: def(twoAddresses) });
    expect(noSource).toMatchObject({ state: 'ManualHandling', kind: 'ManualFiat', destination: null });
    expect(noSource.reason).toMatch(/no source network.*2 addresses/);
    expect(decideRefundPlan({ ...fiat, sourceNetwork: 'BASE', orgDefault: def(twoAddresses) }).reason).toMatch(
      /no address for the source network BASE/,
    );
  });

  it('with a per-transaction destination uses it whatever the default type', () => {
    expect(
      decideRefundPlan({
        ...fiat,
        transactionDestination: { type: 'Address', network: 'TRON', address: TRON },
        orgDefault: def(twoAddresses),
      }),
    ).toMatchObject({
      state: 'Dispatched',
      kind: 'FiatReturnAsCrypto',
      destinationFrom: 'transaction',
      destination: { network: 'TRON', address: TRON },
    });
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
