import { InputError } from '../lib/errors.js';
import type {
  CandidateEntry,
  DecisionEffect,
  EnvironmentKind,
  Item,
  ItemDecision,
  ItemEdit,
  ItemVerdict,
  Judgement,
  Message,
  Source,
} from './item.js';
import { lifeFieldsIn } from './item-life.js';
import {
  candidatePicked,
  candidatesForked,
  forkedAfterFailure,
  candidatesUnpicked,
  candidateRefusal,
  candidateTaken,
  type PickedWork,
} from './candidate-transitions.js';
import {
  accepted,
  decisionCarried,
  decisionFailed,
  deferred,
  isAccepted,
  acceptedOverReview,
  overReviewed,
  landedUnderRejection,
  rejected,
} from './decisions.js';
import { ITEM_STATUSES, holderOf, statusesWhere, type ItemStatus } from './item-status.js';
import { fenceReason, type Lease, type SettlePolicy } from './lease.js';
import {
  cancelled,
  checkedOut,
  checksFailed,
  checksPassed,
  checksSeen,
  claim,
  closedAtSource,
  doneAtSource,
  environmentFailed,
  environmentReady,
  environmentWanted,
  landed,
  landRefused,
  messageAdded,
  messagesGivenLive,
  parked,
  pullRequestEnded,
  pullRequestOpened,
  afterReview,
  reclaim,
  retried,
  reviewApproved,
  reviewChangesRequested,
  reviewFailed,
  settle,
  sourceUpdated,
  toLand,
  unparked,
  startTold,
  writtenBack,
  type ChecksRefusal,
  type LandRefusal,
  type Settlement,
  type SourcedFields,
} from './transitions.js';

// An item's life in one table: every event it can go through, the statuses each may start from,
// and the pure function that applies it. Both queue backends apply events through `applyEvent`
// alone, so what may follow what is said here once.

/** What a session's work goes through after it succeeds, as the workspace's settings say. */
export interface SessionStages {
  /** Its branch lands on a target (`git.land`). */
  land: boolean;
  /** Its branch is pushed and a pull request opened, whose checks are awaited (`forge`). */
  pullRequest: boolean;
  /** The remote its branch is pushed to (`git.push`), by the push stage. */
  push?: string;
  /** A reviewer approves its work before any of the above (`review`). */
  review?: boolean;
}

