/**
 * Writes a night of `items` items with `sessionsPerItem` sessions each straight into the
 * workspace's queue file and sessions index (no agent runs); their ids are `item-<n>`.
 */
export function writeReviewNight(
  root: string,
  night: { items: number; sessionsPerItem?: number; start?: number },
): { items: number; sessions: number };
