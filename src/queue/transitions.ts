import { addUsd } from '../lib/usd.js';
import { exponentialBackoffMs } from '../lib/backoff.js';
import { nextCronTime } from '../lib/cron.js';
import type { EnvironmentKind, Item, ItemVerdict, Message } from './item.js';

const iso = (ms: number) => new Date(ms).toISOString();

/** Marks an item running for a session; the attempt is counted here, before anything spawns. */
export function claim(item: Item, sessionId: string, now: number): Item {
  return {
    ...item,
    status: 'running',
    attempts: item.attempts + 1,
    sessions: [...item.sessions, sessionId],
    startedAt: iso(now),
    updatedAt: iso(now),
    retryAfter: undefined,
  };
}

/** How a session ended, as far as its item is concerned. */
export type Settlement =
  /**
   * `land`: the item's branch lands on a target before it is done; `checks`: its pull request's
   * checks are awaited first (its branch is pushed and the pull request opened by the runner).
   */
  | {
      kind: 'succeeded';
      costUsd: number;
      conversationId?: string;
      land?: boolean;
      checks?: boolean;
      /** A reviewer approves its work first (`review`), before it lands or its checks. */
      review?: boolean;
      /** The agent ended asking a person this: the item waits for an answer (`ralph say`). */
      question?: string;
      /** The commit its branch was left at (git mode): what is gated, reviewed and landed. */
      head?: string;
    }
  /** A failure that spends the attempt; retried with backoff while attempts remain. */
  | {
      kind: 'failed';
      error: string;
      outcome: string;
      costUsd: number;
      retryable: boolean;
      /** A failed gate: the conversation the next attempt resumes, and what failed. */
      resumeWith?: string;
      gateFailure?: string;
    }
  /** Stopped before it could run (bad template, missing persona): the attempt is given back. */
  | {
      kind: 'rejected';
      error: string;
      outcome: string;
      /** Its settings cannot be used: parked for a person to fix, not failed. */
      park?: boolean;
    }
  /** Interrupted by a person or the runner's pause: back to the front, attempt given back. */
  | { kind: 'interrupted'; reason: string; costUsd: number; conversationId?: string }
  /** Not the item's fault (runner stopped, usage limit): pending again, attempt given back. */
  | {
      kind: 'released';
      costUsd: number;
      retryAfter?: number;
      /** The conversation its next start resumes (none: it starts afresh). */
      resumeWith?: string;
    };

/** The wait before a failed item's second attempt; it doubles with each further one. */
const RETRY_BACKOFF_BASE_MS = 60_000;
/** The longest wait between two attempts unless `run.retryBackoffCap` says otherwise. */
export const DEFAULT_RETRY_BACKOFF_CAP_MS = 30 * 60_000;

/** Capped exponential backoff before an item's next attempt, in milliseconds. */
export function retryBackoffMs(attempts: number, capMs = DEFAULT_RETRY_BACKOFF_CAP_MS): number {
  return exponentialBackoffMs(attempts, RETRY_BACKOFF_BASE_MS, capMs);
}

/** An item whose work is finished: done, or (recurring) pending for its next time. */
function completed(item: Item, now: number): Item {
  if (item.schedule !== undefined)
    return {
      ...item,
      status: 'pending',
      attempts: 0,
      notBefore: iso(nextCronTime(item.schedule, now)),
    };
  return { ...item, status: 'done' };
}