/** Everything that can happen to an item. */
export type ItemEvent =
  | { kind: 'claimed'; sessionId: string; now: number }
  /** Its session ended; `stages` are what a success goes through before the item is done. */
  | {
      kind: 'session_ended';
      lease: Lease;
      settlement: Settlement;
      policy: SettlePolicy;
      stages?: SessionStages;
      /** Its candidates, should this end fail it (`candidates.when: after_failure`). */
      candidates?: readonly CandidateEntry[];
    }
  | { kind: 'checked_out'; lease: Lease; checkout: { branch: string; baseCommit: string } }
  /** Messages given to its running session on its stdin, mid-task. */
  | { kind: 'messages_given_live'; session: string; ats: readonly string[] }
  /** Its runner died while it ran: back in line, its attempt counted. */
  | { kind: 'runner_died'; reason: string; policy: SettlePolicy; costUsd: number }
  /** A person stopped its session (`ralph stop`): parked, or cancelled. */
  | { kind: 'stopped'; then: 'park' | 'cancel'; now: number }
  | { kind: 'unparked'; now: number }
  /** Its worktree is not ready for the session claimed: the setup stage is to run `wanted`. */
  | { kind: 'environment_wanted'; lease: Lease; wanted: EnvironmentKind; now: number }
  /** Its setup (or maintenance) ran: its worktree is ready, `log` says how. */
  | { kind: 'environment_ready'; log: string; now: number }
  /** Its setup (or maintenance) failed: `failure` is the command and the end of its output. */
  | { kind: 'environment_failed'; failure: string; log: string; now: number }
  /** Its reviewer approved its work: on to `then` (landing, its pull request), or done. */
  | {
      kind: 'review_approved';
      verdict: ItemVerdict;
      then: Pick<SessionStages, 'land' | 'pullRequest'>;
      now: number;
    }
  /**
   * Its reviewer asked for changes (`findings`, for its agent): back to it; its rounds spent, to
   * its `candidates` (`after_failure`), else to a person.
   */
  | {
      kind: 'review_changes_requested';
      verdict: ItemVerdict;
      findings: string;
      maxRounds: number;
      candidates?: readonly CandidateEntry[];
      now: number;
    }
  /** Its reviewer failed (no valid verdict): unreviewed, looked at again at `at`. */
  | {
      kind: 'review_failed';
      reason: string;
      costUsd: number;
      at: number;
      looks: number;
      now: number;
    }
  | { kind: 'landed'; landing: Parameters<typeof landed>[1]; now: number }
  | { kind: 'landing_refused'; refusal: LandRefusal; maxRounds: number; now: number }
  /** A done item of git mode put in line to land (`ralph land`). */
  | { kind: 'sent_to_land'; now: number }
  /** A change of ralph's own that a person accepted (the rules' file): it lands, or goes to a pull request. */
  | { kind: 'rules_sent'; then: { land: boolean; pullRequest: boolean }; now: number }
  | {
      kind: 'pull_request_opened';
      opened: Parameters<typeof pullRequestOpened>[1];
      now: number;
    }
  | { kind: 'checks_seen'; checks: string; head?: string; now: number }
  | { kind: 'checks_failed'; refusal: ChecksRefusal; maxRounds: number; now: number }
  /** Green (and approved when asked): merged by the forge, or waiting for a person's review. */
  | { kind: 'checks_passed'; checks: string; merged: boolean; now: number }
  /** Its pull request was closed unmerged while its checks were awaited. */
  | { kind: 'pull_request_closed'; now: number }
  /** A person merged (or closed) the pull request that waited for their review. */
  | { kind: 'pull_request_ended'; merged: boolean; now: number }
  /** A person's message (`ralph say`); an item that asked a question takes it as the answer. */
  | { kind: 'messaged'; message: Message; now: number }
  | { kind: 'retried'; now: number; force?: boolean }
  | { kind: 'cancelled'; now: number; force?: boolean }
  /** `ralph edit`: the fields given set, those in `cleared` back to their defaults. */
  | { kind: 'edited'; fields: ItemEdit; cleared: readonly string[]; now: number }
  | { kind: 'source_updated'; fields: SourcedFields; now: number }
  | { kind: 'closed_at_source'; now: number }
  | { kind: 'done_at_source'; now: number }
  /** Its start was told to its issue. */
  | { kind: 'start_told'; now: number }
  /** Its tracker's issue was moved to the state of this meaning (Linear's). */
  | { kind: 'source_told'; told: NonNullable<Source['told']>; now: number }
  /** Its end was told to its issue. */
  | { kind: 'written_back'; now: number }
  /** Its branch was pushed to the remote it waited for. */
  | { kind: 'pushed'; session: string; now: number }
  /** Its push failed: the push stage tries again at `at` (`looks` failed pushes so far). */
  | { kind: 'push_deferred'; session: string; at: number; looks: number }
  /** The stage tending it looks again at `at` (`looks` since it last moved). */
  | {
      kind: 'look_again';
      at: number;
      looks: number;
      /** Why it was not moved on this time, kept as its `lastError`. */
      reason?: string;
    }
  /** A person accepted its work (`ralph accept`): it lands, its pull request is merged, or it is done. */
  /**
   * A person accepted the item's work; `over` when it waits after its reviewer's rounds were
   * spent: the person overrules the reviewer, and the work goes on as an approval's would.
   */
  | {
      kind: 'accepted';
      decision: ItemDecision;
      over?: { land: boolean; pullRequest: boolean };
      now: number;
    }
  /**
   * A person accepted it with another of its candidates (`ralph accept --candidate`): that one's
   * work goes on as the pick's would have, the pick's landing reverted or its pull request
   * closed first.
   */
  | { kind: 'candidate_taken'; decision: ItemDecision; now: number }
  /** A person rejected its work (`ralph reject`), with a note: taken off, then back in line or cancelled. */
  | { kind: 'rejected'; decision: ItemDecision; now: number }
  /** A person put off deciding on it (`ralph defer`) until `decision.until`. */
  | { kind: 'deferred'; decision: ItemDecision; now: number }
  /**
   * Several CLIs are to try it (`candidates`): its candidates' items are in the queue, and it
   * waits for them (claimed, its attempt given back; or after its own attempt failed).
   */
  | {
      kind: 'candidates_forked';
      roster: readonly CandidateEntry[];
      /** The commit every candidate starts from. */
      base: string;
      lease: Lease;
      now: number;
    }
  /** The gates and the judge picked a candidate: its work is the item's, on to `then`. */
  | {
      kind: 'candidate_picked';
      judgement: Judgement;
      pick: PickedWork;
      roster: readonly CandidateEntry[];
      then: Pick<SessionStages, 'land' | 'pullRequest'>;
      now: number;
    }
  /** No candidate could be picked: none passed (it failed), or the judge could not pick. */
  | {
      kind: 'candidates_unpicked';
      judgement: Judgement;
      roster: readonly CandidateEntry[];
      reason: string;
      passed: boolean;
      now: number;
    }
  /** The decision stage carried out one of its decision's effects. */
  | { kind: 'decision_carried'; effect: DecisionEffect; now: number }
  /** The world refused its decision's effect: back where it was, `failure` says why. */
  | { kind: 'decision_failed'; failure: string; now: number };

