import { statusIs } from '../queue/item-status.js';
import type { Item } from '../queue/item.js';
import { pullRequestName } from '../queue/pull-request-name.js';

// What an issue is told of the item made of it, on any tracker: where its work is, how it
// ended, its sessions and cost.

/** Where an item's work is: its landing, its pull request, its branch. */
function workLines(item: Item): string[] {
  const where = [
    item.landedOn === undefined
      ? undefined
      : `landed on \`${item.landedOn}\`${item.landedCommit === undefined ? '' : ` at ${item.landedCommit.slice(0, 12)}`}`,
    item.pullRequest === undefined
      ? undefined
      : `${pullRequestName(item.pullRequest)}: ${item.pullRequest.url}`,
    item.branch === undefined ? undefined : `branch \`${item.branch}\``,
  ].filter((part) => part !== undefined);
  return where.length === 0 ? [] : [`Its work: ${where.join('; ')}.`];
}

/** What an issue is told when its item starts. */
export function startText(item: Item): string {
  return [
    `ralph started on this issue as item \`${item.id}\`${item.agent === undefined ? '' : ` (agent ${item.agent})`}.`,
    ...workLines(item),
    'It says here again when the work ends.',
  ].join('\n\n');
}

/** How an ended item ended: done, failed and why, or cancelled by a person. */
function endedHow(item: Item): string {
  if (statusIs(item.status, 'satisfiesDependents')) return '**done**';
  if (statusIs(item.status, 'failure'))
    return `**failed** (${item.lastOutcome ?? 'failed'}): ${(item.lastError ?? '').split('\n')[0]?.slice(0, 300)}`;
  return '**cancelled** by a person';
}

/** What an issue is told when its item ends (`how`: how it ended, when a tracker says more). */
export function endText(item: Item, how = endedHow(item)): string {
  return [
    `ralph worked on this issue as item \`${item.id}\`: ${how}`,
    ...workLines(item),
    `${item.sessions.length} session${item.sessions.length === 1 ? '' : 's'}, $${item.costUsd.toFixed(2)}.`,
  ].join('\n\n');
}
