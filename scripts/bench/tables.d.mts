/** One row of a bench run. */
export interface BenchRow {
  bench: string;
  name: string;
  value: number;
  unit: string;
  target: string;
  measure: 'ratio' | 'absolute';
  ok: boolean;
  detail: string;
}

/** A bench run's bench.json. */
export interface BenchResults {
  quick: boolean;
  only?: string;
  node: string;
  machine?: string;
  at: string;
  seconds: number;
  rows: BenchRow[];
}

export const START: string;
export const END: string;

/** The README (at `file`) with its tables replaced by those of `results`, laid out by prettier. */
export function withTables(readme: string, results: BenchResults, file: string): Promise<string>;
