// The lifecycle table as its documentation states it: for every event, an example of it, and the
// status each status it may start from leads to. The unit test holds `applyEvent` to this, and
// the backends' suite holds both queues to it.
import type { Item } from '../../src/queue/item.js';
import { ITEM_STATUSES, type ItemStatus } from '../../src/queue/item-status.js';
import type { ItemEvent, ItemEventKind } from '../../src/queue/lifecycle.js';
import { queueItem } from './items.js';

const NOW = Date.parse('2026-11-23T22:00:00.000Z');
const POLICY = { maxAttempts: 3, retryBackoffCapMs: 60_000, now: NOW };
const LEASE = { itemId: 'it', sessionId: 's1', attempt: 1 };
const VERDICT = {
  overall: 'approve' as const,
  criteria: [],
  findings: [],
  cli: 'codex',
  session: 's2',
  costUsd: 0.02,
  at: new Date(NOW).toISOString(),
};

/** An item of `status` with what every event needs of it: a session, a source, a pull request. */
export function itemIn(status: ItemStatus, id = 'it'): Item {
  return queueItem(id, {
    status,
    createdAt: new Date(NOW - 60_000).toISOString(),
    attempts: 1,
    sessions: ['s1'],
    startedAt: new Date(NOW - 30_000).toISOString(),
    branch: `ralph/${id}`,
    baseCommit: 'a'.repeat(40),
    pullRequest: {
      number: 7,
      url: 'http://127.0.0.1/pr/7',
      head: `ralph/${id}`,
      base: 'main',
      kind: 'item',
    },
    source: { kind: 'github', key: 'o/r#1', ref: 'o/r', number: 1 },
    pushTo: { remote: 'origin', looks: 0 },
    ...(status === 'deciding'
      ? {
          decision: {
            id: 'd1',
            kind: 'rejected' as const,
            by: 'cli',
            at: new Date(NOW).toISOString(),
            then: 'retry' as const,
            effects: ['keep_branch' as const],
            before: 'done' as const,
          },
        }
      : {}),
  });
}

const DECISION = { id: 'd2', by: 'cli', at: new Date(NOW).toISOString() };
const ROSTER = [
  { letter: 'A', cli: 'claude' as const, item: 'it.a' },
  { letter: 'B', cli: 'codex' as const, item: 'it.b', head: 'c'.repeat(40) },
];
const JUDGEMENT = {
  shown: ['B', 'A'],
  cli: 'gemini',
  costUsd: 0.03,
  ranking: ['B', 'A'],
  reason: 'B holds every criterion',
  picked: 'B',
  at: new Date(NOW).toISOString(),
};
const DECIDED_ON = [
  'done',
  'awaiting_merge',
  'awaiting_checks',
  'reviewing',
  'landing',
  'needs_input',
  'parked',
  'failed',
  'interrupted',
] as const;

interface Case {
  event: ItemEvent;
  /** The status each allowed status leads to (`same`: it stays). */
  to: Partial<Record<ItemStatus, ItemStatus | 'same'>>;
  /** The item it applies to, when the example needs more than `itemIn`'s. */
  item?: (status: ItemStatus, id: string) => Item;
}

/**
 * An item that several candidates tried: B passed and was not picked. The pick's pull request
 * is open while it waits for a person to merge it.
 */
const tried = (status: ItemStatus, id: string): Item => ({
  ...itemIn(status, id),
  ...(status === 'awaiting_merge' ? {} : { pullRequest: undefined }),
  roster: [
    { letter: 'A', cli: 'claude', item: `${id}.a`, branch: `ralph/${id}.a`, head: 'c'.repeat(40) },
    { letter: 'B', cli: 'codex', item: `${id}.b`, branch: `ralph/${id}.b`, head: 'd'.repeat(40) },
  ],
  judgement: { shown: ['A', 'B'], costUsd: 0, picked: 'A', at: new Date(NOW).toISOString() },
});

const every = (statuses: readonly ItemStatus[], to: ItemStatus | 'same') =>
  Object.fromEntries(statuses.map((status) => [status, to]));
const but = (...left: ItemStatus[]) => ITEM_STATUSES.filter((status) => !left.includes(status));

