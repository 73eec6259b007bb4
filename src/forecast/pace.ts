import type { Item } from '../queue/item.js';
import type { Estimate } from './estimate.js';
import { statusIs } from '../queue/item-status.js';

/** A runnable item with what the forecast says of it. */
export interface Candidate {
  item: Item;
  cli: string;
  estimate: Estimate;
}

/**
 * Pacing: the order to start runnable items in (given in the queue's order), so that those
 * most likely to finish inside their CLI's window go first. `room` is the dollars each CLI may
 * still spend before its window runs out (a CLI absent from it has no known limit). Priority
 * still rules: items are reordered only among those of one priority, and only when the room
 * cannot hold them all; then, greedily, the likeliest to succeed of those that fit go first,
 * and those that fit no more go last, in the queue's order.
 */
export function paceOrder(
  candidates: readonly Candidate[],
  room: ReadonlyMap<string, number>,
): Candidate[] {
  const left = new Map(room);
  const order: Candidate[] = [];
  for (const tier of tiersOf(candidates)) {
    const fitsAll = fitsInOrder(tier, new Map(left));
    const paced = fitsAll ? tier : greedy(tier, left);
    for (const candidate of paced) spend(left, candidate);
    order.push(...paced);
  }
  return order;
}

/** The first of `paceOrder`, found in one pass: what a night starts next. */
export function nextPaced(
  candidates: readonly Candidate[],
  room: ReadonlyMap<string, number>,
): Candidate | undefined {
  const tier = tiersOf(candidates)[0] ?? [];
  if (fitsInOrder(tier, new Map(room))) return tier[0];
  let best: Candidate | undefined;
  for (const candidate of tier)
    if (
      fits(room, candidate) &&
      (best === undefined || candidate.estimate.chance > best.estimate.chance)
    )
      best = candidate;
  return best ?? tier[0];
}

/** Consecutive runs of one standing (interrupted first, then by priority). */
function tiersOf(candidates: readonly Candidate[]): Candidate[][] {
  const tiers: Candidate[][] = [];
  let key: string | undefined;
  for (const candidate of candidates) {
    const own = `${statusIs(candidate.item.status, 'resumesSession')}:${candidate.item.priority}`;
    if (own !== key) tiers.push([]);
    key = own;
    tiers[tiers.length - 1]?.push(candidate);
  }
  return tiers;
}

function fits(left: ReadonlyMap<string, number>, candidate: Candidate): boolean {
  const room = left.get(candidate.cli);
  return room === undefined || fitsIn(candidate.estimate.costUsd, room);
}

/** Whether a cost fits in the room left (sums of dollars carry binary fractions' dust). */
export function fitsIn(costUsd: number, roomUsd: number): boolean {
  return costUsd <= roomUsd + 1e-9;
}

function spend(left: Map<string, number>, candidate: Candidate): void {
  const room = left.get(candidate.cli);
  if (room !== undefined) left.set(candidate.cli, Math.max(0, room - candidate.estimate.costUsd));
}

function fitsInOrder(tier: readonly Candidate[], left: Map<string, number>): boolean {
  for (const candidate of tier) {
    if (!fits(left, candidate)) return false;
    spend(left, candidate);
  }
  return true;
}

/** The likeliest of those that still fit, one at a time; then the rest as they came. */
function greedy(tier: readonly Candidate[], room: ReadonlyMap<string, number>): Candidate[] {
  const left = new Map(room);
  const rest = [...tier];
  const order: Candidate[] = [];
  for (;;) {
    let best = -1;
    rest.forEach((candidate, index) => {
      if (!fits(left, candidate)) return;
      const chosen = rest[best];
      if (chosen === undefined || candidate.estimate.chance > chosen.estimate.chance) best = index;
    });
    const [chosen] = best < 0 ? [] : rest.splice(best, 1);
    if (chosen === undefined) break;
    spend(left, chosen);
    order.push(chosen);
  }
  return [...order, ...rest];
}
