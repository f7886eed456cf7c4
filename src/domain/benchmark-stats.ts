import { Decimal } from 'decimal.js';

/**
 * The import benchmark summary: how much the organization paid against the market over its
 * classified imported transactions, as a confidence-gated USD range. See docs/benchmark-summary.md.
 *
 * Per transaction i in the sample: v_i = amountUsd (volume) and c_i = costVsMarketUsd (USD paid above
 * the market rate; negative when it did better than market).
 * - pointUsd = Σ c_i (exact).
 * - The interval is Σ c_i ± Z · s · √n, where s is the sample standard deviation of c_i (n − 1 in
 *   the denominator): the normal-approximation 95% interval of a total of n draws.
 * - hasSignal needs n ≥ MIN_SAMPLE; nearZero is a printed interval (bounds rounded outward to cents)
 *   that contains zero; without signal or with nearZero the range is suppressed (lowUsd = highUsd =
 *   pointUsd rounded to cents). No amount is ever printed as "-0.00".
 */
export const SAMPLE_CLASSES = ['Competitive', 'InLine', 'OffMarket'] as const;
export type SampleClass = (typeof SAMPLE_CLASSES)[number];
export const MIN_SAMPLE = 30;
export const Z_95 = '1.96';
/** A provider or corridor holding more than this share of the volume is a concentration. */
export const GROUP_SHARE_LIMIT = '0.5';
/** One transaction holding more than this share of the volume is a concentration. */
export const SINGLE_SHARE_LIMIT = '0.2';
/** Fewer transactions than this always disclose concentration (with volume, one of them holds more than 20%). */
export const SMALL_SAMPLE = 5;

// 60 significant digits: sums of amounts with up to 18+18 digits over millions of rows stay exact.
const D = Decimal.clone({ precision: 60, rounding: Decimal.ROUND_HALF_EVEN });
type Dec = InstanceType<typeof D>;

export interface SampleItem {
  id: string;
  benchmark: SampleClass;
  amountUsd: string;
  costVsMarketUsd: string;
  provider: string | null;
  corridor: string | null;
}

export interface BenchmarkSummary {
  hasSignal: boolean;
  sampleSize: number;
  totalVolumeUsd: string;
  pointUsd: string;
  lowUsd: string;
  highUsd: string;
  competitiveCount: number;
  inLineCount: number;
  offMarketCount: number;
  concentrationDisclosure: boolean;
  divergenceDisclosure: boolean;
  nearZero: boolean;
}

const exact = (d: Dec): string => (d.isZero() ? '0' : d.toFixed());
const cents = (d: Dec, rounding: Decimal.Rounding): Dec => d.toDecimalPlaces(2, rounding);
/** Two decimals, and never "-0.00": a value that rounds to zero prints "0.00". */
const printCents = (d: Dec): string => (d.isZero() ? '0.00' : d.toFixed(2));

function largestShareOver(volumes: Map<string, Dec>, total: Dec, limit: string): boolean {
  for (const v of volumes.values()) if (v.gt(total.mul(limit))) return true;
  return false;
}

function concentration(items: SampleItem[], total: Dec): boolean {
  if (items.length === 0) return false;
  // A handful of transactions is always concentrated, whatever their volume (even all zero).
  if (items.length < SMALL_SAMPLE) return true;
  if (total.lte(0)) return false;
  const byProvider = new Map<string, Dec>();
  const byCorridor = new Map<string, Dec>();
  for (const it of items) {
    const v = new D(it.amountUsd);
    if (it.provider) byProvider.set(it.provider, (byProvider.get(it.provider) ?? new D(0)).add(v));
    if (it.corridor) byCorridor.set(it.corridor, (byCorridor.get(it.corridor) ?? new D(0)).add(v));
    if (v.gt(total.mul(SINGLE_SHARE_LIMIT))) return true;
  }
  return largestShareOver(byProvider, total, GROUP_SHARE_LIMIT) || largestShareOver(byCorridor, total, GROUP_SHARE_LIMIT);
}

/** The counts point one way (more OffMarket than Competitive, or the reverse) and the dollars the other. */
function divergence(competitive: number, offMarket: number, point: Dec): boolean {
  const countSign = Math.sign(offMarket - competitive);
  const dollarSign = point.isZero() ? 0 : point.isPositive() ? 1 : -1;
  return countSign !== 0 && dollarSign !== 0 && countSign !== dollarSign;
}

export function summarizeBenchmark(items: SampleItem[]): BenchmarkSummary {
  const n = items.length;
  const costs = items.map((i) => new D(i.costVsMarketUsd));
  const total = items.reduce((acc, i) => acc.add(i.amountUsd), new D(0));
  const point = costs.reduce((acc, c) => acc.add(c), new D(0));
  const count = (k: SampleClass) => items.filter((i) => i.benchmark === k).length;
  const competitiveCount = count('Competitive');
  const offMarketCount = count('OffMarket');
  const hasSignal = n >= MIN_SAMPLE;

  // The printed range: rounded outward to cents. nearZero is decided on these printed values, so an
  // answer never shows a bound of "0.00" while claiming the range is away from zero.
  let low = cents(point, Decimal.ROUND_FLOOR);
  let high = cents(point, Decimal.ROUND_CEIL);
  if (n >= 2) {
    const mean = point.div(n);
    const variance = costs.reduce((acc, c) => acc.add(c.sub(mean).pow(2)), new D(0)).div(n - 1);
    const halfWidth = new D(Z_95).mul(variance.sqrt()).mul(new D(n).sqrt());
    low = cents(point.sub(halfWidth), Decimal.ROUND_FLOOR);
    high = cents(point.add(halfWidth), Decimal.ROUND_CEIL);
  }
  const nearZero = hasSignal && low.lte(0) && high.gte(0);
  const showRange = hasSignal && !nearZero;
  const suppressed = printCents(cents(point, Decimal.ROUND_HALF_EVEN));
  return {
    hasSignal,
    sampleSize: n,
    totalVolumeUsd: exact(total),
    pointUsd: exact(point),
    lowUsd: showRange ? printCents(low) : suppressed,
    highUsd: showRange ? printCents(high) : suppressed,
    competitiveCount,
    inLineCount: count('InLine'),
    offMarketCount,
    concentrationDisclosure: concentration(items, total),
    divergenceDisclosure: divergence(competitiveCount, offMarketCount, point),
    nearZero,
  };
}
