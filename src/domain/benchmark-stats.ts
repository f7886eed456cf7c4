/**
 * The import benchmark summary: how much the organization paid against the market over its
 * classified imported transactions, as a confidence-gated USD range. See docs/benchmark-summary.md.
 *
 * @module domain/benchmark-stats
 */
import { Decimal } from 'decimal.js';

/**
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
export const GROUP_SHARE_LIMIT = [1n, 2n] as const; // one half
/** One transaction holding more than this share of the volume is a concentration. */
export const SINGLE_SHARE_LIMIT = [1n, 5n] as const; // one fifth
/** Fewer transactions than this always disclose concentration (with volume, one of them holds more than 20%). */
const SMALL_SAMPLE = 5;

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

/**
 * Amounts arrive as decimal strings with at most 18 fractional digits (the import's rule), so sums
 * are exact as integers scaled by 10^18 (squares by 10^36): one pass, no per-row objects, whatever
 * the sample size. decimal.js is used once per summary, for the square root of the variance.
 */
const SCALE = 18;
const ONE = 10n ** BigInt(SCALE);
const DECIMAL = /^(-?)(\d+)(?:\.(\d{1,18}))?$/;

export function toScaled(value: string): bigint {
  const m = DECIMAL.exec(value);
  if (!m) throw new Error(`not a decimal with at most ${SCALE} fractional digits: ${value}`);
  const v = BigInt(m[2]!) * ONE + BigInt((m[3] ?? '').padEnd(SCALE, '0'));
  return m[1] ? -v : v;
}

/** The exact value as a minimal decimal string ("4.75", "12", "0"; never "-0"). */
export function fromScaled(v: bigint, scale = SCALE): string {
  const neg = v < 0n;
  const digits = (neg ? -v : v).toString().padStart(scale + 1, '0');
  const int = digits.slice(0, -scale);
  const frac = digits.slice(-scale).replace(/0+$/, '');
  const text = frac ? `${int}.${frac}` : int;
  return neg && text !== '0' ? `-${text}` : text;
}

const cents = (d: Dec, rounding: Decimal.Rounding): Dec => d.toDecimalPlaces(2, rounding);
/** Two decimals, and never "-0.00": a value that rounds to zero prints "0.00". */
const printCents = (d: Dec): string => (d.isZero() ? '0.00' : d.toFixed(2));

/** part > limit × total, in integers: the limit is a fraction [num, den]. */
const over = (part: bigint, total: bigint, [num, den]: readonly [bigint, bigint]): boolean => part * den > total * num;

function addTo(groups: Map<string, bigint>, key: string | null, v: bigint): void {
  if (key !== null) groups.set(key, (groups.get(key) ?? 0n) + v);
}

/** The counts point one way (more OffMarket than Competitive, or the reverse) and the dollars the other. */
function divergence(competitive: number, offMarket: number, point: bigint): boolean {
  const countSign = Math.sign(offMarket - competitive);
  const dollarSign = point === 0n ? 0 : point > 0n ? 1 : -1;
  return countSign !== 0 && dollarSign !== 0 && countSign !== dollarSign;
}

/** The sample's running sums, one item at a time: the summary never holds the sample itself. */
export class BenchmarkSample {
  #n = 0;
  #total = 0n; // Σ v, scale 18
  #point = 0n; // Σ c, scale 18
  #squares = 0n; // Σ c², scale 36
  #largest = 0n; // max v: one transaction's share of the volume
  readonly #counts: Record<SampleClass, number> = { Competitive: 0, InLine: 0, OffMarket: 0 };
  readonly #byProvider = new Map<string, bigint>();
  readonly #byCorridor = new Map<string, bigint>();

  add(it: SampleItem): void {
    const v = toScaled(it.amountUsd);
    const c = toScaled(it.costVsMarketUsd);
    this.#n++;
    this.#total += v;
    this.#point += c;
    this.#squares += c * c;
    if (v > this.#largest) this.#largest = v;
    this.#counts[it.benchmark]++;
    addTo(this.#byProvider, it.provider, v);
    addTo(this.#byCorridor, it.corridor, v);
  }

  summary(): BenchmarkSummary {
    return summaryOf(this.#n, this.#total, this.#point, this.#squares, this.#largest, this.#counts, this.#byProvider, this.#byCorridor);
  }
}

/** The summary of a sample held whole (tests, small callers). */
export function summarizeBenchmark(items: Iterable<SampleItem>): BenchmarkSummary {
  const sample = new BenchmarkSample();
  for (const it of items) sample.add(it);
  return sample.summary();
}

function summaryOf(
  n: number,
  total: bigint,
  point: bigint,
  squares: bigint,
  largest: bigint,
  counts: Record<SampleClass, number>,
  byProvider: Map<string, bigint>,
  byCorridor: Map<string, bigint>,
): BenchmarkSummary {
  const hasSignal = n >= MIN_SAMPLE;
  const pointD = new D(fromScaled(point));

  // The printed range: rounded outward to cents. nearZero is decided on these printed values, so an
  // answer never shows a bound of "0.00" while claiming the range is away from zero.
  let low = cents(pointD, Decimal.ROUND_FLOOR);
  let high = cents(pointD, Decimal.ROUND_CEIL);
  if (n >= 2) {
    // Σ(c − mean)² = (n·Σc² − (Σc)²) / n, exact; the sample variance divides that by n − 1.
    const spread = new D(fromScaled(BigInt(n) * squares - point * point, 2 * SCALE));
    const variance = spread.div(n).div(n - 1);
    const halfWidth = new D(Z_95).mul(variance.sqrt()).mul(new D(n).sqrt());
    low = cents(pointD.sub(halfWidth), Decimal.ROUND_FLOOR);
    high = cents(pointD.add(halfWidth), Decimal.ROUND_CEIL);
  }
  const nearZero = hasSignal && low.lte(0) && high.gte(0);
  const showRange = hasSignal && !nearZero;
  const suppressed = printCents(cents(pointD, Decimal.ROUND_HALF_EVEN));
  const anyOver = (groups: Map<string, bigint>) => [...groups.values()].some((g) => over(g, total, GROUP_SHARE_LIMIT));
  // A handful of transactions is always concentrated, whatever their volume (even all zero).
  const concentrationDisclosure =
    n > 0 && (n < SMALL_SAMPLE || (total > 0n && (over(largest, total, SINGLE_SHARE_LIMIT) || anyOver(byProvider) || anyOver(byCorridor))));
  return {
    hasSignal,
    sampleSize: n,
    totalVolumeUsd: fromScaled(total),
    pointUsd: fromScaled(point),
    lowUsd: showRange ? printCents(low) : suppressed,
    highUsd: showRange ? printCents(high) : suppressed,
    competitiveCount: counts.Competitive,
    inLineCount: counts.InLine,
    offMarketCount: counts.OffMarket,
    concentrationDisclosure,
    divergenceDisclosure: divergence(counts.Competitive, counts.OffMarket, point),
    nearZero,
  };
}