/** Applies a session's settlement to its item. */
export function settle(
  item: Item,
  settlement: Settlement,
  maxAttempts: number,
  now: number,
  retryBackoffCapMs = DEFAULT_RETRY_BACKOFF_CAP_MS,
): Item {
  const base = { ...item, updatedAt: iso(now), messages: deliveredMessages(item) };
  switch (settlement.kind) {
    case 'succeeded': {
      const finished = {
        ...base,
        costUsd: addUsd(item.costUsd, settlement.costUsd),
        lastOutcome: 'success',
        lastError: undefined,
        gateFailure: undefined,
        landFailure: undefined,
        checksFailure: undefined,
        reviewFindings: undefined,
        finishedAt: iso(now),
        conversationId: undefined,
        head: settlement.head ?? item.head,
      };
      // The conversation is kept: a landing or a check that fails hands the item back to it,
      // and an answer goes on in it.
      if (settlement.question !== undefined)
        return {
          ...finished,
          status: 'needs_input',
          question: settlement.question,
          lastOutcome: 'needs_input',
          finishedAt: undefined,
          conversationId: settlement.conversationId,
        };
      if (settlement.review === true)
        return {
          ...finished,
          status: 'reviewing',
          conversationId: settlement.conversationId,
          unreviewed: undefined,
        };
      return afterReview(finished, settlement, settlement.conversationId, now);
    }
    case 'failed': {
      const exhausted = !settlement.retryable || item.attempts >= maxAttempts;
      if (exhausted && item.schedule !== undefined) {
        // A recurring item keeps its schedule: this run failed, the next one may not.
        return {
          ...base,
          status: 'pending',
          attempts: 0,
          costUsd: addUsd(item.costUsd, settlement.costUsd),
          lastError: settlement.error,
          lastOutcome: settlement.outcome,
          notBefore: iso(nextCronTime(item.schedule, now)),
          retryAfter: undefined,
          conversationId: undefined,
          gateFailure: undefined,
        };
      }
      return {
        ...base,
        status: exhausted ? 'failed' : 'pending',
        costUsd: addUsd(item.costUsd, settlement.costUsd),
        lastError: settlement.error,
        lastOutcome: settlement.outcome,
        retryAfter: exhausted
          ? undefined
          : iso(now + retryBackoffMs(item.attempts, retryBackoffCapMs)),
        finishedAt: exhausted ? iso(now) : item.finishedAt,
        conversationId: exhausted ? undefined : settlement.resumeWith,
        gateFailure: settlement.gateFailure,
      };
    }
    case 'rejected':
      return {
        ...base,
        status: settlement.park === true ? 'parked' : 'failed',
        attempts: Math.max(0, item.attempts - 1),
        lastError: settlement.error,
        lastOutcome: settlement.outcome,
        finishedAt: settlement.park === true ? item.finishedAt : iso(now),
      };
    case 'interrupted':
      return {
        ...base,
        status: 'interrupted',
        attempts: Math.max(0, item.attempts - 1),
        costUsd: addUsd(item.costUsd, settlement.costUsd),
        lastOutcome: 'interrupted',
        lastError: settlement.reason,
        conversationId: settlement.conversationId ?? item.conversationId,
      };
    case 'released':
      // The attempt is given back, so it is no previous attempt: `lastError` (the next
      // prompt's "Previous attempt") keeps what the last counted attempt said.
      return {
        ...base,
        status: 'pending',
        attempts: Math.max(0, item.attempts - 1),
        costUsd: addUsd(item.costUsd, settlement.costUsd),
        retryAfter: settlement.retryAfter === undefined ? undefined : iso(settlement.retryAfter),
        conversationId: settlement.resumeWith,
      };
  }
}

/** Where a success goes once it needs no review (or a reviewer approved it). */
export function afterReview(
  item: Item,
  next: { land?: boolean; checks?: boolean },
  conversationId: string | undefined,
  now: number,
): Item {
  if (next.land === true) return { ...item, status: 'landing', conversationId };
  if (next.checks === true) return awaitingChecks(item, conversationId);
  return completed({ ...item, conversationId: undefined }, now);
}

/** A verdict kept with the item, its reviewer's cost counted in the item's. */
function withVerdict(item: Item, verdict: ItemVerdict, now: number): Item {
  return {
    ...item,
    updatedAt: iso(now),
    verdict,
    unreviewed: undefined,
    costUsd: addUsd(item.costUsd, verdict.costUsd),
    reviewCostUsd: addUsd(item.reviewCostUsd ?? 0, verdict.costUsd),
  };
}

/**
 * A reviewer approved the item's work: on to landing, its pull request, or done. An approval
 * that shows a criterion neither to pass nor to fail verified nothing of it: the item waits
 * for a person.
 */
