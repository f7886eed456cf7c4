import { describe, expect, it } from 'vitest';
import { Decimal } from 'decimal.js';
import { fromScaled, summarizeBenchmark, toScaled, type SampleItem } from '../../src/domain/benchmark-stats.js';

let seq = 0;
const item = (over: Partial<SampleItem>): SampleItem => ({
  id: `txn_${String(++seq).padStart(4, '0')}`,
  benchmark: 'InLine',
  amountUsd: '100',
  costVsMarketUsd: '0',
  provider: null,
  corridor: null,
  ...over,
});
const many = (n: number, over: Partial<SampleItem>) => Array.from({ length: n }, () => item(over));

describe('summarizeBenchmark', () => {
  it('computes a small sample by hand', () => {
    const s = summarizeBenchmark([
      item({ benchmark: 'Competitive', amountUsd: '1000', costVsMarketUsd: '-5', provider: 'P1', corridor: 'US-MX' }),
      item({ benchmark: 'InLine', amountUsd: '2000', costVsMarketUsd: '1.5', provider: 'P2', corridor: 'US-MX' }),
      item({ benchmark: 'OffMarket', amountUsd: '500', costVsMarketUsd: '10.25', provider: 'P2', corridor: 'US-BR' }),
      item({ benchmark: 'Competitive', amountUsd: '1500', costVsMarketUsd: '-2', provider: 'P3', corridor: 'US-CO' }),
    ]);
    expect(s).toEqual({
      hasSignal: false,
      sampleSize: 4,
      totalVolumeUsd: '5000',
      pointUsd: '4.75',
      lowUsd: '4.75',
      highUsd: '4.75',
      competitiveCount: 2,
      inLineCount: 1,
      offMarketCount: 1,
      concentrationDisclosure: true, // one transaction is 40% of the volume
      divergenceDisclosure: true, // more Competitive than OffMarket, yet a positive cost
      nearZero: false,
    });
  });

  it('sums exactly, without binary floating point', () => {
    const s = summarizeBenchmark([
      item({ amountUsd: '0.1', costVsMarketUsd: '0.1' }),
      item({ amountUsd: '0.2', costVsMarketUsd: '0.2' }),
      item({ amountUsd: '123456789012345678.123456789012345678', costVsMarketUsd: '-0.000000000000000001' }),
    ]);
    expect(s.totalVolumeUsd).toBe('123456789012345678.423456789012345678');
    expect(s.pointUsd).toBe('0.299999999999999999');
  });

  it('answers an empty sample with zeros and no signal', () => {
    expect(summarizeBenchmark([])).toMatchObject({
      hasSignal: false,
      sampleSize: 0,
      totalVolumeUsd: '0',
      pointUsd: '0',
      lowUsd: '0.00',
      highUsd: '0.00',
      concentrationDisclosure: false,
      divergenceDisclosure: false,
      nearZero: false,
    });
  });

  it('gates the signal at 30 transactions and gives the 95% interval of the total', () => {
    const costs = (n: number) => [
      ...many(Math.ceil(n / 2), { costVsMarketUsd: '1' }),
      ...many(Math.floor(n / 2), { costVsMarketUsd: '3' }),
    ];
    expect(summarizeBenchmark(costs(29)).hasSignal).toBe(false);
    const s = summarizeBenchmark(costs(30));
    // mean 2, s² = 30/29, half width = 1.96 · √(30/29) · √30 = 58.8 / √29 = 10.91888588…
    expect(s).toMatchObject({ hasSignal: true, sampleSize: 30, pointUsd: '60', lowUsd: '49.08', highUsd: '70.92', nearZero: false });
  });

  it('flags nearZero and suppresses the range when the interval contains zero', () => {
    const straddle = summarizeBenchmark([...many(15, { costVsMarketUsd: '1' }), ...many(15, { costVsMarketUsd: '-1.2' })]);
    expect(straddle).toMatchObject({ hasSignal: true, pointUsd: '-3', nearZero: true, lowUsd: '-3.00', highUsd: '-3.00' });
    // A zero-width interval at exactly 0 contains zero; at 0.30 it does not.
    expect(summarizeBenchmark(many(30, { costVsMarketUsd: '0' })).nearZero).toBe(true);
    expect(summarizeBenchmark(many(30, { costVsMarketUsd: '0.01' }))).toMatchObject({ nearZero: false, lowUsd: '0.30', highUsd: '0.30' });
  });

  it('decides nearZero on the printed (outward-rounded) bounds: a bound printed as 0.00 is near zero', () => {
    // Costs m ± 1 (15 each): half width = 1.96 · √(30/29) · √30 = 10.91888588…
    const pair = (a: string, b: string) => summarizeBenchmark([...many(15, { costVsMarketUsd: a }), ...many(15, { costVsMarketUsd: b })]);
    // point 10.92: low = +0.00111… (prints 0.00), high = 21.83888…: touches zero with a non-zero width.
    expect(pair('-0.636', '1.364')).toMatchObject({
      hasSignal: true,
      pointUsd: '10.92',
      nearZero: true,
      lowUsd: '10.92',
      highUsd: '10.92',
    });
    // point 10.95: low = +0.0311… prints 0.03, away from zero.
    expect(pair('-0.635', '1.365')).toMatchObject({ pointUsd: '10.95', nearZero: false, lowUsd: '0.03', highUsd: '21.87' });
    // The mirror: high = −0.00111… rounds up to zero; never printed as "-0.00".
    const mirror = pair('0.636', '-1.364');
    expect(mirror).toMatchObject({ pointUsd: '-10.92', nearZero: true, lowUsd: '-10.92', highUsd: '-10.92' });
    expect(pair('0.635', '-1.365')).toMatchObject({ pointUsd: '-10.95', nearZero: false, lowUsd: '-21.87', highUsd: '-0.03' });
  });

  it('never prints negative zero', () => {
    for (const cost of ['-0.005', '-0.004', '-0.0000001']) {
      const s = summarizeBenchmark([item({ costVsMarketUsd: cost }), item({}), item({})]);
      expect(s).toMatchObject({ pointUsd: cost, lowUsd: '0.00', highUsd: '0.00' });
    }
    expect(summarizeBenchmark([item({ costVsMarketUsd: '-0.006' })])).toMatchObject({ lowUsd: '-0.01', highUsd: '-0.01' });
    const zeros = summarizeBenchmark([...many(30, { costVsMarketUsd: '-0.00' })]);
    expect(zeros).toMatchObject({ pointUsd: '0', lowUsd: '0.00', highUsd: '0.00', nearZero: true });
    expect(JSON.stringify(zeros)).not.toContain('-0');
  });

  it('always discloses concentration below five transactions, even with no volume', () => {
    for (let n = 1; n <= 4; n++) expect(summarizeBenchmark(many(n, { amountUsd: '0' })).concentrationDisclosure).toBe(true);
    expect(summarizeBenchmark(many(4, { amountUsd: '100' })).concentrationDisclosure).toBe(true);
    expect(summarizeBenchmark(many(5, { amountUsd: '0' })).concentrationDisclosure).toBe(false);
  });

  it('discloses concentration strictly above 20% for one transaction and 50% for a provider or corridor', () => {
    expect(summarizeBenchmark(many(5, {})).concentrationDisclosure).toBe(false); // 20% each
    expect(summarizeBenchmark([...many(4, {}), item({ amountUsd: '100.0001' })]).concentrationDisclosure).toBe(true);
    const tenWith = (k: number, key: 'provider' | 'corridor') => [
      ...many(k, { amountUsd: '10', [key]: 'X' }),
      ...Array.from({ length: 10 - k }, (_, i) => item({ amountUsd: '10', [key]: `Y${i}` })),
    ];
    expect(summarizeBenchmark(tenWith(5, 'provider')).concentrationDisclosure).toBe(false);
    expect(summarizeBenchmark(tenWith(6, 'provider')).concentrationDisclosure).toBe(true);
    expect(summarizeBenchmark(tenWith(5, 'corridor')).concentrationDisclosure).toBe(false);
    expect(summarizeBenchmark(tenWith(6, 'corridor')).concentrationDisclosure).toBe(true);
  });

  it('discloses divergence only when counts and dollars point opposite ways', () => {
    const d = (c: number, o: number, cost: string) =>
      summarizeBenchmark([
        ...many(c, { benchmark: 'Competitive', costVsMarketUsd: '0' }),
        ...many(o, { benchmark: 'OffMarket', costVsMarketUsd: '0' }),
        item({ costVsMarketUsd: cost }),
      ]).divergenceDisclosure;
    expect(d(3, 1, '5')).toBe(true);
    expect(d(1, 3, '-5')).toBe(true);
    expect(d(1, 3, '5')).toBe(false);
    expect(d(2, 2, '5')).toBe(false);
    expect(d(3, 1, '0')).toBe(false);
  });
});