export type ItemEventKind = ItemEvent['kind'];
type EventOf<K extends ItemEventKind> = Extract<ItemEvent, { kind: K }>;

/** What the table holds for one event. */
export interface Rule<K extends ItemEventKind> {
  from: readonly ItemStatus[];
  /**
   * The statuses it may lead to besides the one it starts from, from any of `from` or by the
   * status it starts from (none: it never moves an item).
   */
  to?: readonly ItemStatus[] | Partial<Record<ItemStatus, readonly ItemStatus[]>>;
  /** The statuses `--all` picks for a person's event (`from` is what an id may name). */
  bulk?: readonly ItemStatus[];
  /** Why this item may not go through the event although its status allows it. */
  refuse?: (item: Item, event: EventOf<K>) => string | undefined;
  apply: (item: Item, event: EventOf<K>) => Item;
}

const RUNNABLE = statusesWhere('runnable');

/** A branch is pushed while its item waits anywhere but in a session (which may change it). */
const NOT_RUNNING = ITEM_STATUSES.filter((status) => status !== 'running');

/** A push is of the branch as one session left it: a later session's waits for its own push. */
const nothingToPush = (item: Item, event: { session: string }) =>
  item.pushTo === undefined
    ? 'its branch waits for no push'
    : item.sessions.at(-1) !== event.session
      ? `a later session than ${event.session} changed its branch: that one waits to be pushed`
      : undefined;

/** What a person may reject or defer: work that waits on them, or that is over. */
const DECIDED_ON: readonly ItemStatus[] = [
  'done',
  'awaiting_merge',
  'awaiting_checks',
  'reviewing',
  'landing',
  'needs_input',
  'parked',
  'failed',
  'interrupted',
];

const leaseRefusal = (item: Item, event: { lease: Lease }) => fenceReason(item, event.lease);

/** The table of an item's life: for each event, its rule. */
export type Lifecycle = { readonly [K in ItemEventKind]: Rule<K> };

