import { ITEM_STATUSES } from '../queue/item-status.js';
import { LIFECYCLE, type ItemEventKind } from '../queue/lifecycle.js';
import { code, table } from './markdown.js';

/** Each move between two statuses, with the events that make it. */
function moves(): Map<string, ItemEventKind[]> {
  const byMove = new Map<string, ItemEventKind[]>();
  for (const [kind, rule] of Object.entries(LIFECYCLE) as [
    ItemEventKind,
    (typeof LIFECYCLE)[ItemEventKind],
  ][])
    for (const from of rule.from)
      for (const to of rule.to ?? [])
        if (to !== from) {
          const move = `${from} --> ${to}`;
          byMove.set(move, [...(byMove.get(move) ?? []), kind]);
        }
  return byMove;
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
    rule.from.length === ITEM_STATUSES.length ? 'any' : rule.from.join(', '),
    (rule.to ?? []).join(', ') || '(its status stays)',
  ]);
  return ['```mermaid\n' + lines.join('\n') + '\n```', table(['event', 'from', 'to'], events)].join(
    '\n\n',
  );
}
