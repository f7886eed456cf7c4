import type { Row } from './report-table.js';

export interface BenchOptions {
  quick: boolean;
  soak: boolean;
  /**
   * PostgreSQL for the benchmarks that compare engines: an embedded server (`--postgres`) or the
   * server of `--database-url`; `peer: false` (`--no-peer`) leaves out the Graphile Worker peer.
   */
  postgres?: { url?: string; peer?: boolean };
  log: (line: string) => void;
}

/** A benchmark's figures: printed rows and the flat metrics written to results.json. */
export interface BenchOutcome {
  rows: Row[];
  metrics: Record<string, number | string | boolean>;
}

export interface Benchmark {
  name: string;
  title: string;
  run(opts: BenchOptions): Promise<BenchOutcome>;
}
