/**
 * The one backoff policy: `baseMs` after the first failure, doubling after each further one,
 * never more than `capMs`.
 */
export function exponentialBackoffMs(failures: number, baseMs: number, capMs: number): number {
  return Math.min(baseMs * 2 ** Math.max(0, failures - 1), capMs);
}