export function reviewApproved(
  item: Item,
  verdict: ItemVerdict,
  next: { land?: boolean; checks?: boolean },
  now: number,
): Item {
  const unverified = verdict.criteria.filter((c) => c.verdict !== 'PASS').map((c) => c.id);
  if (unverified.length > 0)
    return {
      ...withVerdict(item, verdict, now),
      status: 'needs_input',
      lastOutcome: 'approved_unverified',
      lastError: `the reviewer approved without showing criterion ${unverified.join(', ')} to hold`,
      question: `The reviewer approved, but showed criterion ${unverified.join(', ')} neither to hold nor to fail (UNKNOWN): nothing lands unverified. Check it yourself: answer with \`ralph say\` to send it back to its agent, or retry or cancel it.`,
    };
  const approved = {
    ...withVerdict(item, verdict, now),
    lastError: undefined,
    reviewFindings: undefined,
    finishedAt: iso(now),
  };
  return afterReview(approved, next, item.conversationId, now);
}

/**
 * A reviewer asked for changes: the item goes back to its author on its own branch, resuming
 * its conversation, told the findings (a new attempt, counted when claimed); after
 * `maxRounds` such reviews it waits for a person with the last verdict (no debate between two
 * models goes on unwatched).
 */
export function reviewChangesRequested(
  item: Item,
  verdict: ItemVerdict,
  findings: string,
  maxRounds: number,
  now: number,
): Item {
  const rounds = (item.reviewRounds ?? 0) + 1;
  const base = {
    ...withVerdict(item, verdict, now),
    reviewRounds: rounds,
    reviewFindings: findings,
    lastOutcome: 'changes_requested',
    lastError: `the reviewer asked for changes: ${verdict.summary ?? 'see its findings'}`,
  };
  if (rounds >= maxRounds)
    return {
      ...base,
      status: 'needs_input',
      finishedAt: undefined,
      question: `The reviewer asked for changes ${rounds} times (the last: ${verdict.summary ?? 'see its findings'}). Answer with \`ralph say\` to send it back to its agent, or retry or cancel it.`,
    };
  return { ...base, status: 'pending', finishedAt: undefined, retryAfter: undefined };
}

/**
 * A reviewer that failed (an error, a timeout, a usage limit, no valid verdict): the item is
 * unreviewed, never approved; the stage looks again at `at`.
 */
export function reviewFailed(
  item: Item,
  failure: { reason: string; costUsd: number; at: number; looks: number },
  now: number,
): Item {
  return {
    ...item,
    updatedAt: iso(now),
    unreviewed: failure.reason,
    lastOutcome: 'unreviewed',
    lastError: `unreviewed: ${failure.reason}`,
    costUsd: addUsd(item.costUsd, failure.costUsd),
    reviewCostUsd: addUsd(item.reviewCostUsd ?? 0, failure.costUsd),
    lookAgain: { at: iso(failure.at), looks: failure.looks },
  };
}

/**
 * Requeues an item whose runner died while it ran: its attempt stays counted, and what its
 * session reported it cost (found in its archive) is added.
 */
export function reclaim(
  item: Item,
  reason: string,
  maxAttempts: number,
  now: number,
  costUsd = 0,
): Item {
  const exhausted = item.attempts >= maxAttempts;
  return {
    ...item,
    costUsd: addUsd(item.costUsd, costUsd),
    status: exhausted ? 'failed' : 'pending',
    lastError: reason,
    lastOutcome: 'runner_died',
    updatedAt: iso(now),
    finishedAt: exhausted ? iso(now) : item.finishedAt,
  };
}

/**
 * Stopped by a person (`ralph stop`): out of line until put back. Its session's settlement
 * gave its attempt back already; what it would resume stays with it.
 */
export function parked(item: Item, now: number): Item {
  return { ...item, status: 'parked', retryAfter: undefined, updatedAt: iso(now) };
}

/**
 * A claimed item whose worktree is not ready yet (a new one, or a kept one due its
 * maintenance): handed to the setup stage, its attempt given back.
 */
export function environmentWanted(item: Item, kind: EnvironmentKind, now: number): Item {
  return {
    ...item,
    status: 'preparing',
    attempts: Math.max(0, item.attempts - 1),
    environment: { ...item.environment, wanted: kind, failure: undefined },
    updatedAt: iso(now),
  };
}

/** Its worktree made ready for its next attempt: back in line as it was claimed. */
export function environmentReady(item: Item, log: string, now: number): Item {
  return {
    ...item,
    status: item.conversationId === undefined ? 'pending' : 'interrupted',
    environment: { readyAt: iso(now), readyFor: item.attempts, log },
    updatedAt: iso(now),
  };
}

