import type { DecisionEffect, Item, ItemDecision } from './item.js';
import { type ItemStatus, holderOf, statusIs } from './item-status.js';
import { afterReview, cancelled, retried, takenGoesOn, toLand } from './transitions.js';

// A person's decisions on an item's work (`ralph accept|reject|defer`), as pure transitions:
// what each does to the item at once, and what it leaves the decision stage to carry out on the
// world (an archive ref of its branch, a revert on the target, a pull request merged or closed).

const iso = (ms: number) => new Date(ms).toISOString();

/** The ref a rejected item's branch is kept under, once its branch is given up. */
export function rejectedRef(item: Pick<Item, 'id'>, decision: Pick<ItemDecision, 'id'>): string {
  return `refs/ralph/rejected/${item.id}/${decision.id}`;
}

/** Whether a person accepted the item's work as it is now (a later session's work is not). */
export function isAccepted(item: Item): boolean {
  const decision = item.decision;
  return decision?.kind === 'accepted' && decision.at >= (item.startedAt ?? '');
}

/** What an item waits on a person for: a decision on done work, an answer, a look at a failure. */
export type PersonWait = 'decide' | 'answer' | 'failure';

/** Whether the item waits on a person at `now` (a deferral hides it until its date). */
export function waitsOnPerson(item: Item, now: number): boolean {
  const decision = item.decision;
  if (decision?.kind === 'deferred' && Date.parse(decision.until ?? '') > now) return false;
  return waitOf(item) !== undefined;
}

/** What an item asks of a person, if anything. */
export function waitOf(item: Item): PersonWait | undefined {
  // A candidate's end is its item's to decide on (a question of its agent still asks a person).
  if (item.candidateOf !== undefined && statusIs(item.status, 'finished')) return undefined;
  const accepted = isAccepted(item);
  const waits: Partial<Record<ItemStatus, PersonWait | undefined>> = {
    done:
      item.sessions.length > 0 && !accepted && item.lastOutcome !== 'cancelled'
        ? 'decide'
        : undefined,
    awaiting_merge: accepted ? undefined : 'decide',
    needs_input: 'answer',
    failed: 'failure',
    parked: 'failure',
    // A reviewer that failed, a landing git could not make: they wait for a person to look.
    reviewing: item.unreviewed === undefined ? undefined : 'failure',
    landing: item.lookAgain === undefined ? undefined : 'failure',
    // A decision a killed command left half carried out: `ralph recover` finishes it.
    deciding: 'failure',
  };
  return waits[item.status];
}

/** What the decision stage is to carry out, or nothing left: the decision holds at once. */
function carrying(item: Item, decision: ItemDecision, effects: DecisionEffect[]): Item {
  return { ...item, status: 'deciding', decision: { ...decision, effects, before: item.status } };
}

/**
 * Accepted: a done item of git mode that has not landed is put in line to land; a pull request
 * waiting for a person is merged by the decision stage; anything else is recorded as it is.
 */
export function accepted(item: Item, decision: ItemDecision, now: number): Item {
  const at = { ...item, decision, updatedAt: iso(now) };
  if (holderOf(item.status) === 'person' && statusIs(item.status, 'pullRequestOpen'))
    return carrying(at, decision, ['merge_pull_request']);
  if (
    statusIs(item.status, 'complete') &&
    item.branch !== undefined &&
    item.landedCommit === undefined &&
    item.pullRequest === undefined
  )
    return toLand(at, now);
  return at;
}

/** Whether the item waits for a person because its reviewer asked for changes once too often. */
export function overReviewed(item: Item): boolean {
  return (
    waitOf(item) === 'answer' &&
    item.verdict?.overall === 'request_changes' &&
    item.head !== undefined &&
    item.branch !== undefined
  );
}

/**
 * Accepted over its reviewer (its rounds spent): the person's decision stands for an approval,
 * and the work goes on as an approved item's would (`then`: it lands, or its pull request opens,
 * or it is done).
 */
export function acceptedOverReview(
  item: Item,
  decision: ItemDecision,
  then: { land: boolean; pullRequest: boolean },
  now: number,
): Item {
  const at = { ...item, decision, question: undefined, updatedAt: iso(now) };
  return afterReview(
    at,
    { land: then.land, checks: then.pullRequest && !then.land },
    undefined,
    now,
  );
}

/**
 * Rejected: its branch is kept under an archive ref, a landing taken off the target by a revert
 * commit, its own pull request closed (each by the decision stage), then it goes back in line
 * with the note, or is cancelled.
 */