/** The item's life: for each event, the statuses it may start from and what it does. */
export const LIFECYCLE: Lifecycle = {
  claimed: { to: ['running'], from: RUNNABLE, apply: (item, e) => claim(item, e.sessionId, e.now) },
  session_ended: {
    to: [
      'done',
      'pending',
      'failed',
      'interrupted',
      'needs_input',
      'parked',
      'reviewing',
      'landing',
      'awaiting_checks',
      'judging',
    ],
    from: ['running'],
    refuse: leaseRefusal,
    apply: (item, e) =>
      afterFailure(
        pushAfter(
          settle(
            item,
            afterSession(e.settlement, e.stages),
            item.maxAttempts ?? e.policy.maxAttempts,
            e.policy.now,
            e.policy.retryBackoffCapMs,
          ),
          e,
        ),
        e,
      ),
  },
  checked_out: {
    from: ['running'],
    refuse: (item, e) =>
      leaseRefusal(item, e) ??
      (item.branch === e.checkout.branch && item.baseCommit === e.checkout.baseCommit
        ? 'its checkout is recorded'
        : undefined),
    apply: (item, e) => checkedOut(item, e.checkout),
  },
  messages_given_live: {
    from: ['running'],
    apply: (item, e) => messagesGivenLive(item, e.session, e.ats),
  },
  runner_died: {
    to: ['pending', 'failed'],
    from: ['running'],
    apply: (item, e) =>
      reclaim(item, e.reason, item.maxAttempts ?? e.policy.maxAttempts, e.policy.now, e.costUsd),
  },
  stopped: {
    to: ['parked', 'cancelled'],
    from: RUNNABLE,
    apply: (item, e) => (e.then === 'cancel' ? cancelled(item, e.now) : parked(item, e.now)),
  },
  unparked: {
    to: ['pending', 'interrupted'],
    from: ['parked'],
    apply: (item, e) => unparked(item, e.now),
  },
  environment_wanted: {
    to: ['preparing'],
    from: ['running'],
    refuse: leaseRefusal,
    apply: (item, e) => environmentWanted(item, e.wanted, e.now),
  },
  environment_ready: {
    to: ['pending', 'interrupted'],
    from: ['preparing'],
    apply: (item, e) => environmentReady(item, e.log, e.now),
  },
  environment_failed: {
    to: ['parked'],
    from: ['preparing'],
    apply: (item, e) => environmentFailed(item, e.failure, e.log, e.now),
  },
  review_approved: {
    to: ['landing', 'awaiting_checks', 'done', 'pending', 'needs_input'],
    from: ['reviewing'],
    apply: (item, e) =>
      reviewApproved(
        item,
        e.verdict,
        { land: e.then.land, checks: e.then.pullRequest && !e.then.land },
        e.now,
      ),
  },
  review_changes_requested: {
    to: ['pending', 'needs_input', 'judging'],
    from: ['reviewing'],
    apply: (item, e) => {
      const after = reviewChangesRequested(item, e.verdict, e.findings, e.maxRounds, e.now);
      return e.candidates === undefined || holderOf(after.status) !== 'person'
        ? after
        : forkedAfterFailure(after, e.candidates, e.now);
    },
  },
  review_failed: {
    from: ['reviewing'],
    apply: (item, e) => reviewFailed(item, e, e.now),
  },
  landed: {
    to: {
      landing: ['done', 'pending', 'awaiting_checks'],
      pending: ['deciding'],
      cancelled: ['deciding'],
    },
    // A rejection that raced the landing (taken while the train gathered it, carried out or
    // not): the landing is recorded all the same, and the rejection reverts it.
    from: ['landing', 'deciding', 'pending', 'cancelled'],
    refuse: (item) =>
      item.status === 'landing' || item.decision?.kind === 'rejected'
        ? undefined
        : `landed does not apply to a ${item.status} item that no rejection raced`,
    apply: (item, e) =>
      item.status === 'landing'
        ? landed(item, e.landing, e.now)
        : landedUnderRejection(item, e.landing, e.now),
  },
  landing_refused: {
    to: ['pending', 'failed', 'needs_input'],
    from: ['landing'],
    apply: (item, e) => landRefused(item, e.refusal, e.maxRounds, e.now),
  },
  sent_to_land: {
    to: ['landing'],
    from: ['done', 'landing'],
    // An item waiting to land again after a failed try is tried now: a person asked.
    apply: (item, e) =>
      item.status === 'landing' ? { ...item, lookAgain: undefined } : toLand(item, e.now),
  },
  rules_sent: {
    to: ['landing', 'awaiting_checks'],
    from: ['done'],
    refuse: (_item, e) =>
      e.then.land || e.then.pullRequest ? undefined : 'it neither lands nor goes to a pull request',
    apply: (item, e) =>
      afterReview(
        item,
        { land: e.then.land, checks: e.then.pullRequest && !e.then.land },
        undefined,
        e.now,
      ),
  },
  pull_request_opened: {
    from: ['awaiting_checks'],
    apply: (item, e) => pullRequestOpened(item, e.opened, e.now),
  },
  checks_seen: {
    from: ['awaiting_checks'],
    apply: (item, e) => checksSeen(item, e.checks, e.now, e.head),
  },
  checks_failed: {
    to: ['pending', 'failed'],
    from: ['awaiting_checks'],
    apply: (item, e) => checksFailed(item, e.refusal, e.maxRounds, e.now),
  },
  checks_passed: {
    to: ['awaiting_merge', 'done', 'pending'],
    from: ['awaiting_checks'],
    apply: (item, e) => checksPassed(item, { checks: e.checks, merged: e.merged }, e.now),
  },
  pull_request_closed: {
    to: ['cancelled'],
    from: ['awaiting_checks'],
    apply: (item, e) => cancelled(item, e.now),
  },
  pull_request_ended: {
    to: ['done'],
    from: ['awaiting_merge'],
    apply: (item, e) => pullRequestEnded(item, e.merged, e.now),
  },
  messaged: {
    // An item that asked a question takes the message as its answer, and is resumed with it.
    to: { needs_input: ['interrupted'] },
    from: statusesWhere('takesMessages'),
    apply: (item, e) => messageAdded(item, e.message, e.now),
  },
  retried: {
    to: ['pending'],
    // A decision being carried out on the world ends first (`deciding`).
    from: ITEM_STATUSES.filter((s) => s !== 'running' && s !== 'pending' && s !== 'deciding'),
    bulk: ['failed', 'cancelled', 'interrupted', 'parked'],
    refuse: (item, e) =>
      isDone(item) && e.force !== true
        ? `item ${JSON.stringify(item.id)} is ${item.status}; retrying runs it again (and pays for it): give --force to do so`
        : undefined,
    apply: (item, e) => retried(item, e.now),
  },
  cancelled: {
    to: ['cancelled'],
    from: ITEM_STATUSES.filter((s) => s !== 'running' && s !== 'deciding'),
    bulk: [
      'pending',
      'preparing',
      'interrupted',
      'failed',
      'reviewing',
      'landing',
      'awaiting_checks',
      'needs_input',
      'parked',
    ],
    refuse: (item, e) =>
      isDone(item) && e.force !== true
        ? `item ${JSON.stringify(item.id)} is ${item.status}; give --force to cancel it all the same`
        : undefined,
    apply: (item, e) => cancelled(item, e.now),
  },
  edited: {
    from: ITEM_STATUSES.filter((s) => s !== 'running'),
    // Its life moves only by the table's events: an edit that carries any of it changes nothing.
    refuse: (_item, e) => {
      const named = [...lifeFieldsIn(e.fields), ...lifeFieldsIn(e.cleared)];
      return named.length === 0 ? undefined : `an edit cannot change ${named.join(', ')}`;
    },
    apply: (item, e) => {
      const next: Record<string, unknown> = {
        ...item,
        ...e.fields,
        updatedAt: new Date(e.now).toISOString(),
      };
      for (const key of e.cleared) delete next[key];
      return next as unknown as Item;
    },
  },
  source_updated: { from: ['pending'], apply: (item, e) => sourceUpdated(item, e.fields, e.now) },
  closed_at_source: {
    to: ['cancelled'],
    from: ['pending'],
    apply: (item, e) => closedAtSource(item, e.now),
  },
  done_at_source: {
    to: ['done'],
    from: ['pending'],
    apply: (item, e) => doneAtSource(item, e.now),
  },
  start_told: {
    from: ITEM_STATUSES,
    refuse: (item) =>
      item.source === undefined
        ? 'it was not imported'
        : item.source.startToldAt !== undefined
          ? 'its start was told already'
          : undefined,
    apply: (item, e) => startTold(item, e.now),
  },
  source_told: {
    from: ITEM_STATUSES,
    refuse: (item, e) =>
      item.source === undefined
        ? 'it was not imported'
        : item.source.told === e.told
          ? `its issue was told "${e.told}" already`
          : undefined,
    apply: (item, e) =>
      item.source === undefined ? item : { ...item, source: { ...item.source, told: e.told } },
  },
  written_back: {
    from: statusesWhere('finished'),
    refuse: (item) =>
      item.source?.writtenBackAt !== undefined ? 'its end was told already' : undefined,
    apply: (item, e) => writtenBack(item, e.now),
  },
  pushed: {
    from: NOT_RUNNING,
    refuse: nothingToPush,
    apply: ({ pushTo, ...item }, e) => ({
      ...item,
      pushedTo: pushTo?.remote,
      updatedAt: new Date(e.now).toISOString(),
    }),
  },
  push_deferred: {
    from: NOT_RUNNING,
    refuse: nothingToPush,
    apply: (item, e) => ({
      ...item,
      pushTo: item.pushTo && {
        remote: item.pushTo.remote,
        at: new Date(e.at).toISOString(),
        looks: e.looks,
      },
    }),
  },
  accepted: {
    to: {
      done: ['landing'],
      awaiting_merge: ['deciding'],
      needs_input: ['landing', 'awaiting_checks', 'done'],
    },
    from: ['done', 'awaiting_merge', 'needs_input'],
    refuse: (item, e) =>
      isAccepted(item)
        ? `${item.id} was accepted already`
        : item.status === 'needs_input' && (e.over === undefined || !overReviewed(item))
          ? `accepted does not apply to a ${item.status} item that waits for an answer (ralph say), its reviewer's rounds not spent`
          : undefined,
    apply: (item, e) =>
      item.status === 'needs_input' && e.over !== undefined
        ? acceptedOverReview(item, e.decision, e.over, e.now)
        : accepted(item, e.decision, e.now),
  },
  candidate_taken: {
    to: {
      done: ['landing', 'deciding'],
      needs_input: ['landing', 'awaiting_checks', 'done'],
      awaiting_merge: ['deciding'],
    },
    from: ['done', 'needs_input', 'awaiting_merge'],
    refuse: (item, e) => candidateRefusal(item, e.decision.candidate ?? ''),
    apply: (item, e) => candidateTaken(item, e.decision, e.now),
  },
  rejected: {
    to: ['deciding', 'pending', 'cancelled'],
    from: DECIDED_ON,
    apply: (item, e) => rejected(item, e.decision, e.now),
  },
  deferred: {
    from: DECIDED_ON,
    apply: (item, e) => deferred(item, e.decision, e.now),
  },
  decision_carried: {
    to: ['done', 'pending', 'cancelled', 'landing', 'awaiting_checks'],
    from: ['deciding'],
    refuse: (item, e) =>
      item.decision?.effects?.includes(e.effect) === true
        ? undefined
        : `its decision has no ${e.effect} left to carry out`,
    apply: (item, e) => decisionCarried(item, e.effect, e.now),
  },
  decision_failed: {
    to: [
      'done',
      'awaiting_checks',
      'awaiting_merge',
      'failed',
      'landing',
      'reviewing',
      'needs_input',
      'parked',
      'interrupted',
    ],
    from: ['deciding'],
    apply: (item, e) => decisionFailed(item, e.failure, e.now),
  },
  candidates_forked: {
    to: ['judging'],
    from: ['running'],
    refuse: (item, e) =>
      item.roster !== undefined
        ? 'its candidates are forked already'
        : item.candidateOf !== undefined
          ? 'a candidate has no candidates of its own'
          : fenceReason(item, e.lease),
    apply: (item, e) => candidatesForked({ ...item, baseCommit: e.base }, e.roster, e.now),
  },
  candidate_picked: {
    to: ['landing', 'awaiting_checks', 'done'],
    from: ['judging'],
    apply: (item, e) => candidatePicked(item, e),
  },
  candidates_unpicked: {
    to: ['failed', 'needs_input'],
    from: ['judging'],
    apply: (item, e) => candidatesUnpicked(item, e),
  },
  look_again: {
    from: statusesWhere('waitsOnWorld'),
    apply: (item, e) => ({
      ...item,
      lookAgain: { at: new Date(e.at).toISOString(), looks: e.looks },
      ...(e.reason === undefined ? {} : { lastError: e.reason }),
    }),
  },
};

