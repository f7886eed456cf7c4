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
 * - hasSignal needs n ≥ MIN_SAMPLE; nearZero is an interval that contains zero; without signal or
 *   with nearZero the range is suppressed (lowUsd = highUsd = pointUsd rounded to cents).
 */
export const SAMPLE_CLASSES = ['Competitive', 'InLine', 'OffMarket'] as const;
export type SampleClass = (typeof SAMPLE_CLASSES)[number];
export const MIN_SAMPLE = 30;
export const Z_95 = '1.96';
/** A provider or corridor holding more than this share of the volume is a concentration. */
export const GROUP_SHARE_LIMIT = '0.5';
/** One transaction holding more than this share of the volume is a concentration. */
export const SINGLE_SHARE_LIMIT = '0.2';

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

function largestShareOver(volumes: Map<string, Dec>, total: Dec, limit: string): boolean {
  for (const v of volumes.values()) if (v.gt(total.mul(limit))) return true;
  return false;
}

function concentration(items: SampleItem[], total: Dec): boolean {
  if (items.length === 0 || total.lte(0)) return false;
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

  let low = point;
  let high = point;
  let nearZero = false;
  if (n >= 2) {
    const mean = point.div(n);
    const variance = costs.reduce((acc, c) => acc.add(c.sub(mean).pow(2)), new D(0)).div(n - 1);
    const halfWidth = new D(Z_95).mul(variance.sqrt()).mul(new D(n).sqrt());
    low = point.sub(halfWidth);
    high = point.add(halfWidth);
    nearZero = hasSignal && low.lte(0) && high.gte(0);
  }
  const showRange = hasSignal && !nearZero;
  return {
    hasSignal,
    sampleSize: n,
    totalVolumeUsd: exact(total),
    pointUsd: exact(point),
    lowUsd: showRange ? low.toFixed(2, Decimal.ROUND_FLOOR) : point.toFixed(2, Decimal.ROUND_HALF_EVEN),
    highUsd: showRange ? high.toFixed(2, Decimal.ROUND_CEIL) : point.toFixed(2, Decimal.ROUND_HALF_EVEN),
    competitiveCount,
    inLineCount: count('InLine'),
    offMarketCount,
    concentrationDisclosure: concentration(items, total),
    divergenceDisclosure: divergence(competitiveCount, offMarketCount, point),
    nearZero,
  };
}
