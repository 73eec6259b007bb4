import { statusIs } from './item-status.js';
import type { Item } from './item.js';
import { compareText } from '../lib/text.js';

/** Why an item that is not finished cannot run now; undefined when it can. */
export function blockedReason(
  item: Item,
  byId: ReadonlyMap<string, Item>,
  now: number,
): string | undefined {
  if (!statusIs(item.status, 'runnable')) return `it is ${item.status}`;
  const waitingOn = item.dependsOn.filter((id) => {
    const dependency = byId.get(id);
    return dependency === undefined || !statusIs(dependency.status, 'satisfiesDependents');
  });
  if (waitingOn.length > 0) return `it depends on ${waitingOn.join(', ')}`;
  if (item.notBefore !== undefined && Date.parse(item.notBefore) > now) {
    return `not before ${item.notBefore}`;
  }
  if (item.retryAfter !== undefined && Date.parse(item.retryAfter) > now) {
    return `retry after ${item.retryAfter}`;
  }
  return undefined;
}

/**
 * The next item to run: interrupted items first (they go back to the front), then highest
 * priority, then as the night's pacing orders them, then oldest. Items with unmet dependencies
 * or a time still to come are skipped, and those `skip` names.
 */
export function selectNext(
  items: readonly Item[],
  now: number,
  /** Items passed over now (their work dir is in use by another worker's item). */
  skip: (item: Item) => boolean = () => false,
  /** The pacing's order of item ids (items it does not name come after, oldest first). */
  pace: readonly string[] = [],
): Item | undefined {
  const byId = new Map(items.map((item) => [item.id, item]));
  const rank = new Map(pace.map((id, index) => [id, index]));
  let best: Item | undefined;
  let bestIndex = -1;
  items.forEach((item, index) => {
    if (blockedReason(item, byId, now) !== undefined || skip(item)) return;
    if (best === undefined || compare(item, index, best, bestIndex, rank) < 0) {
      best = item;
      bestIndex = index;
    }
  });
  return best;
}

/** Items in the order they would be selected, were they all runnable. */
export function inSelectionOrder(items: readonly Item[]): Item[] {
  return items
    .map((item, index) => ({ item, index }))
    .sort((a, b) => compare(a.item, a.index, b.item, b.index))
    .map(({ item }) => item);
}

function compare(
  a: Item,
  aIndex: number,
  b: Item,
  bIndex: number,
  pace: ReadonlyMap<string, number> = new Map(),
): number {
  const resumes =
    Number(statusIs(b.status, 'resumesSession')) - Number(statusIs(a.status, 'resumesSession'));
  if (resumes !== 0) return resumes;
  if (a.priority !== b.priority) return b.priority - a.priority;
  const paced = (pace.get(a.id) ?? Infinity) - (pace.get(b.id) ?? Infinity);
  if (paced !== 0 && !Number.isNaN(paced)) return paced;
  const aCreated = a.createdAt === undefined ? 0 : Date.parse(a.createdAt);
  const bCreated = b.createdAt === undefined ? 0 : Date.parse(b.createdAt);
  if (aCreated !== bCreated) return aCreated - bCreated;
  return aIndex - bIndex;
}

/**
 * The earliest future time at which a waiting item becomes runnable, if any. With
 * `retriesOnly`, only backoffs count (a drained run waits for its retries, not for schedules).
 */
export function nextWakeTime(
  items: readonly Item[],
  now: number,
  options: { retriesOnly?: boolean } = {},
): number | undefined {
  let earliest: number | undefined;
  for (const item of items) {
    if (!statusIs(item.status, 'runnable')) continue;
    if (options.retriesOnly && item.retryAfter === undefined) continue;
    const times = [options.retriesOnly ? undefined : item.notBefore, item.retryAfter]
      .filter((t): t is string => t !== undefined)
      .map((t) => Date.parse(t));
    const at = Math.max(...times, -Infinity);
    if (at > now && (earliest === undefined || at < earliest)) earliest = at;
  }
  return earliest;
}

/**
 * Items in the order they land: the order they finished, each after those of them it depends
 * on (a dependency lands first).
 */
export function landingOrder(items: readonly Item[]): Item[] {
  const byId = new Map(items.map((item) => [item.id, item]));
  const placed = new Set<string>();
  const order: Item[] = [];
  const place = (item: Item, path: Set<string>) => {
    if (placed.has(item.id) || path.has(item.id)) return;
    path.add(item.id);
    for (const dep of item.dependsOn) {
      const first = byId.get(dep);
      if (first !== undefined) place(first, path);
    }
    placed.add(item.id);
    order.push(item);
  };
  const finished = [...items].sort((a, b) => compareText(a.finishedAt ?? '', b.finishedAt ?? ''));
  for (const item of finished) place(item, new Set());
  return order;
}

/** Items in a stage's order: by `key` (an ISO time), the earliest first, the unset before all. */
const byTime =
  (key: (item: Item) => string | undefined) =>
  (items: readonly Item[]): Item[] =>
    [...items].sort((a, b) => compareText(key(a) ?? '', key(b) ?? ''));

/** Items waiting for their review: in the order they finished. */
export const reviewOrder = byTime((item) => item.finishedAt);

/** Items whose worktree waits for its setup: the one handed over first first. */
export const setupOrder = byTime((item) => item.updatedAt);

/** Items whose decision is being carried out: the oldest decision first. */
export const decisionOrder = byTime((item) => item.decision?.at);

/** Items awaiting their checks: the one that has waited longest (or not yet pushed) first. */
export const checksOrder = byTime((item) => item.checksSince);

/** Items whose candidates are judged: the one forked first first. */
export const judgingOrder = byTime((item) => item.updatedAt);