/** The statuses `kind` may lead an item in status `from` to, besides `from` itself. */
export function leadsTo(
  kind: ItemEventKind,
  from: ItemStatus,
  table: Lifecycle = LIFECYCLE,
): readonly ItemStatus[] {
  const to = table[kind].to ?? [];
  return isStatusList(to) ? to : (to[from] ?? []);
}

function isStatusList(
  to: readonly ItemStatus[] | Partial<Record<ItemStatus, readonly ItemStatus[]>>,
): to is readonly ItemStatus[] {
  return Array.isArray(to);
}

/** Done, or waiting for a person's review of a pull request that is done as far as ralph goes. */
function isDone(item: Item): boolean {
  return item.status === 'done' || item.status === 'awaiting_merge';
}

/** A success's branch waits to be pushed (`git.push`), whatever stage it goes through next. */
function pushAfter(item: Item, e: EventOf<'session_ended'>): Item {
  const remote = e.stages?.push;
  if (remote === undefined || e.settlement.kind !== 'succeeded') return item;
  return { ...item, pushTo: { remote, looks: 0 } };
}

/**
 * An end that failed the item hands it to its candidates (`candidates.when: after_failure`):
 * its own attempt is the roster's first, out for why it failed.
 */
function afterFailure(item: Item, e: EventOf<'session_ended'>): Item {
  if (e.candidates === undefined || item.status !== 'failed' || item.roster !== undefined)
    return item;
  return forkedAfterFailure(item, e.candidates, e.policy.now);
}