/**
 * Its setup or maintenance failed: the environment's fault, not its agent's. Parked with why,
 * no attempt spent; `ralph resume` tries the environment again.
 */
export function environmentFailed(item: Item, failure: string, log: string, now: number): Item {
  return {
    ...item,
    status: 'parked',
    environment: { ...item.environment, wanted: undefined, failure, log },
    lastError: failure,
    lastOutcome: 'setup_failed',
    updatedAt: iso(now),
  };
}

/** A parked item back in line as it was (`ralph resume <id>`): to resume, if it has a conversation. */
export function unparked(item: Item, now: number): Item {
  return {
    ...item,
    status: item.conversationId === undefined ? 'pending' : 'interrupted',
    updatedAt: iso(now),
  };
}

/** A failed, cancelled or interrupted item back to pending, its attempts (and landings) renewed. */
export function retried(item: Item, now: number): Item {
  return {
    ...item,
    status: 'pending',
    attempts: 0,
    landRounds: undefined,
    checkRounds: undefined,
    reviewRounds: undefined,
    retryAfter: undefined,
    finishedAt: undefined,
    // Its candidates are forked again at its next claim (those that ended are not run again).
    roster: undefined,
    judgement: undefined,
    updatedAt: iso(now),
    // Its next end is told to its issue again.
    source: item.source === undefined ? undefined : { ...item.source, writtenBackAt: undefined },
  };
}

/** An item never to run; it stays in the queue. */
export function cancelled(item: Item, now: number): Item {
  return {
    ...item,
    status: 'cancelled',
    updatedAt: iso(now),
    conversationId: undefined,
    // A done item cancelled by force is not shown as a success any more.
    lastOutcome: item.status === 'done' ? 'cancelled' : item.lastOutcome,
  };
}

/** Git mode: the item's branch and the commit it was made from, at its first checkout. */
export function checkedOut(item: Item, checkout: { branch: string; baseCommit: string }): Item {
  return { ...item, branch: checkout.branch, baseCommit: checkout.baseCommit };
}

/**
 * A landing item whose work is on the target now, at `commit`; with `checks`, it awaits the
 * checks of the target's pull request (a failure comes back to its conversation).
 */
export function landed(
  item: Item,
  landing: { commit: string; target: string; onto: string; checks?: boolean },
  now: number,
): Item {
  const onTarget = {
    ...item,
    updatedAt: iso(now),
    landedCommit: landing.commit,
    landedOn: landing.target,
    landedOnto: landing.onto,
    landedAt: iso(now),
    revertedAt: undefined,
    landRounds: undefined,
    landFailure: undefined,
    lastError: undefined,
    conversationId: undefined,
  };
  if (landing.checks === true) return awaitingChecks(onTarget, item.conversationId);
  return completed(onTarget, now);
}

/** Why a landing failed: the outcome when it is the last round, and what the agent is told. */
export interface LandRefusal {
  /** `branch_moved`: its branch is not at the commit ralph recorded; a person looks first. */
  outcome:
    | 'land_conflict'
    | 'land_gate_failed'
    | 'land_setup_failed'
    | 'branch_moved'
    /** Its landing could not be made, try after try (a git that fails): no agent can fix it. */
    | 'land_failed';
  /** One line: the item's `lastError`. */
  error: string;
  /** For the next attempt's prompt: the conflicting files and the target's commits, or the gate. */
  failure: string;
}

/**
 * A landing that failed leaves the target as it was: the item goes back to its agent, on its
 * own branch and resuming its conversation, told why (a new attempt, counted when claimed);
 * after `maxRounds` failed landings it is failed, its branch kept.
 */
export function landRefused(
  item: Item,
  refusal: LandRefusal,
  maxRounds: number,
  now: number,
): Item {
  if (refusal.outcome === 'branch_moved')
    return {
      ...item,
      status: 'needs_input',
      updatedAt: iso(now),
      lastError: refusal.error,
      lastOutcome: refusal.outcome,
      question: `${refusal.error}. Look at the branch: \`ralph retry\` runs the item afresh, \`ralph cancel\` drops it.`,
    };
  const rounds = (item.landRounds ?? 0) + 1;
  const base = {
    ...item,
    updatedAt: iso(now),
    lastError: refusal.error,
    lastOutcome: refusal.outcome,
    landRounds: rounds,
    // Kept when it fails too: a `ralph retry` tells the agent why it did not land.
    landFailure: refusal.failure,
  };
  if (rounds >= maxRounds || refusal.outcome === 'land_failed')
    return { ...base, status: 'failed', finishedAt: iso(now), conversationId: undefined };
  return { ...base, status: 'pending', finishedAt: undefined };
}

