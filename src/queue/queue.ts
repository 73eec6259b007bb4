import type { FleetRunner } from './fleet-runner.js';
import type { Item } from './item.js';
import type { ItemStatus } from './item-status.js';
import type { Lease, SettlePolicy } from './lease.js';
import type { Applied, ItemEvent } from './lifecycle.js';

/**
 * The queue, whatever holds it: `state/queue.json` (the default) or a Postgres database shared
 * by a fleet of runners. Both apply the same pure transitions (`transitions.ts`) and give the
 * same answers; only where the items live and how changes are made atomic differ.
 */
export interface Queue {
  /** Where the queue is, for messages (a file's path, or the database without its password). */
  readonly where: string;
  /** Every item, in queue order. */
  list(): Promise<Item[]>;
  /** Every item, and the queue's version (it moves with every change). */
  snapshot(): Promise<{ items: Item[]; version: number }>;
  /** The queue at a glance, for a status asked for every second: no item is read whole. */
  tally(): Promise<QueueTally>;
  /** The items `ids` name and every item they depend on, directly or not. */
  dependencyClosure(ids: readonly string[]): Promise<Item[]>;
  /**
   * Adds an item; one with the same id is replaced only with `replace` and when not running.
   * `check` sees the new item's dependency closure and throws to refuse it.
   */
  add(item: Item, options: AddOptions): Promise<void>;
  /**
   * Adds many items at once, all or none (`ralph queue import`): an id already queued refuses
   * the whole batch. The caller has checked the items and their dependencies.
   */
  importItems(items: readonly Item[]): Promise<void>;
  /** Claims the next runnable item for a session, counting its attempt. */
  claim(request: ClaimRequest): Promise<Claim>;
  /**
   * Applies `event` to item `id` through the lifecycle table (`lifecycle.ts`), re-read where
   * it is kept: the item it made, or why the table refused it (nothing written). `check` sees
   * the changed item's dependency closure among the others and throws to refuse the change.
   */
  apply(id: string, event: ItemEvent, check?: ClosureCheck): Promise<Applied>;
  /**
   * `apply` of each event to its item in one write (a train's landings, a night's done items
   * put in line to land): the items changed, in the order given; those the table refuses are
   * left as they are.
   */
  applyAll(events: readonly ItemChange[]): Promise<Item[]>;
  /** Keeps the leases of running items from expiring (a runner's heartbeat). */
  renew(leases: readonly Lease[]): Promise<void>;
  /** The items in `status`, in no particular order (a stage puts them in its own). */
  inStatus(status: ItemStatus): Promise<Item[]>;
  /**
   * The right to act alone on `what` (a target branch to land on or revert, the forge's pull
   * requests), for one runner at a time: undefined when another of the fleet holds it. The
   * workspace's runner lock is that right for a queue file.
   */
  lockAlone(what: string): Promise<(() => Promise<void>) | undefined>;
  /**
   * Requeues the items a dead runner of this workspace left running, their attempt counted and
   * the cost their sessions reported (`spent`, by item id) added.
   */
  requeueOrphans(
    reason: string,
    policy: SettlePolicy,
    spent?: ReadonlyMap<string, number>,
  ): Promise<string[]>;
  /** Failed, cancelled or interrupted items back to pending, attempts renewed. */
  retry(selection: Selection): Promise<string[]>;
  /** Items never to run (they stay in the queue). */
  cancel(selection: Selection): Promise<string[]>;
  /** Removes items; one others depend on only with `force` (or when they go too). */
  remove(ids: readonly string[], force: boolean): Promise<string[]>;
  /**
   * A queue file found malformed: a copy of it (and the last valid queue this process saw) set
   * aside in `dir`, the file untouched. Only a queue held in a file has one.
   */
  quarantine?(dir: string, now: number): Promise<{ copy?: string; lastGood?: string }>;
  /**
   * Calls `listener` when another process announces a change of the queue (a database's
   * notification: `changed`), and when it starts listening again (`listening`: changes may
   * have been missed meanwhile); returns the unsubscribe function. A file queue announces
   * nothing: its directory is watched instead.
   */
  subscribe(listener: (cause: QueueAnnouncement) => void): () => void;
  /** Releases what the queue holds open (a database pool). */
  close(): Promise<void>;
  /** The fleet of runners sharing the queue: only a queue in a database has one. */
  readonly fleet?: Fleet;
}

/** The fleet's pause: every runner of the queue pauses as if its interrupt file were there. */
export interface FleetPause {
  reason: string;
  at: string;
  /** Who paused it (`user@host`). */
  by: string;
}

/**
 * What runners on many machines sharing one queue have in common: a pause for all of them and
 * the table of who runs.
 */