/** A success goes through the stages the workspace turns on for a branch of its own. */
function afterSession(settlement: Settlement, stages: SessionStages | undefined): Settlement {
  if (settlement.kind !== 'succeeded' || stages === undefined) return settlement;
  if (stages.review === true) return { ...settlement, review: true };
  if (stages.land) return { ...settlement, land: true };
  if (stages.pullRequest) return { ...settlement, checks: true };
  return settlement;
}

/** Whether the table lets `kind` start from `status` (its rule may still refuse the item). */
export function appliesTo(kind: ItemEventKind, status: ItemStatus, table = LIFECYCLE): boolean {
  return table[kind].from.includes(status);
}

/** An event applied, or refused with why. */
export type Applied =
  { kind: 'applied'; item: Item } | { kind: 'refused'; reason: string; item?: Item };

/**
 * Applies `event` to `item` when the table lets it start from the item's status; otherwise
 * refuses, naming the event and the status (a missing item is refused too). A result the rule
 * does not declare (a status outside its `to`) is refused as well: the table is the only truth
 * of where an event leads, at run time and not only in its test.
 */
export function applyEvent(
  item: Item | undefined,
  event: ItemEvent,
  table: Lifecycle = LIFECYCLE,
): Applied {
  if (item === undefined) return { kind: 'refused', reason: 'the item is no longer in the queue' };
  const rule = table[event.kind] as Rule<ItemEventKind>;
  if (!appliesTo(event.kind, item.status, table))
    return {
      kind: 'refused',
      reason: `${event.kind} does not apply to a ${item.status} item (only to ${rule.from.join(', ')})`,
      item,
    };
  const refused = rule.refuse?.(item, event);
  if (refused !== undefined) return { kind: 'refused', reason: refused, item };
  const next = rule.apply(item, event);
  if (next.status !== item.status && !leadsTo(event.kind, item.status, table).includes(next.status))
    return {
      kind: 'refused',
      reason: `${event.kind} led a ${item.status} item to ${next.status}, which its rule does not declare (the lifecycle table's \`to\`)`,
      item,
    };
  // A stage's next look is for the status it was set in.
  const looksOver = next.status !== item.status;
  return { kind: 'applied', item: looksOver ? { ...next, lookAgain: undefined } : next };
}

/** The item an event made; a refusal is thrown, its reason the message. */
export function appliedOrThrow(applied: Applied): Item {
  if (applied.kind === 'refused') throw new InputError(applied.reason);
  return applied.item;
}

/** The statuses `--all` picks for a person's event (retry, cancel): an id may name more. */
export function bulkStatusesFor(kind: 'retried' | 'cancelled'): readonly ItemStatus[] {
  return LIFECYCLE[kind].bulk ?? LIFECYCLE[kind].from;
}
