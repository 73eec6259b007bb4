/**
 * The one backoff policy: `baseMs` after the first failure, doubling after each further one,
 * never more than `capMs`.
 */
export function exponentialBackoffMs(failures: number, baseMs: number, capMs: number): number {
  return Math.min(baseMs * 2 ** Math.max(0, failures - 1), capMs);
}

/**
 * `ms` spread by ±`spread` (a fraction) at random: runners of a fleet that lost the database
 * together do not all come back, or sweep, in the same instant.
 */
export function jittered(ms: number, spread = 0.25, random: () => number = Math.random): number {
  return Math.round(ms * (1 - spread + 2 * spread * random()));
}