/** A done item of git mode put in line to land (`ralph land` after a night without landing). */
export function toLand(item: Item, now: number): Item {
  return { ...item, status: 'landing', updatedAt: iso(now), landRounds: undefined };
}

/**
 * A candidate a person took goes on as the judge's pick would have (`judgement.then`: landing,
 * a pull request of its own, or done); the pull request of the one picked before, closed by
 * now, is forgotten. Taken before `then` was kept, it lands.
 */
export function takenGoesOn(item: Item, now: number): Item {
  const then = item.judgement?.then ?? { land: true, pullRequest: false };
  if (then.land) return toLand(item, now);
  const fresh: Item = {
    ...item,
    pullRequest: undefined,
    checksHead: undefined,
    checksSince: undefined,
    checks: undefined,
    checksFailure: undefined,
    checkRounds: undefined,
  };
  return afterReview(fresh, { checks: then.pullRequest }, undefined, now);
}

/** Waits for its pull request's checks: the runner pushes and opens it first (no `checksSince`). */
function awaitingChecks(item: Item, conversationId: string | undefined): Item {
  return {
    ...item,
    status: 'awaiting_checks',
    conversationId,
    // `checksHead` stays: the commit ralph last pushed, which its next push may replace.
    checksSince: undefined,
    checks: undefined,
  };
}

/** Its branch pushed at `head` and its pull request opened (or updated): its checks are awaited. */
export function pullRequestOpened(
  item: Item,
  opened: { pullRequest: NonNullable<Item['pullRequest']>; head: string },
  now: number,
): Item {
  return {
    ...item,
    updatedAt: iso(now),
    pullRequest: opened.pullRequest,
    checksHead: opened.head,
    checksSince: iso(now),
    checks: 'pending',
  };
}

/** What the checks say now, in a line, while they are awaited (`head`: the forge moved it). */
export function checksSeen(item: Item, checks: string, now: number, head?: string): Item {
  return { ...item, updatedAt: iso(now), checks, checksHead: head ?? item.checksHead };
}

/** Why an item's checks failed: the outcome when it is the last round, and what the agent is told. */
export interface ChecksRefusal {
  outcome: 'checks_failed' | 'changes_requested' | 'checks_timeout' | 'pull_request_refused';
  /** One line: the item's `lastError`. */
  error: string;
  /** For the next attempt's prompt: the failing checks, their annotations and log tails. */
  failure: string;
  /** The verdict in a line, kept for status. */
  checks: string;
}

/**
 * Checks that failed (or a review asking for changes): the item goes back to its agent on its
 * own branch, resuming its conversation, told what failed (a new attempt, counted when claimed);
 * after `maxRounds` rounds, or when the checks never ended, it is failed.
 */
export function checksFailed(
  item: Item,
  refusal: ChecksRefusal,
  maxRounds: number,
  now: number,
): Item {
  const rounds = (item.checkRounds ?? 0) + 1;
  const base = {
    ...item,
    updatedAt: iso(now),
    lastError: refusal.error,
    lastOutcome: refusal.outcome,
    checks: refusal.checks,
    checkRounds: rounds,
    checksFailure: refusal.failure,
  };
  if (
    rounds > maxRounds ||
    refusal.outcome === 'checks_timeout' ||
    refusal.outcome === 'pull_request_refused'
  )
    return { ...base, status: 'failed', finishedAt: iso(now), conversationId: undefined };
  return { ...base, status: 'pending', finishedAt: undefined, retryAfter: undefined };
}

/**
 * Green (and approved when asked): merged by the forge at `mergedAt`, or waiting for a person's
 * review (a recurring item is done with this time and pending for its next).
 */
