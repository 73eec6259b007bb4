import type { Item } from '../queue/item.js';
import type { StageContext } from './context.js';

// What the runner's loop knows of a stage: a room of its own that tends, beside the workers, the
// items in the statuses it owns (landing, a pull request's checks). The loop runs the stages it
// is given and names none of them.

/** How a stage waits between its looks. */
export interface StagePace {
  /** Up to `ms`, or until the queue changes or the run is stopped. */
  sleep(ms: number): Promise<void>;
  /** Until the queue may have changed, the run is stopped, or a poll interval passed. */
  untilChanged(): Promise<void>;
}

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
  readonly unreviewed?: number;
}

/**
 * Makes one of the run's stages: given what a stage may know of the run, and who hears of each
 * item it moved (a moved item may free others, or be a failure of the run's).
 */
export type StageFactory = (ctx: StageContext, onMoved: (item: Item | undefined) => void) => Stage;
