import type { Item } from '../queue/item.js';
import { tidyWorktree } from '../session/worktrees.js';
import type { StageContext } from '../stage/context.js';
import { StageLoop } from '../stage/loop.js';
import type { Stage, StageFactory, StagePace } from '../stage/stage.js';
import type { RunnerContext } from './context.js';
import { statusIs } from '../queue/item-status.js';

/** What the night hears of its stages: an item they failed, and that something moved. */
export interface StageHooks {
  failed(): void;
  moved(): void;
}

/**
 * The night's stages, each on the one stage loop: run beside the workers until the workers have
 * ended and none has anything left, told of each change of the queue, asked whether one
 * refuses new claims; the worktrees of the items they moved on removed beside them.
 */
export class NightStages {
  private readonly stages: readonly Stage[];
  /** Worktrees being removed of items a stage moved on, beside the stage's next item. */
  private readonly tidying = new Set<Promise<void>>();

  constructor(
    private readonly ctx: RunnerContext,
    stageContext: StageContext,
    declarations: readonly StageFactory[],
    hooks: StageHooks,
  ) {
    const moved = (item: Item | undefined) => {
      // A stage that failed its item for good failed the run's item.
      if (item !== undefined && statusIs(item.status, 'failure')) hooks.failed();
      if (item !== undefined) this.tidy(item);
      hooks.moved();
    };
    this.stages = declarations.map(
      (declare) => new StageLoop(declare(stageContext, moved), stageContext, moved),
    );
  }

  /** Whether any stage has items to tend, or may have. */
  get busy(): boolean {
    return this.stages.some((stage) => stage.busy);
  }

  /** The queue may have changed: no stage is idle until it has looked again. */
  changed(): void {
    for (const stage of this.stages) stage.changed();
  }

  /** Why a stage refuses new claims, if one does. */
  async refusal(): Promise<string | undefined> {
    for (const stage of this.stages) {
      const reason = await stage.refusesClaims();
      if (reason !== undefined) return reason;
    }
    return undefined;
  }

  /**
   * Runs every stage until `workersDone` and none has anything left to tend; what they could
   * not move: items stuck (each a failure of the run's) and items left unreviewed.
   */
  async run(
    workersDone: () => boolean,
    pace: StagePace,
  ): Promise<{ stuck: number; unreviewed: number }> {
    const left = { stuck: 0, unreviewed: 0 };
    await Promise.all(
      this.stages.map(async (stage) => {
        await stage.run(workersDone, pace);
        left.stuck += stage.stuck;
        left.unreviewed += stage.unreviewed;
      }),
    );
    await Promise.all(this.tidying);
    return left;
  }

  /**
   * An item a stage moved where its worktree is no longer needed (a review approved it): the
   * worktree is removed, its branch kept, while the stage goes on with its next item.
   */
  private tidy(item: Item): void {
    const tidied = tidyWorktree(this.ctx, item.id, item).finally(() => this.tidying.delete(tidied));
    this.tidying.add(tidied);
  }
}
