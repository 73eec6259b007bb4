import type { Item } from '../queue/item.js';
import type { ItemStatus } from '../queue/item-status.js';
import type { StageContext } from './context.js';

// A stage is a room of its own that tends, beside the workers, the items of the statuses it owns
// (landing, a pull request's checks). Each declares what it tends and its step for one item;
// one loop (./loop.ts) runs them all, and the runner names none of them.

/** How a stage waits between its looks. */
export interface StagePace {
  /** Up to `ms`, or until the queue changes or the run is stopped. */
  sleep(ms: number): Promise<void>;
  /** Until the queue may have changed, the run is stopped, or a poll interval passed. */
  untilChanged(): Promise<void>;
}

/** What a stage's step did with one item. */
export type Stepped =
  /** It moved on (or was recorded as it is): the item as it is after, when it moved. */
  | { kind: 'moved'; item?: Item }
  /** A fault of the world's kept it waiting; its next look is stored with it. */
  | { kind: 'kept' }
  /** It waits where it is for its next look (stored with it), or in the stage (a train). */
  | { kind: 'waiting' }
  /** The stage can go no further this look (the forge is down, another runner holds the target): it looks again after `ms`, or once the queue changes. */
  | { kind: 'halted'; ms?: number };

/** A stage, declared: the loop does the looking, waiting, pacing, counting and errors. */
export interface StageDeclaration {
  /** Its name, for the log. */
  readonly name: string;
  /** Whether it tends anything in this workspace (a push remote, a forge set). */
  readonly on: boolean;
  /** The items it tends: those of a status, in its order; or those a test picks. */
  readonly tends:
    | { status: ItemStatus; order: (items: readonly Item[]) => Item[] }
    | { where: (item: Item) => boolean };
  /** How many items it tends at once. */
  readonly width: number;
  /** Whether a paused night pauses it too (a person's own decision is carried out all the same). */
  readonly pauses: boolean;
  /**
   * What an item it could not move this run counts as once the run ends: a failure of the
   * run's (`stuck`), work that waits for a reviewer (`unreviewed`), or nothing (it just waits).
   */
  readonly unmoved: 'stuck' | 'unreviewed' | 'waiting';
  /**
   * Which of its items keep a drained run going: those due now, or all of them (pull requests
   * whose checks the run waits for).
   */
  readonly awaits: 'due' | 'all';
  /** The longest it sleeps (their world changes outside ralph); none: until the queue changes. */
  readonly pollMs?: number;
  /** When an item is due for its next look (epoch ms; none: now): its stored look-again by default. */
  dueAt?(item: Item): number | undefined;
  /** An item it holds apart (a landing in its train): not looked at, but waiting. */
  holds?(item: Item): boolean;
  /** Its step for one item. */
  step(item: Item): Promise<Stepped>;
  /** Why no new item may start now (a limit of the stage's, such as open pull requests). */
  refusesClaims?(): Promise<string | undefined>;
  /** Before each look (the pull requests waiting for a person looked at). */
  beforeLook?(): Promise<void>;
  /** The stage-wide lock of a look with items due; undefined: another runner tends them now. */
  lock?(): Promise<(() => Promise<void>) | undefined>;
  /** Until when it may take no step at all (the forge down), if it may not now. */
  heldUntil?(): number | undefined;
  /** Nothing is due (or the night is paused): its own work; `again` to look again at once. */
  idle?(paused: boolean): Promise<'again' | 'rest'>;
  /** It is not on this run: what it leaves (items still in its status) is said. */
  off?(): Promise<void>;
  /** The run is over for it: what it holds is finished (a train's landings recorded). */
  ended?(): Promise<void>;
  /** Whether it has work of its own still to do, items aside (its first look at the forge). */
  readonly pending?: boolean;
}

/** What the runner's loop knows of a stage. */
export interface Stage {
  /** Its name, for the log. */
  readonly name: string;
  /**
   * Whether it has items to tend, or may have (a change it has not looked at yet): a drained
   * run ends only once no stage is busy.
   */
  readonly busy: boolean;
  /** The queue may have changed: it is not idle until it has looked again. */
  changed(): void;
  /** Why no new item may start now (a limit of the stage's, such as open pull requests). */
  refusesClaims(): Promise<string | undefined>;
  /**
   * Tends its items until `over` says the run is over and none waits (a stop ends it at once).
   */
  run(over: () => boolean, pace: StagePace): Promise<void>;
  /** Items it could not move on this run, which still wait: each a failure of the run's. */
  readonly stuck: number;
  /** Items whose work waits unreviewed (the review stage's): no failure, but not done either. */
  readonly unreviewed: number;
}

/**
 * Declares one of the run's stages: given what a stage may know of the run, and who hears of
 * each item it moved outside a step (a train's landings).
 */
export type StageFactory = (
  ctx: StageContext,
  moved: (item: Item | undefined) => void,
) => StageDeclaration;
