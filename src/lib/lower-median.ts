/**
 * The middle value of `values`, the lower of the two middle ones of an even count: a figure that
 * one of them really had (a wait, a time on a page). None of no values.
 */
export function lowerMedian(values: readonly number[]): number | undefined {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)];
}
