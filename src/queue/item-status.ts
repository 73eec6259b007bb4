/** Statuses of a queue item; apart from the schema, so that listing them loads no validator. */
export const ITEM_STATUSES = [
  'pending',
  /**
   * Its worktree is being made ready (\`environment\`: setup or maintenance commands) by the
   * setup stage before its session; no attempt is spent on it.
   */
  'preparing',
  'running',
  /**
   * Its session and gates passed; a reviewer of its work (\`review\`) is to approve it before it
   * lands, or its pull request is opened (or it is done).
   */
  'reviewing',
  /**
   * Several CLIs try it (`candidates`): it waits for its candidates to end, then for the judge
   * to pick the change that goes on.
   */
  'judging',
  /** Its session and gates passed; its branch waits to land on the target (or is landing). */
  'landing',
  /** Its branch is pushed and its pull request open: it waits for the forge's checks. */
  'awaiting_checks',
  /** Its pull request passed its checks: it waits for a person to merge (or close) it. */
  'awaiting_merge',
  /**
   * A person's decision on its work is being carried out on the world by the decision stage:
   * its branch kept under an archive ref, a landing reverted on the target, a pull request
   * merged or closed (`ralph accept`, `ralph reject`).
   */
  'deciding',
  /** Its agent asked a person something (`question`): it waits for `ralph say`. */
  'needs_input',
  /**
   * A person stopped it (`ralph stop`): out of line, its attempt given back, until `ralph
   * resume <id>` (or `ralph retry`) puts it back.
   */
  'parked',
  'done',
  'failed',
  'interrupted',
  'cancelled',
] as const;

export type ItemStatus = (typeof ITEM_STATUSES)[number];

/** Who moves an item on from its status. */
export type StatusHolder =
  /** It waits in line for a worker. */
  | 'line'
  /** A worker's session of its agent runs it. */
  | 'worker'
  /** The stage beside the workers that tends it: setup, review, landing, checks, a decision. */
  | 'setup'
  | 'reviewer'
  | 'judge'
  | 'lander'
  | 'checks'
  | 'decider'
  /** Nothing moves it until a person acts. */
  | 'person'
  /** Its work is over. */
  | 'nobody';

/** What a status says of its items; every question of the kind is asked of this table. */
export interface StatusTraits {
  /** Who moves it on. */
  holder: StatusHolder;
  /** A worker may claim it. */
  runnable: boolean;
  /** Its agent's work is over: nothing of ralph's will run it again unless a person asks. */
  finished: boolean;
  /** The items that depend on it may run. */
  satisfiesDependents: boolean;
  /** Its worktree is kept for its next session (otherwise its work is on its branch alone). */
  keepsWorktree: boolean;
  /** A person's message to its agent is kept for its next session (`ralph say`). */
  takesMessages: boolean;
  /** A stage beside the workers tends it (a landing, a pull request's checks). */
  waitsOnWorld: boolean;
  /** Nothing moves it until a person acts. */
  waitsOnPerson: boolean;
  /** Its agent asked a person something, and waits for the answer. */
  asksPerson: boolean;
  /** Its own pull request is open on the forge. */
  pullRequestOpen: boolean;
  /** Its last session was cut off: it resumes that session, before any other item starts. */
  resumesSession: boolean;
  /** Its work ended in failure. */
  failure: boolean;
  /** Its work went through every stage: ralph has nothing left to do with it. */
  complete: boolean;
  /** A person took it out of the night's work. */
  withdrawn: boolean;
}

/** The traits that are yes or no. */
export type StatusFlag = Exclude<keyof StatusTraits, 'holder'>;

const trait = (holder: StatusHolder, traits: Partial<StatusTraits> = {}): StatusTraits => ({
  holder,
  runnable: holder === 'line',
  finished: false,
  satisfiesDependents: false,
  keepsWorktree: false,
  takesMessages: true,
  waitsOnWorld: !['line', 'worker', 'person', 'nobody'].includes(holder),
  waitsOnPerson: holder === 'person',
  asksPerson: false,
  pullRequestOpen: false,
  resumesSession: false,
  failure: false,
  complete: false,
  withdrawn: false,
  ...traits,
});

export const STATUS_TRAITS: { readonly [S in ItemStatus]: StatusTraits } = {
  pending: trait('line', { keepsWorktree: true }),
  // Its worktree is where its setup runs, and where its session goes on.
  preparing: trait('setup', { keepsWorktree: true }),
  running: trait('worker', { keepsWorktree: true }),
  // Its worktree is what the reviewer reads, and where its author goes on if changes are asked.
  reviewing: trait('reviewer', { keepsWorktree: true }),
  // Its candidates' worktrees are theirs; its own, if it ran first, is on its branch.
  judging: trait('judge'),
  landing: trait('lander'),
  awaiting_checks: trait('checks', { pullRequestOpen: true }),
  awaiting_merge: trait('person', {
    finished: true,
    satisfiesDependents: true,
    takesMessages: false,
    pullRequestOpen: true,
  }),
  deciding: trait('decider', { takesMessages: false }),
  needs_input: trait('person', { asksPerson: true }),
  parked: trait('person'),
  done: trait('nobody', {
    finished: true,
    satisfiesDependents: true,
    takesMessages: false,
    complete: true,
  }),
  failed: trait('nobody', { finished: true, failure: true }),
  interrupted: trait('line', { keepsWorktree: true, resumesSession: true }),
  cancelled: trait('nobody', { finished: true, takesMessages: false, withdrawn: true }),
};

/** The statuses that have `name`, in the order of `ITEM_STATUSES`. */
export function statusesWhere(name: StatusFlag): ItemStatus[] {
  return ITEM_STATUSES.filter((status) => STATUS_TRAITS[status][name]);
}

/** Whether `status` has the trait `name`. */
export function statusIs(status: ItemStatus, name: StatusFlag): boolean {
  return STATUS_TRAITS[status][name];
}

/**
 * It waits in line with no session to resume: what it is to do may still change (an import's
 * update, a retry is refused as needless).
 */
export function freshInLine(status: ItemStatus): boolean {
  return statusIs(status, 'runnable') && !statusIs(status, 'resumesSession');
}

/** Who moves an item in `status` on. */
export function holderOf(status: ItemStatus): StatusHolder {
  return STATUS_TRAITS[status].holder;
}
