import type { Item } from './item.js';
import { type ItemStatus, holderOf } from './item-status.js';
import { leaseOf } from './lease.js';
import { appliedOrThrow, applyEvent, type ItemEvent, type SessionStages } from './lifecycle.js';

// A plan (the dry run, the night plan) assumes that every step of an item goes well. It moves
// the item through the table's own events, so it frees the item's dependents exactly where a
// night would: once the item lands or its checks pass, not once its session ends.

/** Where an item's path ends when each of its steps went well, and what it went through. */
export interface ForeseenPath {
  item: Item;
  /** The statuses it passed through after its session, the last where it rests. */
  through: ItemStatus[];
}

/** A session's success of `item` (a runnable one), then each stage's success, in the table. */
export function foreseenPath(
  item: Item,
  stages: SessionStages | undefined,
  sessionId: string,
  now: number,
): ForeseenPath {
  const claimed = appliedOrThrow(applyEvent(item, { kind: 'claimed', sessionId, now }));
  let at = appliedOrThrow(
    applyEvent(claimed, {
      kind: 'session_ended',
      lease: leaseOf(claimed),
      settlement: { kind: 'succeeded', costUsd: 0 },
      policy: { maxAttempts: claimed.attempts, retryBackoffCapMs: 0, now },
      stages,
    }),
  );
  const through: ItemStatus[] = [at.status];
  for (let step = stepOf(at, stages, now); step !== undefined; step = stepOf(at, stages, now)) {
    at = appliedOrThrow(applyEvent(at, step));
    through.push(at.status);
  }
  return { item: at, through };
}

/** The event that moves an item on from a stage's status when the stage's step went well. */
function stepOf(item: Item, stages: SessionStages | undefined, now: number): ItemEvent | undefined {
  switch (holderOf(item.status)) {
    case 'reviewer':
      return {
        kind: 'review_approved',
        verdict: {
          overall: 'approve',
          criteria: (item.criteria ?? []).map((_, i) => ({
            id: i + 1,
            verdict: 'PASS',
            evidence: 'foreseen',
          })),
          findings: [],
          cli: 'plan',
          session: 'plan',
          costUsd: 0,
          at: new Date(now).toISOString(),
        },
        then: { land: stages?.land ?? false, pullRequest: stages?.pullRequest ?? false },
        now,
      };
    case 'lander':
      return { kind: 'landed', landing: { commit: 'plan', target: 'plan', onto: 'plan' }, now };
    case 'checks':
      return { kind: 'checks_passed', checks: 'passed', merged: false, now };
    default:
      return undefined;
  }
}
