import { createHash } from 'node:crypto';
import { holderOf, statusIs } from '../queue/item-status.js';
import type { Item, Source } from '../queue/item.js';
import { waitOf } from '../queue/decisions.js';
import { endText } from '../sources/issue-text.js';
import type { LinearState } from './tracker.js';

/** What an issue's state is to say of its item. */
export type Told = NonNullable<Source['told']>;

/** Each thing a state may say, in the order an item's life says them. */
export const TOLDS: readonly Told[] = ['started', 'review', 'done', 'back'];

/** A person rejected its work since it last started: back in line, or cancelled. */
const rejected = (item: Item) =>
  item.decision?.kind === 'rejected' && item.decision.at >= (item.startedAt ?? '');

/**
 * What the item's issue is to say now: `started` while its work runs, `review` while it waits on
 * a person's decision or answer, `done` once it is (accepted, merged, or done with nobody to
 * decide), `back` when a person rejected it or it failed; undefined before anything started, while
 * a decision is carried out, and for an issue Linear itself closed.
 */
export function toldOf(item: Item): Told | undefined {
  if (item.source?.closed === true || holderOf(item.status) === 'decider') return undefined;
  if (rejected(item)) return 'back';
  const wait = waitOf(item);
  if (wait === 'decide' || wait === 'answer') return 'review';
  if (statusIs(item.status, 'satisfiesDependents')) return 'done';
  if (statusIs(item.status, 'finished')) return 'back';
  if (holderOf(item.status) === 'person') return 'review';
  return item.attempts > 0 || holderOf(item.status) === 'worker' ? 'started' : undefined;
}

/**
 * The state of a team that says it, by type and never by name: the first `started` one; the last
 * `started` one for review (a team's "In Review" comes after its "In Progress"); the first
 * `completed`; the first `unstarted` (else `backlog`) for back.
 */
export function stateFor(told: Told, states: readonly LinearState[]): LinearState | undefined {
  const of = (type: string) => states.filter((s) => s.type === type);
  switch (told) {
    case 'started':
      return of('started')[0];
    case 'review':
      return of('started').at(-1);
    case 'done':
      return of('completed')[0];
    case 'back':
      return of('unstarted')[0] ?? of('backlog')[0];
  }
}

/** What the issue is told in a comment when its item ends or goes back; none otherwise. */
export function commentOf(item: Item, told: Told): string | undefined {
  if (told === 'done') return endText(item, '**done**');
  if (told !== 'back') return undefined;
  const note = item.decision?.kind === 'rejected' ? item.decision.note : undefined;
  return rejected(item)
    ? endText(
        item,
        `**rejected** by ${item.decision?.by ?? 'a person'}${note === undefined ? '' : `: ${note}`}`,
      )
    : endText(item);
}

/**
 * The id of the comment of this telling: the same for every try of it, so that Linear refuses a
 * second one (a UUID v4 in form, from a hash of the item and the moment).
 */
export function commentId(item: Item, told: Told): string {
  const moment = `${item.id}\u0000${told}\u0000${item.attempts}\u0000${item.sessions.length}\u0000${item.decision?.id ?? ''}`;
  const hex = createHash('sha256').update(moment).digest('hex');
  const variant = ((Number.parseInt(hex[16] ?? '0', 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}
