/** Order statistics for latency samples (nearest-rank on a sorted copy). */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return 0;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank]!;
}

export interface LatencySummary {
  count: number;
  p50: number;
  p95: number;
  p99: number;
  max: number;
}

export function summarize(samples: readonly number[]): LatencySummary {
  const sorted = [...samples].sort((a, b) => a - b);
  return {
    count: sorted.length,
    p50: percentile(sorted, 50),
    p95: percentile(sorted, 95),
    p99: percentile(sorted, 99),
    max: sorted.at(-1) ?? 0,
  };
}

/** Rounds for printing and for results.json: 3 significant decimals are plenty for a benchmark. */
export const round = (n: number, digits = 2): number => Number(n.toFixed(digits));

export const mb = (bytes: number): number => round(bytes / (1024 * 1024), 1);
