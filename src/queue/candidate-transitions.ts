import { addUsd } from '../lib/usd.js';
import { pullRequestName } from './pull-request-name.js';
import type { CandidateEntry, DecisionEffect, Item, ItemDecision, Judgement } from './item.js';
import { accepted } from './decisions.js';
import { afterReview, takenGoesOn } from './transitions.js';
import { holderOf, statusIs } from './item-status.js';

// What candidates do to the item they try (`candidates`): its own work waits while they run,
// the one picked becomes its work, and an item none of them could be picked for goes no further.

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * Several CLIs are to try it: it waits (`judging`) for its roster's candidates, each an item of
 * its own already in the queue. Forked at its claim, the attempt is given back (and the session
 * its claim named, which never ran); forked after its own attempt failed, that attempt stays
 * counted and is the roster's first, out.
 */
export function candidatesForked(item: Item, roster: readonly CandidateEntry[], now: number): Item {
  const atClaim = holderOf(item.status) === 'worker';
  return {
    ...item,
    status: 'judging',
    attempts: atClaim ? Math.max(0, item.attempts - 1) : item.attempts,
    sessions: atClaim ? item.sessions.slice(0, -1) : item.sessions,
    roster: [...roster],
    judgement: undefined,
    finishedAt: undefined,
    retryAfter: undefined,
    updatedAt: iso(now),
  };
}

/**
 * Its own work failed (its gates stayed red, its reviewer's rounds are spent): its candidates
 * try it, that work the roster's first, out for why it failed, its branch kept.
 */
export function forkedAfterFailure(
  item: Item,
  candidates: readonly CandidateEntry[],
  now: number,
): Item {
  const out = item.lastError ?? item.lastOutcome ?? 'its attempt failed';
  const roster = candidates.map((c) =>
    c.item === undefined ? { ...c, out, branch: item.branch, head: item.head } : c,
  );
  return candidatesForked({ ...item, question: undefined }, roster, now);
}

/** What the item's work becomes: the picked candidate's branch, from its base, at its head. */
export interface PickedWork {
  branch: string;
  baseCommit: string;
  head: string;
  /** The session that left it there: the item's last now (its summary, its transcript). */
  session?: string;
}

/**
 * The gates and the judge picked a candidate: its work is the item's (`head` is what lands, is
 * pushed or merged), which goes on as approved work does. The item costs what its candidates
 * and its judge cost, its own first attempt included.
 */
export function candidatePicked(
  item: Item,
  e: {
    judgement: Judgement;
    pick: PickedWork;
    roster: readonly CandidateEntry[];
    then: { land: boolean; pullRequest: boolean };
    now: number;
  },
): Item {
  const picked = {
    ...withJudgement(item, { ...e.judgement, then: e.then }, e.roster, e.now),
    branch: e.pick.branch,
    baseCommit: e.pick.baseCommit,
    head: e.pick.head,
    sessions:
      e.pick.session === undefined || item.sessions.includes(e.pick.session)
        ? item.sessions
        : [...item.sessions, e.pick.session],
    lastError: undefined,
    lastOutcome: 'picked',
    finishedAt: iso(e.now),
  };
  return afterReview(
    picked,
    { land: e.then.land, checks: e.then.pullRequest && !e.then.land },
    undefined,
    e.now,
  );
}

/**
 * No candidate could be picked: none passed its gates (the item failed, each one's failure on
 * its page), or the judge could not pick one (it erred, or none met every criterion): a person
 * decides, and nothing goes on before.
 */
export function candidatesUnpicked(
  item: Item,
  e: {
    judgement: Judgement;
    roster: readonly CandidateEntry[];
    reason: string;
    passed: boolean;
    now: number;
  },
): Item {
  const judged = withJudgement(item, e.judgement, e.roster, e.now);
  if (!e.passed)
    return {
      ...judged,
      status: 'failed',
      lastOutcome: 'candidates_failed',
      lastError: e.reason,
      finishedAt: iso(e.now),
    };
  return {
    ...judged,
    status: 'needs_input',
    lastOutcome: 'unpicked',
    lastError: e.reason,
    question: `No candidate was picked: ${e.reason}. Retry or cancel the item.`,
  };
}

/** The roster and the judgement kept with the item, what they cost counted in its cost. */
function withJudgement(
  item: Item,
  judgement: Judgement,
  roster: readonly CandidateEntry[],
  now: number,
): Item {
  // Its own first attempt (no item of its own) is already in its cost.
  const candidates = roster
    .filter((c) => c.item !== undefined)
    .reduce((sum, c) => addUsd(sum, c.costUsd ?? 0), 0);
  return {
    ...item,
    roster: [...roster],
    judgement,
    costUsd: addUsd(addUsd(item.costUsd, candidates), judgement.costUsd),
    lookAgain: undefined,
    updatedAt: iso(now),
  };
}

/** Why candidate `letter` of the item cannot be taken by a person (none: it can). */
export function candidateRefusal(item: Item, letter: string): string | undefined {
  const roster = item.roster ?? [];
  const entry = roster.find((c) => c.letter === letter);
  if (entry === undefined)
    return roster.length === 0
      ? `${item.id} has no candidates`
      : `${item.id} has no candidate ${letter} (its candidates: ${roster.map((c) => c.letter).join(', ')})`;
  // Only work its gates passed may land.
  if (entry.out !== undefined || entry.head === undefined || entry.branch === undefined)
    return `candidate ${letter} of ${item.id} is out: ${entry.out ?? 'it left no commit'}`;
  // A merge is not undone here; an open pull request is closed for the one taken.
  if (item.pullRequest?.kind === 'item' && !statusIs(item.status, 'pullRequestOpen'))
    return `${item.id}'s ${pullRequestName(item.pullRequest)} was merged or closed: another candidate cannot be taken for it`;
  if (item.decision?.kind === 'accepted' && item.decision.candidate === letter)
    return `candidate ${letter} of ${item.id} was taken already`;
  return undefined;
}

/**
 * A person took candidate `decision.candidate`: its work becomes the item's, and goes on as the
 * pick's would have (it lands, or has a pull request of its own). A landing of the one picked
 * before is reverted first, its open pull request closed (by the decision stage, as a
 * rejection's are). Taking the one picked is an acceptance as any.
 */
export function candidateTaken(item: Item, decision: ItemDecision, now: number): Item {
  const entry = (item.roster ?? []).find((c) => c.letter === decision.candidate);
  if (entry?.head === undefined || entry.branch === undefined) return item;
  const taken: Item = {
    ...item,
    decision,
    branch: entry.branch,
    head: entry.head,
    question: undefined,
    lastError: undefined,
    lastOutcome: 'taken',
    updatedAt: iso(now),
  };
  // The one the judge picked, its work the item's already.
  if (decision.candidate === item.judgement?.picked && statusIs(item.status, 'complete'))
    return accepted(item, decision, now);
  const undo: DecisionEffect[] = [
    ...(item.landedCommit === undefined ? [] : (['revert'] as const)),
    ...(item.pullRequest?.kind === 'item' ? (['close_pull_request'] as const) : []),
  ];
  if (undo.length > 0)
    return {
      ...taken,
      status: 'deciding',
      decision: { ...decision, effects: undo, before: item.status },
    };
  return takenGoesOn(taken, now);
}
