import { workspaceLowOnSpace } from '../config/workspace.js';
import type { LoopResult } from '../events/run-result.js';
import type { SessionHost } from '../session/session-host.js';
import { fleetDailyLeft } from '../session/fleet-cap.js';
import type { RunnerContext } from './context.js';
import type { LoopOptions } from './loop-options.js';
import type { NightStages } from './night-stages.js';
import type { NightWait } from './night-wait.js';
import { checkRunLimits } from './run-limits.js';

/** What a worker does next: ends, looks again, or claims with what its session may spend. */
export type Next = 'stop' | 'again' | { budgetLeftUsd?: number };

/** What the gate reads of the night it guards. */
export interface GatedNight {
  readonly result: LoopResult;
  readonly workers: number;
  /** Iterations under way (claimed, or claiming), across the workers. */
  readonly active: number;
  /** A run meant to end (`--drain`, `--once`): it does not wait for what only a person ends. */
  readonly draining: boolean;
  readonly stages: NightStages;
  readonly stagesBusy: boolean;
  readonly sessions: SessionHost;
  readonly wait: NightWait;
  /** Sleeps until something changes, or `ms` pass. */
  sleep(ms: number): Promise<void>;
  /** Pauses the night for a person. */
  pause(reason: string): Promise<void>;
}

/** The start of the next UTC day: when a fleet's daily cap opens again. */
function nextUtcDay(now: number): number {
  const day = new Date(now);
  return Date.UTC(day.getUTCFullYear(), day.getUTCMonth(), day.getUTCDate() + 1);
}

/**
 * Whether a worker may claim now: the runner's lock, the run's limits and the fleet's daily
 * cap, the pause (and `--after-current`), room on disk, a wait every worker holds for, a stage
 * that refuses new claims. It waits (visibly) when not yet, and says when the night resumes.
 */
export class ClaimGate {
  /** The pause reason last said, while the night is paused. */
  private pausedFor: string | undefined;
  /** Said once while a stage refuses new claims. */
  private refusalSaid = false;

  constructor(
    private readonly ctx: RunnerContext,
    private readonly options: LoopOptions,
    private readonly night: GatedNight,
  ) {}

  /** Whether an item may be claimed now; waits (visibly) when not yet. */
  async beforeClaim(): Promise<Next> {
    const { ctx, options } = this;
    const { result } = this.night;
    const waiting = this.night.wait.current;
    if (waiting !== undefined) {
      await waiting;
      return 'again';
    }
    const lost = ctx.lockLost();
    if (lost !== undefined) {
      // Two runners must never claim from one queue: the one that stalled gives way.
      ctx.events.error('runner_lock_lost', { error: lost.message });
      result.ended = 'another runner took the workspace lock';
      return 'stop';
    }
    if (
      options.maxIterations !== undefined &&
      result.sessions + this.night.active >= options.maxIterations
    )
      return this.waitForOthers('stop');
    // `ralph pause --after-current` lets every running item finish: the pause begins after the last.
    if (this.night.active > 0 && (await ctx.controlFiles.pendingPauseReason()) !== undefined)
      return this.waitForOthers('again');
    await ctx.controlFiles.promotePauseAfterCurrent();
    const pauseReason = await ctx.controlFiles.pauseReason();
    if (pauseReason !== undefined) return this.whilePaused(pauseReason);
    if (this.pausedFor !== undefined) {
      ctx.events.info('resumed');
      this.pausedFor = undefined;
    }
    // No item starts without room to record it: a full disk would cost its result.
    const low = workspaceLowOnSpace(ctx.workspace);
    if (low !== undefined) {
      await this.night.pause(`ralph: ${low}; free some space, then run "ralph resume"`);
      return 'again';
    }
    const check = checkRunLimits(options.limits, ctx.clock.now(), result.costUsd);
    if (check.kind === 'stop') {
      ctx.events.info('run_limit_reached', { reason: check.reason, cost: check.cost });
      result.ended = check.reason;
      return 'stop';
    }
    if (check.kind === 'wait') {
      await this.night.wait.until(check.until, check.reason, 'window_wait');
      return 'again';
    }
    const daily = await fleetDailyLeft(this.night.sessions.ctx);
    if (daily !== undefined && daily.left <= 0) {
      if (this.night.draining) {
        ctx.events.info('run_limit_reached', { reason: daily.reason, cost: true });
        result.ended = daily.reason;
        return 'stop';
      }
      await this.night.wait.until(nextUtcDay(ctx.clock.now()), daily.reason, 'window_wait');
      return 'again';
    }
    const full = await this.night.stages.refusal();
    if (full !== undefined) return this.whileClaimsRefused(full);
    if (this.refusalSaid) {
      this.refusalSaid = false;
      await ctx.controlFiles.clearWaiting().catch(() => undefined);
    }
    // Each worker's session may spend its share of what is left: together they stay within it.
    const lefts = [check.budgetLeftUsd, daily?.left].filter((l) => l !== undefined);
    return {
      budgetLeftUsd: lefts.length === 0 ? undefined : Math.min(...lefts) / this.night.workers,
    };
  }

  /**
   * A stage refuses new claims (a limit of its own: items that wait for a person): no item
   * starts until it lets go. A drained run whose workers and stages are idle ends, as nobody
   * answers at night. Said as `forge_full`, the event's name since its first stage.
   */
  private async whileClaimsRefused(reason: string): Promise<'stop' | 'again'> {
    const { ctx } = this;
    const { result } = this.night;
    if (this.night.draining && this.night.active === 0 && !this.night.stagesBusy) {
      if (this.refusalSaid) await ctx.controlFiles.clearWaiting().catch(() => undefined);
      ctx.events.info('run_limit_reached', { reason });
      result.ended = reason;
      return 'stop';
    }
    if (!this.refusalSaid) {
      ctx.events.warn('forge_full', { reason });
      this.refusalSaid = true;
    }
    const pollMs = ctx.workspace.config.run.pollInterval * 1000;
    await ctx.controlFiles
      .writeWaiting({
        until: new Date(ctx.clock.now() + pollMs).toISOString(),
        reason,
        event: 'forge_full',
      })
      .catch(() => undefined);
    // Kept while the hold lasts (status tells it), cleared once an item may start again.
    await this.night.sleep(pollMs);
    return 'again';
  }

  /** A worker that may not claim while others run: it waits for one of them to end. */
  private async waitForOthers(whenAlone: Next): Promise<Next> {
    if (this.night.active === 0) return whenAlone;
    await this.night.sleep(this.ctx.workspace.config.run.pollInterval * 1000);
    return 'again';
  }

  /** The night is paused: a run meant to end ends, any other waits quietly for the resume. */
  private async whilePaused(reason: string): Promise<Next> {
    const { ctx } = this;
    // Said again when the reason changes: the person sees the runner read the new one.
    if (reason !== this.pausedFor) {
      ctx.events.warn('paused', { reason, file: ctx.controlFiles.interruptFile });
      this.pausedFor = reason;
    }
    // Nothing can run until a person acts: a run meant to end must not wait for that.
    if (this.night.draining) {
      this.night.result.paused = reason;
      return 'stop';
    }
    // A directory watch wakes the loop when the file goes, the timer is the fallback.
    await this.night.sleep(ctx.workspace.config.run.pollInterval * 1000);
    return 'again';
  }
}