describe('exact scaled sums', () => {
  it('reads and prints decimals exactly, never "-0"', () => {
    for (const v of ['0', '12', '4.75', '-0.000000000000000001', '123456789012345678.123456789012345678', '-3.5']) {
      expect(fromScaled(toScaled(v))).toBe(v);
    }
    expect(fromScaled(toScaled('1.500'))).toBe('1.5');
    expect(fromScaled(toScaled('-0.0'))).toBe('0');
    expect(() => toScaled('1.0000000000000000001')).toThrow(/at most 18/);
    expect(() => toScaled('1e5')).toThrow();
  });

  it('gives the same range as a two-pass decimal computation of the variance', () => {
    const D = Decimal.clone({ precision: 60 });
    let seed = 7;
    const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let round = 0; round < 20; round++) {
      const n = 30 + Math.floor(rand() * 200);
      const costs = Array.from({ length: n }, () => ((rand() - 0.45) * 1000).toFixed(1 + Math.floor(rand() * 6)));
      const s = summarizeBenchmark(costs.map((c) => item({ costVsMarketUsd: c, amountUsd: '100' })));
      const cs = costs.map((c) => new D(c));
      const point = cs.reduce((a, c) => a.add(c), new D(0));
      const mean = point.div(n);
      const variance = cs.reduce((a, c) => a.add(c.sub(mean).pow(2)), new D(0)).div(n - 1);
      const half = new D('1.96').mul(variance.sqrt()).mul(new D(n).sqrt());
      const low = point.sub(half).toDecimalPlaces(2, Decimal.ROUND_FLOOR);
      const high = point.add(half).toDecimalPlaces(2, Decimal.ROUND_CEIL);
      expect(s.pointUsd).toBe(point.toFixed());
      if (!s.nearZero) expect([s.lowUsd, s.highUsd]).toEqual([low.toFixed(2), high.toFixed(2)]);
      else expect(low.lte(0) && high.gte(0)).toBe(true);
    }
  });
});