/** The documented result of every event from every status it may start from. */
export const LIFECYCLE_CASES: { readonly [K in ItemEventKind]: Case } = {
  claimed: {
    event: { kind: 'claimed', sessionId: 's2', now: NOW },
    to: { pending: 'running', interrupted: 'running' },
  },
  session_ended: {
    event: {
      kind: 'session_ended',
      lease: LEASE,
      settlement: { kind: 'succeeded', costUsd: 0.1 },
      policy: POLICY,
      stages: { land: false, pullRequest: true },
    },
    to: { running: 'awaiting_checks' },
  },
  checked_out: {
    event: {
      kind: 'checked_out',
      lease: LEASE,
      checkout: { branch: 'ralph/it', baseCommit: 'b'.repeat(40) },
    },
    to: { running: 'same' },
  },
  messages_given_live: {
    event: { kind: 'messages_given_live', session: 's1', ats: [] },
    to: { running: 'same' },
  },
  runner_died: {
    event: { kind: 'runner_died', reason: 'its runner died', policy: POLICY, costUsd: 0 },
    to: { running: 'pending' },
  },
  stopped: {
    event: { kind: 'stopped', then: 'park', now: NOW },
    to: { pending: 'parked', interrupted: 'parked' },
  },
  unparked: { event: { kind: 'unparked', now: NOW }, to: { parked: 'pending' } },
  environment_wanted: {
    event: { kind: 'environment_wanted', lease: LEASE, wanted: 'setup', now: NOW },
    to: { running: 'preparing' },
  },
  environment_ready: {
    event: { kind: 'environment_ready', log: '/tmp/s1-setup.log', now: NOW },
    to: { preparing: 'pending' },
  },
  environment_failed: {
    event: {
      kind: 'environment_failed',
      failure: 'setup "npm ci" failed: exit 1',
      log: '/tmp/s1-setup.log',
      now: NOW,
    },
    to: { preparing: 'parked' },
  },
  review_approved: {
    event: {
      kind: 'review_approved',
      verdict: VERDICT,
      then: { land: true, pullRequest: false },
      now: NOW,
    },
    to: { reviewing: 'landing' },
  },
  review_changes_requested: {
    event: {
      kind: 'review_changes_requested',
      verdict: { ...VERDICT, overall: 'request_changes' },
      findings: 'blocking: a.ts:1: it does not build',
      maxRounds: 2,
      now: NOW,
    },
    to: { reviewing: 'pending' },
  },
  review_failed: {
    event: {
      kind: 'review_failed',
      reason: 'the reviewer answered no verdict',
      costUsd: 0.01,
      at: NOW + 60_000,
      looks: 1,
      now: NOW,
    },
    to: { reviewing: 'same' },
  },
  landed: {
    event: {
      kind: 'landed',
      landing: { commit: 'c'.repeat(40), target: 'main', onto: 'd'.repeat(40) },
      now: NOW,
    },
    // A rejection that raced the landing keeps its record, and reverts it (the example's
    // pending and cancelled items were not rejected: refused).
    to: { landing: 'done', deciding: 'same', pending: undefined, cancelled: undefined },
  },
  landing_refused: {
    event: {
      kind: 'landing_refused',
      refusal: { outcome: 'land_conflict', error: 'conflict', failure: 'a.txt' },
      maxRounds: 3,
      now: NOW,
    },
    to: { landing: 'pending' },
  },
  sent_to_land: {
    event: { kind: 'sent_to_land', now: NOW },
    to: { done: 'landing', landing: 'same' },
  },
  rules_sent: {
    event: { kind: 'rules_sent', then: { land: true, pullRequest: false }, now: NOW },
    to: { done: 'landing' },
  },
  pull_request_opened: {
    event: {
      kind: 'pull_request_opened',
      opened: {
        pullRequest: {
          number: 8,
          url: 'http://127.0.0.1/pr/8',
          head: 'ralph/it',
          base: 'main',
          kind: 'item',
        },
        head: 'e'.repeat(40),
      },
      now: NOW,
    },
    to: { awaiting_checks: 'same' },
  },
  checks_seen: {
    event: { kind: 'checks_seen', checks: 'pending: build', now: NOW },
    to: { awaiting_checks: 'same' },
  },
  checks_failed: {
    event: {
      kind: 'checks_failed',
      refusal: {
        outcome: 'checks_failed',
        error: 'red',
        failure: 'build failed',
        checks: 'failing: build',
      },
      maxRounds: 3,
      now: NOW,
    },
    to: { awaiting_checks: 'pending' },
  },
  checks_passed: {
    event: { kind: 'checks_passed', checks: 'green', merged: false, now: NOW },
    to: { awaiting_checks: 'awaiting_merge' },
  },
  pull_request_closed: {
    event: { kind: 'pull_request_closed', now: NOW },
    to: { awaiting_checks: 'cancelled' },
  },
  pull_request_ended: {
    event: { kind: 'pull_request_ended', merged: true, now: NOW },
    to: { awaiting_merge: 'done' },
  },
  messaged: {
    event: {
      kind: 'messaged',
      message: { text: 'hello', from: 'cli', at: new Date(NOW).toISOString() },
      now: NOW,
    },
    to: {
      ...every(but('done', 'cancelled', 'awaiting_merge', 'deciding'), 'same'),
      needs_input: 'interrupted',
    },
  },
  retried: {
    event: { kind: 'retried', now: NOW, force: true },
    to: every(but('running', 'pending', 'deciding'), 'pending'),
  },
  cancelled: {
    event: { kind: 'cancelled', now: NOW, force: true },
    to: every(but('running', 'deciding'), 'cancelled'),
  },
  accepted: {
    event: {
      kind: 'accepted',
      decision: { ...DECISION, kind: 'accepted' },
      over: { land: true, pullRequest: false },
      now: NOW,
    },
    // The example's done item has a pull request: it is recorded, not landed. One waiting after
    // its reviewer's rounds goes on as approved: it lands.
    to: { done: 'same', awaiting_merge: 'deciding', needs_input: 'landing' },
    item: (status, id) => ({
      ...itemIn(status, id),
      head: 'b'.repeat(40),
      verdict: {
        overall: 'request_changes',
        criteria: [],
        findings: [{ severity: 'major', place: 'a.ts:1', finding: 'add a comment' }],
        cli: 'codex',
        session: 's2',
        costUsd: 0,
        at: new Date(NOW).toISOString(),
      },
    }),
  },
  candidate_taken: {
    event: {
      kind: 'candidate_taken',
      decision: { ...DECISION, kind: 'accepted', candidate: 'B' },
      now: NOW,
    },
    // Its pick did not land (the example's is done without a landing): the other lands. A
    // pick's open pull request is closed first.
    to: { done: 'landing', needs_input: 'landing', awaiting_merge: 'deciding' },
    item: tried,
  },
  rejected: {
    event: {
      kind: 'rejected',
      decision: { ...DECISION, kind: 'rejected', then: 'retry', note: 'not this way' },
      now: NOW,
    },
    // Its branch is kept under an archive ref by the decision stage first.
    to: every(DECIDED_ON, 'deciding'),
  },
  deferred: {
    event: {
      kind: 'deferred',
      decision: { ...DECISION, kind: 'deferred', until: new Date(NOW + 86_400_000).toISOString() },
      now: NOW,
    },
    to: every(DECIDED_ON, 'same'),
  },
  decision_carried: {
    event: { kind: 'decision_carried', effect: 'keep_branch', now: NOW },
    to: { deciding: 'pending' },
  },
  decision_failed: {
    event: { kind: 'decision_failed', failure: 'the revert conflicts in a.txt', now: NOW },
    to: { deciding: 'done' },
  },
  edited: {
    event: { kind: 'edited', fields: { title: 'a new title' }, cleared: [], now: NOW },
    to: every(but('running'), 'same'),
  },
  source_updated: {
    event: {
      kind: 'source_updated',
      fields: { title: 'edited', body: 'b', priority: 0, vars: {} },
      now: NOW,
    },
    to: { pending: 'same' },
  },
  closed_at_source: { event: { kind: 'closed_at_source', now: NOW }, to: { pending: 'cancelled' } },
  done_at_source: { event: { kind: 'done_at_source', now: NOW }, to: { pending: 'done' } },
  look_again: {
    event: { kind: 'look_again', at: NOW + 60_000, looks: 2 },
    to: {
      preparing: 'same',
      reviewing: 'same',
      landing: 'same',
      awaiting_checks: 'same',
      deciding: 'same',
      judging: 'same',
    },
  },
  candidates_forked: {
    event: {
      kind: 'candidates_forked',
      roster: ROSTER,
      base: 'a'.repeat(40),
      lease: LEASE,
      now: NOW,
    },
    to: { running: 'judging' },
  },
  candidate_picked: {
    event: {
      kind: 'candidate_picked',
      judgement: JUDGEMENT,
      pick: { branch: 'ralph/it.b', baseCommit: 'a'.repeat(40), head: 'c'.repeat(40) },
      roster: ROSTER,
      then: { land: true, pullRequest: false },
      now: NOW,
    },
    to: { judging: 'landing' },
  },
  candidates_unpicked: {
    event: {
      kind: 'candidates_unpicked',
      judgement: { ...JUDGEMENT, picked: undefined, failure: 'the judge answered prose' },
      roster: ROSTER,
      reason: 'the judge answered prose',
      passed: true,
      now: NOW,
    },
    to: { judging: 'needs_input' },
  },
  pushed: { event: { kind: 'pushed', session: 's1', now: NOW }, to: every(but('running'), 'same') },
  push_deferred: {
    event: { kind: 'push_deferred', session: 's1', at: NOW + 60_000, looks: 1 },
    to: every(but('running'), 'same'),
  },
  start_told: {
    event: { kind: 'start_told', now: NOW },
    to: every(ITEM_STATUSES, 'same'),
  },
  source_told: {
    event: { kind: 'source_told', told: 'started', now: NOW },
    to: every(ITEM_STATUSES, 'same'),
  },
  written_back: {
    event: { kind: 'written_back', now: NOW },
    to: every(['awaiting_merge', 'done', 'failed', 'cancelled'], 'same'),
  },
};

/** Every (status, event) pair, with the status it leads to, or undefined when it is refused. */
export function lifecyclePairs(): {
  status: ItemStatus;
  event: ItemEvent;
  to?: ItemStatus;
  /** The item the example applies to, as `id`. */
  item: (id?: string) => Item;
}[] {
  return Object.values(LIFECYCLE_CASES).flatMap(({ event, to, item }) =>
    ITEM_STATUSES.map((status) => {
      const next = to[status];
      return {
        status,
        event,
        to: next === 'same' ? status : next,
        item: (id = 'it') => (item ?? itemIn)(status, id),
      };
    }),
  );
}
