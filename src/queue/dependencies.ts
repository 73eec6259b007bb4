import { statusIs } from './item-status.js';
import type { Item } from './item.js';

/** Statuses from which an item never reaches `done` unless a person acts. */
const STUCK = new Set(['failed', 'cancelled']);

/**
 * Why `item`'s dependencies can never all be met as the queue stands: one is missing, is the
 * item itself, would close a cycle, or is failed or cancelled. Undefined when they can be met.
 */
export function dependencyProblem(
  item: Pick<Item, 'id' | 'dependsOn'>,
  byId: ReadonlyMap<string, Pick<Item, 'id' | 'dependsOn' | 'status'>>,
): string | undefined {
  for (const id of item.dependsOn) {
    if (id === item.id) return `it depends on itself`;
    const dependency = byId.get(id);
    if (dependency === undefined) return `it depends on ${id}, which is not in the queue`;
    if (STUCK.has(dependency.status)) return `it depends on ${id}, which is ${dependency.status}`;
  }
  const cycle = findCycle(item, byId);
  return cycle === undefined ? undefined : `its dependencies form a cycle: ${cycle.join(' → ')}`;
}

/** A path of dependencies from `item` back to itself, if there is one. */
function findCycle(
  item: Pick<Item, 'id' | 'dependsOn'>,
  byId: ReadonlyMap<string, Pick<Item, 'id' | 'dependsOn'>>,
): string[] | undefined {
  const seen = new Set<string>();
  const walk = (id: string, trail: string[]): string[] | undefined => {
    if (id === item.id) return [...trail, id];
    if (seen.has(id)) return undefined;
    seen.add(id);
    for (const next of byId.get(id)?.dependsOn ?? []) {
      const found = walk(next, [...trail, id]);
      if (found !== undefined) return found;
    }
    return undefined;
  };
  for (const id of item.dependsOn) {
    const found = walk(id, [item.id]);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** Items waiting to run that never will until a person acts, each with the reason. */
export function unrunnableItems(items: readonly Item[]): { id: string; reason: string }[] {
  const byId = new Map(items.map((item) => [item.id, item]));
  const waiting = items.filter((item) => statusIs(item.status, 'runnable'));
  const found = new Map<string, string>();
  for (const item of waiting) {
    const reason = dependencyProblem(item, byId);
    if (reason !== undefined) found.set(item.id, reason);
  }
  // What waits on an item that cannot run cannot run either.
  for (let grew = true; grew;) {
    grew = false;
    for (const item of waiting) {
      if (found.has(item.id)) continue;
      const blocker = item.dependsOn.find((id) => found.has(id));
      if (blocker === undefined) continue;
      found.set(item.id, `it depends on ${blocker}, which cannot run`);
      grew = true;
    }
  }
  return [...found].map(([id, reason]) => ({ id, reason }));
}

/**
 * The ids of the items not done that depend on `id` directly: a done one waits for nothing (a
 * cancelled one may be retried, and would then wait).
 */
export function dependentsOf(id: string, items: readonly Item[]): string[] {
  return items
    .filter((item) => item.dependsOn.includes(id) && !statusIs(item.status, 'satisfiesDependents'))
    .map((item) => item.id);
}

/** The items `ids` name and every item they depend on, directly or not (those in `byId`). */
export function closureOf(ids: readonly string[], byId: ReadonlyMap<string, Item>): Item[] {
  const found = new Map<string, Item>();
  const visit = (id: string) => {
    const item = byId.get(id);
    if (item === undefined || found.has(id)) return;
    found.set(id, item);
    item.dependsOn.forEach(visit);
  };
  ids.forEach(visit);
  return [...found.values()];
}
