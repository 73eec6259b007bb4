import type { Item } from './item.js';
import type { LandingTally } from './queue.js';

/** What landing did, read from the items (the file queue; Postgres asks the same in SQL). */
export function landingTally(items: readonly Item[]): LandingTally {
  const targets = new Map<string, { landed: number; commit: string; at: string }>();
  const refused: LandingTally['refused'] = [];
  for (const item of items) {
    if (item.landedOn !== undefined && item.landedCommit !== undefined) {
      const at = item.landedAt ?? '';
      const seen = targets.get(item.landedOn);
      if (seen === undefined)
        targets.set(item.landedOn, { landed: 1, commit: item.landedCommit, at });
      else {
        seen.landed++;
        if (at > seen.at) Object.assign(seen, { commit: item.landedCommit, at });
      }
    }
    // A refusal's story is kept until the item lands (landing clears it).
    if (item.landFailure !== undefined)
      refused.push({ id: item.id, status: item.status, error: item.lastError ?? '' });
  }
  return {
    targets: [...targets]
      .map(([target, { landed, commit }]) => ({ target, landed, commit }))
      .sort((a, b) => a.target.localeCompare(b.target)),
    refused: refused.sort((a, b) => a.id.localeCompare(b.id)),
  };
}