export interface Fleet {
  pauseState(): Promise<FleetPause | undefined>;
  pause(reason: string, by: string): Promise<void>;
  /** Lifts the fleet's pause; returns the one lifted. */
  resume(): Promise<FleetPause | undefined>;
  /** Joins this runner (the queue's lease owner) to the table. */
  join(runner: { host: string; pid: number; workspace: string; workers: number }): Promise<void>;
  /** Says this runner is alive (with its leases' renewal). */
  heartbeat(): Promise<void>;
  leave(): Promise<void>;
  /** Every runner of the queue whose heartbeat is recent, with the items each runs. */
  runners(): Promise<FleetRunner[]>;
  /** Adds a finished session to the fleet's index (its `host` and `archive` say where it is). */
  recordSession(entry: FleetSession): Promise<void>;
  /** The fleet's sessions, oldest first. */
  sessions(): Promise<FleetSession[]>;
  /** Adds a session's cost to the fleet's spend of its day (UTC). */
  recordSpend(costUsd: number, now: number): Promise<void>;
  /** What the fleet has spent on the day (UTC) of `now`. */
  spentOn(now: number): Promise<number>;
}

/** A line of a sessions index, with the machine that ran it and its archive there. */
export interface FleetSession {
  sessionId: string;
  itemId: string;
  startedAt: string;
  host: string;
  archive: string;
  [field: string]: unknown;
}

/** What a command that only looks at the queue needs of it (`status`, `ls`). */
export type QueueReader = Pick<Queue, 'where' | 'list' | 'snapshot' | 'tally' | 'close' | 'fleet'>;

export interface QueueTally {
  /** How many items have each status (a status no item has is absent). */
  counts: Partial<Record<ItemStatus, number>>;
  version: number;
  /** Git mode: the branches of the running items, by item id. */
  branches: Record<string, string>;
  landings: LandingTally;
  /** The pull requests awaiting their checks or a person's review, by item id. */
  pullRequests: PullRequestTally[];
  /** The items whose agent asked a person something (`needs_input`), with the question. */
  questions: { id: string; question: string }[];
  /**
   * The items a stage could not move on and that wait unseen otherwise: unreviewed ones (their
   * reviewer failed: why) and decisions left half carried out (`deciding`: which).
   */
  stalled: StalledTally[];
}

/** An item a stage could not move on: its status and why, in a line. */
export interface StalledTally {
  id: string;
  /** Its status: one a stage tends (`reviewing`, `deciding`). */
  status: ItemStatus;
  why: string;
}

/** An item's pull request as `status` tells it. */
export interface PullRequestTally {
  id: string;
  number: number;
  url: string;
  /** `awaiting_checks`, or `awaiting_merge` once they passed. */
  status: ItemStatus;
  checks?: string;
  /** GitLab's merge request; GitHub's pull request when unsaid. */
  forge?: 'gitlab';
}

/**
 * What landing did: each target's landed items and its newest landed commit, and the items a
 * landing refused since (back with their agent, or failed), with why.
 */
export interface LandingTally {
  targets: { target: string; landed: number; commit: string }[];
  refused: { id: string; status: ItemStatus; error: string }[];
}

/** An event for one item, of many applied in one write. */
export interface ItemChange {
  id: string;
  event: ItemEvent;
}

/** Throws to refuse an item, given its dependency closure in the queue. */
export type ClosureCheck = (item: Item, closure: readonly Item[]) => void;

export interface AddOptions {
  replace: boolean;
  /** Throws to refuse the item, given its dependency closure in the queue it joins. */
  check: ClosureCheck;
  /** The flag or field that allows replacing, for the refusal's message. */
  replaceFlag: string;
}

/** Which items a queue command acts on: ids, or every item (of some statuses). */
export interface Selection {
  ids: readonly string[];
  all?: boolean;
  status?: string;
  /** Retry or cancel done items too (by id only: `--all` never picks done ones). */
  force?: boolean;
}

/** A resolved selection: ids, or every item of these statuses. */
export type Chosen = { ids: readonly string[] } | { statuses: readonly ItemStatus[] };

export interface ClaimRequest {
  sessionId: string;
  now: number;
  /** Items passed over now (their work dir is held by another item this runner runs). */
  busy: (item: Item) => boolean;
  /** Attempts of an item that sets none (an item whose lease expired may have used its last). */
  maxAttempts: number;
  /**
   * The night plan's pacing: item ids in the order to start them among items of one priority
   * (those it does not name come after). Absent: the queue's own order.
   */
  pace?: readonly string[];
}

/** The claimed item, or when something becomes runnable if nothing is now. */
export interface Claim {
  item?: Item;
  /** How many other items wait to run (for "item N of M"). */
  queued?: number;
  wakeAt?: number;
  retryAt?: number;
  /** Items taken back from runners that stopped renewing their leases, before this claim. */
  expired?: string[];
}

/** Why a queue's subscriber is told: a change announced, or listening (re)started. */
export type QueueAnnouncement = 'changed' | 'listening';
