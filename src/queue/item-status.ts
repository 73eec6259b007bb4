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

/** What a status says of its items; every question of the kind is asked of this table. */
export interface StatusTraits {
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
}

const trait = (traits: Partial<StatusTraits>): StatusTraits => ({
  runnable: false,
  finished: false,
  satisfiesDependents: false,
  keepsWorktree: false,
  takesMessages: true,
  waitsOnWorld: false,
  waitsOnPerson: false,
  ...traits,
});

export const STATUS_TRAITS: { readonly [S in ItemStatus]: StatusTraits } = {
  pending: trait({ runnable: true, keepsWorktree: true }),
  // Its worktree is where its setup runs, and where its session goes on.
  preparing: trait({ waitsOnWorld: true, keepsWorktree: true }),
  running: trait({ keepsWorktree: true }),
  // Its worktree is what the reviewer reads, and where its author goes on if changes are asked.
  reviewing: trait({ waitsOnWorld: true, keepsWorktree: true }),
  landing: trait({ waitsOnWorld: true }),
  awaiting_checks: trait({ waitsOnWorld: true }),
  awaiting_merge: trait({
    finished: true,
    satisfiesDependents: true,
    takesMessages: false,
    waitsOnPerson: true,
  }),
  deciding: trait({ waitsOnWorld: true, takesMessages: false }),
  needs_input: trait({ waitsOnPerson: true }),
  parked: trait({ waitsOnPerson: true }),
  done: trait({ finished: true, satisfiesDependents: true, takesMessages: false }),
  failed: trait({ finished: true }),
  interrupted: trait({ runnable: true, keepsWorktree: true }),
  cancelled: trait({ finished: true, takesMessages: false }),
};

/** The statuses that have `name`, in the order of `ITEM_STATUSES`. */
export function statusesWhere(name: keyof StatusTraits): ItemStatus[] {
  return ITEM_STATUSES.filter((status) => STATUS_TRAITS[status][name]);
}

/** Whether `status` has the trait `name`. */
export function statusIs(status: ItemStatus, name: keyof StatusTraits): boolean {
  return STATUS_TRAITS[status][name];
}
