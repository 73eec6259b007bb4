import type { Item } from './item.js';
import { compareText } from '../lib/text.js';
import type { LandingTally, PullRequestTally, StalledTally } from './queue.js';
import { holderOf, statusIs } from './item-status.js';

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
      .sort((a, b) => compareText(a.target, b.target)),
    refused: refused.sort((a, b) => compareText(a.id, b.id)),
  };
}

/** The pull requests awaiting checks or review, read from the items (the file queue). */
export function pullRequestTally(items: readonly Item[]): PullRequestTally[] {
  return items
    .filter((item) => item.pullRequest !== undefined && statusIs(item.status, 'pullRequestOpen'))
    .map((item) => ({
      id: item.id,
      number: item.pullRequest?.number ?? 0,
      url: item.pullRequest?.url ?? '',
      status: item.status,
      ...(item.checks === undefined ? {} : { checks: item.checks }),
      ...(item.pullRequest?.forge === undefined ? {} : { forge: item.pullRequest.forge }),
    }))
    .sort((a, b) => a.number - b.number);
}

/** The items waiting for a person's answer, with their questions (the file queue). */
export function questionTally(items: readonly Item[]): { id: string; question: string }[] {
  return items
    .filter((item) => statusIs(item.status, 'asksPerson'))
    .map((item) => ({ id: item.id, question: item.question ?? '' }));
}

/** The items unreviewed, and the decisions left half carried out (the file queue). */
export function stalledTally(items: readonly Item[]): StalledTally[] {
  return items.flatMap((item): StalledTally[] => {
    const { status } = item;
    if (holderOf(status) === 'reviewer' && item.unreviewed !== undefined)
      return [{ id: item.id, status, why: item.unreviewed }];
    if (holderOf(status) === 'decider') return [{ id: item.id, status, why: decidingWhy(item) }];
    return [];
  });
}

/** A decision being carried out, in a line: its kind and what is left of it. */
export function decidingWhy(item: Pick<Item, 'decision'>): string {
  return `${item.decision?.kind ?? 'decided'}, ${(item.decision?.effects ?? []).join(', ') || 'nothing'} left to carry out`;
}
