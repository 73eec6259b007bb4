import { ITEM_STATUSES, type ItemStatus } from '../queue/item-status.js';
import { leadsTo, LIFECYCLE, type ItemEventKind } from '../queue/lifecycle.js';
import { code, table } from './markdown.js';

/** Each move between two statuses, with the events that make it. */
function moves(): Map<string, ItemEventKind[]> {
  const byMove = new Map<string, ItemEventKind[]>();
  for (const [kind, rule] of Object.entries(LIFECYCLE) as [
    ItemEventKind,
    (typeof LIFECYCLE)[ItemEventKind],
  ][])
    for (const from of rule.from)
      for (const to of leadsTo(kind, from))
        if (to !== from) {
          const move = `${from} --> ${to}`;
          byMove.set(move, [...(byMove.get(move) ?? []), kind]);
        }
  return byMove;
}

/** A set of statuses in the fewest words: `any but running` rather than ten names. */
function statuses(from: readonly ItemStatus[]): string {
  const others = ITEM_STATUSES.filter((status) => !from.includes(status));
  if (others.length === 0) return 'any';
  return others.length <= 2 ? `any but ${others.join(', ')}` : from.join(', ');
}

/**
 * An item's life as a Mermaid state diagram and a table, from the lifecycle table: what
 * docs/concepts.md shows between its markers.
 */
export function lifecycleDiagram(): string {
  const lines = ['stateDiagram-v2', '  [*] --> pending: added'];
  for (const [move, kinds] of moves()) lines.push(`  ${move}: ${kinds.join(', ')}`);
  const events = (
    Object.entries(LIFECYCLE) as [ItemEventKind, (typeof LIFECYCLE)[ItemEventKind]][]
  ).map(([kind, rule]) => [
    code(kind),
    statuses(rule.from),
    rule.from
      .flatMap((from) =>
        leadsTo(kind, from).map((to) => (Array.isArray(rule.to) ? to : `${to} (from ${from})`)),
      )
      .filter((to, i, all) => all.indexOf(to) === i)
      .join(', ') || '(its status stays)',
  ]);
  return ['```mermaid\n' + lines.join('\n') + '\n```', table(['event', 'from', 'to'], events)].join(
    '\n\n',
  );
}