export function checksPassed(
  item: Item,
  verdict: { checks: string; merged: boolean },
  now: number,
): Item {
  const passed: Item = {
    ...item,
    updatedAt: iso(now),
    finishedAt: iso(now),
    checks: verdict.checks,
    lastOutcome: verdict.merged ? 'merged' : 'ready_to_merge',
    lastError: undefined,
    checksFailure: undefined,
    conversationId: undefined,
    mergedAt: verdict.merged ? iso(now) : undefined,
  };
  if (verdict.merged || item.schedule !== undefined) return completed(passed, now);
  return { ...passed, status: 'awaiting_merge' };
}

/** The pull request that waited for a person's review, merged by them (or closed unmerged). */
export function pullRequestEnded(item: Item, merged: boolean, now: number): Item {
  return {
    ...item,
    status: 'done',
    updatedAt: iso(now),
    lastOutcome: merged ? 'merged' : 'pull_request_closed',
    mergedAt: merged ? iso(now) : undefined,
  };
}

/**
 * The item's messages, those its session was given marked so: the messages it had when it was
 * claimed (sent before `startedAt`) and that no earlier session was given.
 */
function deliveredMessages(item: Item): Message[] | undefined {
  const session = item.sessions.at(-1);
  const claimedAt = item.startedAt;
  if (item.messages === undefined || session === undefined || claimedAt === undefined)
    return item.messages;
  return item.messages.map((m) =>
    m.session === undefined && m.at <= claimedAt ? { ...m, session } : m,
  );
}

/** The messages no session was given yet: the next one's prompt tells them. */
export function undeliveredMessages(item: Item): Message[] {
  return (item.messages ?? []).filter((m) => m.session === undefined);
}

/**
 * The messages a running session's CLI was given on its live stdin, mid-task: those sent after
 * its claim (the ones before were in its prompt), marked given to it. An item no longer run by
 * `session` is left as it is.
 */
export function messagesGivenLive(item: Item, session: string, ats: readonly string[]): Item {
  if (item.status !== 'running' || item.sessions.at(-1) !== session || item.messages === undefined)
    return item;
  return {
    ...item,
    messages: item.messages.map((m) =>
      m.session === undefined && ats.includes(m.at) ? { ...m, session } : m,
    ),
  };
}

/** The messages sent to a running item after its claim: its prompt did not have them. */
export function messagesSinceClaim(item: Item): Message[] {
  const claimedAt = item.startedAt ?? '';
  return undeliveredMessages(item).filter((m) => m.at > claimedAt);
}

/**
 * A person's message, kept for the item's next session; an item that waited for an answer
 * (`needs_input`) goes back to the front of the line with it, its conversation kept.
 */
export function messageAdded(item: Item, message: Message, now: number): Item {
  const withMessage = {
    ...item,
    updatedAt: iso(now),
    messages: [...(item.messages ?? []), message],
  };
  if (item.status !== 'needs_input') return withMessage;
  return { ...withMessage, status: 'interrupted', question: undefined };
}

/** What an import may change of an item its source still asks for (while it waits). */
export type SourcedFields = Pick<Item, 'title' | 'body' | 'priority' | 'vars' | 'criteria'>;

/** The source changed the item's text (an edited issue, a reworded plan line). */
export function sourceUpdated(item: Item, fields: SourcedFields, now: number): Item {
  return { ...item, ...fields, updatedAt: iso(now) };
}

/** Done or closed at the source (a closed issue, a checked box): cancelled, nothing told back. */
export function closedAtSource(item: Item, now: number): Item {
  if (item.source === undefined) return item;
  return { ...cancelled(item, now), source: { ...item.source, closed: true } };
}

/**
 * Done at its source (a ticked box, a passing story, an issue closed as completed): done, so
 * what depends on it may run; no session of ralph's did it.
 */
export function doneAtSource(item: Item, now: number): Item {
  if (item.source === undefined) return item;
  return {
    ...item,
    status: 'done',
    lastOutcome: 'done_at_source',
    finishedAt: iso(now),
    updatedAt: iso(now),
    conversationId: undefined,
    source: { ...item.source, closed: true },
  };
}

/** Its end was written back to its issue. */
export function startTold(item: Item, now: number): Item {
  if (item.source === undefined) return item;
  return { ...item, source: { ...item.source, startToldAt: iso(now) } };
}

export function writtenBack(item: Item, now: number): Item {
  if (item.source === undefined) return item;
  return { ...item, source: { ...item.source, writtenBackAt: iso(now) } };
}