export function rejected(item: Item, decision: ItemDecision, now: number): Item {
  const effects: DecisionEffect[] = [];
  if (item.branch !== undefined) effects.push('keep_branch');
  if (item.landedCommit !== undefined) effects.push('revert');
  if (item.pullRequest?.kind === 'item' && statusIs(item.status, 'pullRequestOpen'))
    effects.push('close_pull_request');
  const at = { ...item, decision, updatedAt: iso(now) };
  return effects.length > 0 ? carrying(at, decision, effects) : afterRejection(at, now);
}

/**
 * A landing recorded after a rejection raced it (the train landed the item while a person
 * rejected it): the landing is kept on the item and the rejection reverts it, carried out by
 * the decision stage as any rejection of a landed item is.
 */
export function landedUnderRejection(
  item: Item,
  landing: { commit: string; target: string; onto: string },
  now: number,
): Item {
  const decision = item.decision;
  if (decision === undefined) return item;
  // In the order the stage carries them out: the branch kept first, then the revert.
  const left = decision.effects ?? [];
  const effects: DecisionEffect[] = [
    ...(left.includes('keep_branch') ? (['keep_branch'] as const) : []),
    'revert',
    ...left.filter((effect) => effect !== 'keep_branch' && effect !== 'revert'),
  ];
  return {
    ...item,
    status: 'deciding',
    updatedAt: iso(now),
    landedCommit: landing.commit,
    landedOn: landing.target,
    landedOnto: landing.onto,
    landedAt: iso(now),
    decision: { ...decision, effects, before: decision.before ?? item.status },
  };
}

/** Deferred: hidden from the inbox until `decision.until`; nothing else changes. */
export function deferred(item: Item, decision: ItemDecision, now: number): Item {
  return { ...item, decision, updatedAt: iso(now) };
}

/** One of the decision's effects carried out; the last one ends the decision. */
export function decisionCarried(item: Item, effect: DecisionEffect, now: number): Item {
  const decision = item.decision;
  if (decision === undefined) return item;
  const effects = (decision.effects ?? []).filter((e) => e !== effect);
  const at: Item = {
    ...item,
    updatedAt: iso(now),
    lookAgain: undefined,
    decision: { ...decision, effects },
    ...(effect === 'merge_pull_request' ? { mergedAt: iso(now) } : {}),
    // A landing reverted is no landing: the target no longer holds the work.
    ...(effect === 'revert'
      ? {
          landedCommit: undefined,
          landedOn: undefined,
          landedOnto: undefined,
          landedAt: undefined,
          revertedAt: iso(now),
        }
      : {}),
  };
  if (effects.length > 0) return at;
  const ended: Item = { ...at, decision: { ...decision, effects: undefined, before: undefined } };
  if (decision.kind === 'rejected') return afterRejection(ended, now);
  // Another candidate taken: its work goes on now that the one picked before is undone.
  return decision.candidate === undefined ? { ...ended, status: 'done' } : takenGoesOn(ended, now);
}

/**
 * The world refused an effect (a revert that conflicts or breaks a land gate, a pull request
 * that cannot be merged): the item goes back to where it was, the decision's failure said.
 */
export function decisionFailed(item: Item, failure: string, now: number): Item {
  const decision = item.decision;
  const before: ItemStatus = decision?.before ?? 'done';
  return {
    ...item,
    status: before,
    updatedAt: iso(now),
    decision:
      decision === undefined
        ? undefined
        : { ...decision, effects: undefined, before: undefined, failure },
  };
}

/**
 * A rejection's end: cancelled, or back in line afresh (its attempts renewed, its branch, landing
 * and pull request forgotten, as the stage gave them up) with the note as a person's message.
 */
function afterRejection(item: Item, now: number): Item {
  const decision = item.decision;
  if (decision?.then === 'cancel') return cancelled(item, now);
  const again = retried(item, now);
  const kept =
    item.branch === undefined || decision === undefined ? undefined : rejectedRef(item, decision);
  const text = [
    'A person rejected your earlier work on this item, and it starts again from the target.',
    decision?.note === undefined ? undefined : `Their note: ${decision.note}`,
    kept === undefined
      ? undefined
      : `The rejected work is kept at ${kept} (read it with git, do not merge it).`,
  ]
    .filter((line) => line !== undefined)
    .join('\n');
  return {
    ...again,
    branch: undefined,
    baseCommit: undefined,
    conversationId: undefined,
    landedCommit: undefined,
    landedOn: undefined,
    landedOnto: undefined,
    landedAt: undefined,
    landFailure: undefined,
    pullRequest: undefined,
    checksHead: undefined,
    checksSince: undefined,
    checks: undefined,
    checksFailure: undefined,
    mergedAt: undefined,
    gateFailure: undefined,
    reviewFindings: undefined,
    unreviewed: undefined,
    lastError: undefined,
    question: undefined,
    environment: undefined,
    messages: [...(item.messages ?? []), { text, from: decision?.by ?? 'a person', at: iso(now) }],
  };
}
