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

export function benchTables(results: BenchResults): string;
export function headlineTable(results: BenchResults): string;
export const START: string;
export const END: string;
export const HEADLINE_START: string;
export const HEADLINE_END: string;
export function withPart(
  page: string,
  file: string,
  start: string,
  end: string,
  text: string,
): string;
