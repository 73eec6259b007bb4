import { isPaced, planSummary, type NightPlan } from './night-plan.js';
import { writePlanFile } from './plan-file.js';
import type { Workspace } from '../config/workspace.js';
import type { RunEvents } from '../events/events.js';
import type { Clock } from '../lib/clock.js';
import type { FileCache } from '../lib/file-cache.js';
import type { Queue } from '../queue/queue.js';

/** The run the plan is for: its workers, deadline and cost cap. */
interface PlannedRun {
  workers: number;
  deadline?: number;
  maxCostUsd?: number;
}

/** What a plan is made from and told to: the runner's context, in part. */
interface PlanSource {
  workspace: Workspace;
  queue: Pick<Queue, 'list'>;
  clock: Clock;
  files: FileCache;
  events: RunEvents;
}
import { forecastNight } from './night-forecast.js';

/**
 * The night's pacing: the plan made as the run starts (said, and kept in `state/plan.json` for
 * the morning report), and made again whenever a session reports its usage window, so that the
 * claims start the items most likely to finish inside the window first.
 */
export class Pacing {
  private order: readonly string[] | undefined;
  private night: PlannedRun | undefined;

  /** The ids to start first, in order; absent while no window limits the night. */
  get pace(): readonly string[] | undefined {
    return this.order;
  }

  /** The night's plan as the run starts: said in the log and kept for the morning. */
  async start(ctx: PlanSource, night: PlannedRun): Promise<void> {
    this.night = night;
    const plan = await this.plan(ctx, night);
    if (plan === undefined) return;
    ctx.events.info('night_planned', {
      ...planSummary(plan),
      workers: plan.workers,
      reserve: plan.reserve,
    });
    await writePlanFile(ctx.workspace.paths.plan, plan).catch((error: unknown) =>
      ctx.events.warn('plan_failed', {
        error: error instanceof Error ? error.message : String(error),
      }),
    );
  }

  /** A window reported: the order made again from the queue and the archive as they are. */
  async refresh(ctx: PlanSource, spentUsd: number): Promise<void> {
    const { night } = this;
    if (night === undefined) return;
    // What is left of the run's cost cap is what the rest of the night may spend.
    const maxCostUsd =
      night.maxCostUsd === undefined ? undefined : Math.max(0, night.maxCostUsd - spentUsd);
    await this.plan(ctx, { ...night, maxCostUsd });
  }

  private async plan(ctx: PlanSource, night: PlannedRun): Promise<NightPlan | undefined> {
    try {
      const plan = await forecastNight({
        workspace: ctx.workspace,
        items: await ctx.queue.list(),
        workers: night.workers,
        now: ctx.clock.now(),
        deadline: night.deadline,
        maxCostUsd: night.maxCostUsd,
        cache: ctx.files,
      });
      this.order = isPaced(plan) ? plan.items.map((p) => p.id) : undefined;
      return plan;
    } catch (error) {
      // A plan is advice: the night goes on in the queue's order without it.
      ctx.events.warn('plan_failed', {
        error: error instanceof Error ? error.message : String(error),
      });
      this.order = undefined;
      return undefined;
    }
  }
}
