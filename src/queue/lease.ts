import type { Item } from './item.js';

/** The claim's fencing token: a session's end for an older attempt of the item is refused. */
export interface Lease {
  itemId: string;
  sessionId: string;
  /** The item's attempt number when claimed. */
  attempt: number;
}

/** What a session's end and a dead runner's requeue need to know of the workspace. */
export interface SettlePolicy {
  /** Attempts of an item that sets none. */
  maxAttempts: number;
  retryBackoffCapMs: number;
  now: number;
}

/** The lease a claim gives. */
export function leaseOf(item: Item): Lease {
  const sessionId = item.sessions.at(-1);
  if (sessionId === undefined) throw new Error(`item ${item.id} was never claimed`);
  return { itemId: item.id, sessionId, attempt: item.attempts };
}

/** Why an event under `lease` may not touch `current` (a later attempt holds it); undefined when it may. */
export function fenceReason(current: Item, lease: Lease): string | undefined {
  if (current.sessions.at(-1) !== lease.sessionId || current.attempts !== lease.attempt)
    return `attempt ${current.attempts} of the item is another session's (${String(current.sessions.at(-1))})`;
  return undefined;
}
