import { untilAbortedOr } from '../lib/abort-wait.js';
import { addUsd } from '../lib/usd.js';
import type { Outcome } from '../agent/outcome.js';
import { workspaceLowOnSpace } from '../config/workspace.js';
import { exponentialBackoffMs } from '../lib/backoff.js';
import { RalphError } from '../lib/errors.js';
import { ExitCode } from '../lib/exit-codes.js';
import type { RunnerContext } from './context.js';
import type { StageFactory } from '../stage/stage.js';
import { NightStages } from './night-stages.js';
import { sessionHostContextOf, stageContextOf } from './stage-context.js';
import { SessionHost } from '../session/session-host.js';
import { holdCli } from '../session/holds.js';
import type { StopControl } from './stop-control.js';
import type { Ran } from '../session/session-run.js';
import { checkRunLimits, type RunLimits } from './run-limits.js';
import { fleetDailyLeft } from '../session/fleet-cap.js';
import { runIteration, type IterationResult } from './iteration.js';
import { pauseForOperator, underWatchdog } from './persist.js';
import type { LoopResult } from '../events/run-result.js';
import { freshInLine, statusIs } from '../queue/item-status.js';

/** Options of `ralph run`. */
export interface LoopOptions {
  /** Run one item, then stop. */
  once: boolean;
  /** Stop after this many sessions. */
  maxIterations?: number;
  /** Stop when nothing is runnable (retries still waiting for their backoff are waited for). */
  drain: boolean;
  limits: RunLimits;
  /** Items run at once (`--workers`); `--once` runs one. */
  workers: number;
  /** The stages that tend items beside the workers (the commands say which). */
  stages: readonly StageFactory[];
}

/** The start of the next UTC day: when a fleet's daily cap opens again. */
function nextUtcDay(now: number): number {
  const day = new Date(now);
  return Date.UTC(day.getUTCFullYear(), day.getUTCMonth(), day.getUTCDate() + 1);
}

/** The gap after consecutive failures: 2 s, 4 s, 8 s, … */
const FAILURE_BACKOFF_BASE_MS = 2_000;

/** What the loop does next. */
type Next = 'stop' | 'again' | { budgetLeftUsd?: number };

/**
 * The night: one iteration after another until drained, stopped or out of limits, with the
 * pause, the run's limits, the circuit breaker, usage-limit waits and backoffs between them.
 */
class Night {
  readonly result: LoopResult = {
    sessions: 0,
    reviews: 0,
    succeeded: 0,
    failed: 0,
    rejected: 0,
    unreviewed: 0,
    awaitingRetry: 0,
    outcomes: {},
    costUsd: 0,
  };
  /** The items counted in `awaitingRetry` (the run's exit says so). */
  private readonly retrying = new Set<string>();
  /** The pause reason last said, while the night is paused. */
  private pausedFor: string | undefined;
  private idle = false;
  /** Whether a worker found nothing to claim since the last session ended. */
  private lookedIdle = false;
  private consecutiveFailures = 0;
  /** Rate limits in a row that named no reset time: each waits twice as long as the last. */
  private consecutiveRateLimits = 0;
  /** Iterations under way (claimed, or claiming), across the workers. */
  private active = 0;
  /** Items claimed: numbers the next one's iteration. */
  private claimed = 0;
  /** Set when one worker found the run over: no worker claims again. */
  private ended = false;
  /**
   * Aborted (and renewed) when something may have made an item claimable: a session or a
   * worker ended, or the queue's store announced a change. It wakes the workers sleeping.
   */
  private changed = new AbortController();
  /** Counts those changes: a claim that found nothing knows whether it is stale. */
  private changes = 0;
  /** The wait every worker holds for (a usage limit, a backoff, a window), while there is one. */
  private waiting: { until: number; done: Promise<void> } | undefined;
  readonly workers: number;
  /** What tends the items beside the workers (src/cli/stages.ts says which). */
  private readonly stages: NightStages;
  /** Said once while a stage refuses new claims. */
  private refusalSaid = false;
  /** Where every session of the run runs, the workers' and the stages'. */
  private readonly sessions: SessionHost;

  constructor(
    private readonly ctx: RunnerContext,
    private readonly options: LoopOptions,
    private readonly control: StopControl,
  ) {
    this.workers = options.once ? 1 : Math.max(1, options.workers);
    this.sessions = new SessionHost(sessionHostContextOf(ctx, control), {
      left: () => this.stageBudgetLeft(),
      // A stage's session (a reviewer's) ended, having cost `costUsd`.
      spent: (costUsd) => {
        this.result.reviews++;
        this.result.costUsd = addUsd(this.result.costUsd, costUsd);
      },
    });
    this.stages = new NightStages(
      ctx,
      stageContextOf(ctx, control, this.sessions),
      options.stages,
      {
        failed: () => this.result.failed++,
        moved: () => this.wake(),
      },
    );
  }

  /**
   * What a stage's session (a reviewer's) may spend of the run's cost limit: a share beside
   * the workers', 0 once the limit is reached, none without a limit.
   */
  private stageBudgetLeft(): number | undefined {
    const check = checkRunLimits(this.options.limits, this.ctx.clock.now(), this.result.costUsd);
    if (check.kind === 'stop') return check.cost === true ? 0 : undefined;
    if (check.kind !== 'open' || check.budgetLeftUsd === undefined) return undefined;
    return check.budgetLeftUsd / (this.workers + 1);
  }

  /** Runs every stage until the workers have ended and none has anything left to tend. */
  async runStages(workersDone: () => boolean): Promise<void> {
    const pace = { sleep: (ms: number) => this.sleep(ms), untilChanged: () => this.untilChanged() };
    const left = await this.stages.run(workersDone, pace);
    // An item a stage could not move on (a git error landing it) did not get done; one left
    // unreviewed waits for a reviewer again, or a person.
    this.result.failed += left.stuck;
    this.result.unreviewed += left.unreviewed;
  }

  /**
   * Until something may have changed what a stage waits for (a worker's turn ended, the queue's
   * store announced a change, a stop), or a poll interval of real time passed: never through
   * the loop's wait, whose clock may be a test's.
   */
  private untilChanged(): Promise<void> {
    return untilAbortedOr(
      [this.control.signal, this.changed.signal],
      this.ctx.workspace.config.run.pollInterval * 1000,
    );
  }

  /**
   * One worker: claims and runs one item after another. Workers share the night's state (its
   * counts, the circuit breaker, the waits), so the run's limits hold for all of them together.
   */
  async work(firstIteration: number): Promise<void> {
    while (this.control.requested === undefined && !this.ended) {
      const next = await this.beforeClaim();
      if (next === 'stop') break;
      if (next === 'again') continue;
      this.active++;
      const changesBefore = this.changes;
      let turn: IterationResult;
      try {
        turn = await runIteration(
          this.ctx,
          this.sessions,
          () => firstIteration + this.claimed++,
          this.control,
          next.budgetLeftUsd,
          (costUsd) => {
            this.result.costUsd = addUsd(this.result.costUsd, costUsd);
          },
        );
      } finally {
        this.active--;
      }
      // A session that ended while this claim looked may have freed what it found taken.
      if (turn.kind === 'idle' && this.changes !== changesBefore) continue;
      // Another worker may be waiting for this one: for the item it freed, or to end the run.
      if (turn.kind !== 'idle') this.wake();
      if ((await this.after(turn)) === 'stop') break;
    }
    // Whatever ended this worker ends the claiming of all of them.
    this.ended = true;
    this.wake();
  }

  /**
   * Another runner of the fleet (or a `ralph retry`) may have settled an item this run saw fail:
   * only one still waiting for its retry counts against the run's exit.
   */
  async forgetRetriedElsewhere(): Promise<void> {
    if (this.retrying.size > 0) {
      // Those items alone (and what they depend on), not the whole queue.
      const items = await this.ctx.queue.dependencyClosure([...this.retrying]).catch(() => []);
      for (const item of items)
        if (this.retrying.has(item.id) && !freshInLine(item.status)) this.retrying.delete(item.id);
    }
    this.result.awaitingRetry = this.retrying.size;
  }

  /**
   * Wakes the workers that sleep: something may be claimable now. The stages beside them look
   * again before they count as idle: the change may have given them an item.
   */
  wake(): void {
    this.stages.changed();
    this.changes++;
    this.changed.abort();
    this.changed = new AbortController();
  }

  private get draining(): boolean {
    return this.options.drain || this.options.once;
  }

  /** Whether an item may be claimed now; waits (visibly) when not yet. */
  async beforeClaim(): Promise<Next> {
    const { ctx, options, result } = this;
    if (this.waiting !== undefined) {
      await this.waiting.done;
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
      result.sessions + this.active >= options.maxIterations
    )
      return this.waitForOthers('stop');
    // `ralph pause --after-current` lets every running item finish: the pause begins after the last.
    if (this.active > 0 && (await ctx.controlFiles.pendingPauseReason()) !== undefined)
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
      await this.pause(`ralph: ${low}; free some space, then run "ralph resume"`);
      return 'again';
    }
    const check = checkRunLimits(options.limits, ctx.clock.now(), result.costUsd);
    if (check.kind === 'stop') {
      ctx.events.info('run_limit_reached', { reason: check.reason, cost: check.cost });
      result.ended = check.reason;
      return 'stop';
    }
    if (check.kind === 'wait') {
      await this.waitUntil(check.until, check.reason, 'window_wait');
      return 'again';
    }
    const daily = await fleetDailyLeft(this.sessions.ctx);
    if (daily !== undefined && daily.left <= 0) {
      if (this.draining) {
        ctx.events.info('run_limit_reached', { reason: daily.reason, cost: true });
        result.ended = daily.reason;
        return 'stop';
      }
      await this.waitUntil(nextUtcDay(ctx.clock.now()), daily.reason, 'window_wait');
      return 'again';
    }
    const full = await this.stages.refusal();
    if (full !== undefined) return this.whileClaimsRefused(full);
    if (this.refusalSaid) {
      this.refusalSaid = false;
      await ctx.controlFiles.clearWaiting().catch(() => undefined);
    }
    // Each worker's session may spend its share of what is left: together they stay within it.
    const lefts = [check.budgetLeftUsd, daily?.left].filter((l) => l !== undefined);
    return {
      budgetLeftUsd: lefts.length === 0 ? undefined : Math.min(...lefts) / this.workers,
    };
  }

  /**
   * A stage refuses new claims (a limit of its own: items that wait for a person): no item
   * starts until it lets go. A drained run whose workers and stages are idle ends, as nobody
   * answers at night. Said as `forge_full`, the event's name since its first stage.
   */
  private async whileClaimsRefused(reason: string): Promise<'stop' | 'again'> {
    const { ctx, result } = this;
    if (this.draining && this.active === 0 && !this.stages.busy) {
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
    await this.sleep(pollMs);
    return 'again';
  }

  /** A worker that may not claim while others run: it waits for one of them to end. */
  private async waitForOthers(whenAlone: Next): Promise<Next> {
    if (this.active === 0) return whenAlone;
    await this.sleep(this.ctx.workspace.config.run.pollInterval * 1000);
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
    if (this.draining) {
      this.result.paused = reason;
      return 'stop';
    }
    // A directory watch wakes the loop when the file goes, the timer is the fallback.
    await this.sleep(ctx.workspace.config.run.pollInterval * 1000);
    return 'again';
  }

  /** Takes in what an iteration did; 'stop' ends the run. */
  async after(turn: IterationResult): Promise<'stop' | 'again'> {
    switch (turn.kind) {
      case 'idle':
        return this.whenIdle(turn.wakeAt, turn.retryAt);
      case 'rejected':
        this.result.rejected++;
        return 'again';
      case 'workspace_fault':
        return 'again';
      case 'preparing':
        // The setup stage has an item: it looks before the night counts as idle.
        this.wake();
        return 'again';
      case 'agent_unavailable':
        this.result.agentUnavailable = turn.reason;
        return 'stop';
      case 'ran':
        return this.afterSession(turn);
      case 'held':
        return this.afterLimit(turn.until, turn.reason);
    }
  }

  private async whenIdle(wakeAt: number | undefined, retryAt: number | undefined) {
    const { ctx } = this;
    const until = this.draining ? retryAt : wakeAt;
    // Another worker's item may yet fail and come back, or free the items that depend on it;
    // an item waiting to land may come back to its agent.
    if (this.draining && until === undefined && this.active === 0 && !this.stages.busy)
      return 'stop';
    // A drained run waits for a retry no longer than for a usage limit's reset (an item given
    // back by a limit waits for its reset): past run.maxLimitWait it ends, saying when.
    const maxWaitMs = ctx.workspace.config.run.maxLimitWait * 1000;
    if (
      this.draining &&
      until !== undefined &&
      until - ctx.clock.now() > maxWaitMs &&
      this.active === 0 &&
      !this.stages.busy
    ) {
      ctx.events.warn('limit_too_far', {
        until: new Date(until).toISOString(),
        maxLimitWait: ctx.workspace.config.run.maxLimitWait,
      });
      this.result.limited = {
        until,
        message: `the next item may be retried at ${new Date(until).toISOString()}`,
      };
      return 'stop';
    }
    // Said once, so that a quiet runner does not look hung. While other workers' items run, on
    // the second look: the run's first lines are the sessions it starts, not a wait for them.
    const othersStarting = this.active > 0 && !this.lookedIdle;
    this.lookedIdle = true;
    if (!this.idle && !othersStarting) {
      ctx.events.info('idle', {
        waitingFor:
          until !== undefined
            ? `the next item at ${new Date(until).toISOString()}, or new items`
            : this.active > 0
              ? // Items may be waiting for a work dir a running one holds.
                'the running items to end (items sharing their work dir wait for them), or new items'
              : 'new items (ralph add)',
      });
      this.idle = true;
    }
    const pollMs = ctx.workspace.config.run.pollInterval * 1000;
    await this.sleep(until === undefined ? pollMs : Math.min(pollMs, until - ctx.clock.now()));
    return 'again';
  }

  private async afterSession(turn: Ran): Promise<'stop' | 'again'> {
    const { ctx, options, result } = this;
    const { config } = ctx.workspace;
    const { outcome } = turn;
    this.idle = false;
    this.lookedIdle = false;
    result.sessions++;
    result.outcomes[outcome.kind] = (result.outcomes[outcome.kind] ?? 0) + 1;
    if (outcome.kind === 'success') result.succeeded++;
    else if (turn.itemStatus !== undefined && statusIs(turn.itemStatus, 'failure')) result.failed++;
    // A failure of the item's own that it will be retried for; an attempt given back (a pause,
    // a limit, a stop) is told by the run's other exit codes.
    if (outcome.countsAsFailure && turn.itemStatus !== undefined && freshInLine(turn.itemStatus))
      this.retrying.add(turn.itemId);
    else this.retrying.delete(turn.itemId);
    this.keepReserve(turn);
    if (turn.usageWindow !== undefined)
      await underWatchdog(ctx, 'planning the night', ctx.pacing.refresh(ctx, result.costUsd));
    // An item that may run on another CLI goes on there: its own CLI is held, not the night.
    if ('pauseReason' in outcome) {
      if (turn.canFallBack)
        holdCli(this.ctx, turn.cli, {
          until: Infinity,
          reason: outcome.message,
          kind: outcome.kind === 'credit_exhausted' ? 'credit' : 'credentials',
        });
      else await this.pause(outcome.pauseReason);
    }
    await this.countFailure(turn);
    if (this.control.requested !== undefined) return 'stop';
    const waitUntil = outcome.kind === 'rate_limited' ? this.limitWaitUntil(outcome) : undefined;
    if (waitUntil !== undefined)
      holdCli(this.ctx, turn.cli, {
        until: waitUntil + config.run.limitMargin * 1000,
        reason: outcome.message,
        kind: 'limit',
      });
    if (options.once) {
      const pauseReason =
        outcome.kind === 'success' ? undefined : await ctx.controlFiles.pauseReason();
      if (pauseReason !== undefined) result.paused = pauseReason;
      else if (waitUntil !== undefined)
        result.limited = { until: waitUntil, message: outcome.message };
      return 'stop';
    }
    // The next claim falls back, or is held (and waited for) if the limit is near.
    if (waitUntil !== undefined && turn.canFallBack) return 'again';
    if (waitUntil !== undefined) {
      // A usage limit: nothing can run until it resets, whatever the item.
      return this.afterLimit(waitUntil + config.run.limitMargin * 1000, outcome.message);
    } else if (this.consecutiveFailures > 0) {
      const backoff = exponentialBackoffMs(
        this.consecutiveFailures,
        FAILURE_BACKOFF_BASE_MS,
        config.run.failureBackoffCap * 1000,
      );
      await this.waitUntil(
        ctx.clock.now() + backoff,
        `${this.consecutiveFailures} consecutive failures`,
        'failure_backoff',
      );
    } else if (config.run.delay > 0) {
      await ctx.wait({ ms: config.run.delay * 1000, signal: this.control.signal });
    }
    return 'again';
  }

  /**
   * Nothing may start before `until` (a usage limit's reset): the run waits for it, unless it
   * is `--once`, or a drained run's reset is days away (a weekly limit) rather than hours.
   */
  private async afterLimit(until: number, reason: string): Promise<'stop' | 'again'> {
    const { ctx, options, result } = this;
    const { config } = ctx.workspace;
    if (options.once) {
      result.limited = { until, message: reason };
      return 'stop';
    }
    if (options.drain && until - ctx.clock.now() > config.run.maxLimitWait * 1000) {
      ctx.events.warn('limit_too_far', {
        until: new Date(until).toISOString(),
        maxLimitWait: config.run.maxLimitWait,
      });
      result.limited = { until, message: reason };
      return 'stop';
    }
    await this.waitUntil(until, reason, 'limit_wait');
    return 'again';
  }

  /**
   * `run.reserve`: a CLI that reports its subscription's window used past what the night may
   * spend takes no new item until the window resets (what is left is the person's morning).
   */
  private keepReserve({ cli, usageWindow }: Ran): void {
    const { reserve } = this.ctx.workspace.config.run;
    if (reserve <= 0 || usageWindow?.resetsAt === undefined) return;
    if (usageWindow.utilization < 1 - reserve) return;
    const window = usageWindow.rateLimitType ?? 'usage';
    holdCli(this.ctx, cli, {
      until: usageWindow.resetsAt * 1000,
      reason: `${cli} has used ${Math.round(usageWindow.utilization * 100)}% of its ${window} window; run.reserve keeps ${Math.round(reserve * 100)}% of it for the morning`,
      kind: 'reserve',
    });
  }

  /** When a usage or rate limit lets the night go on: its reset, or a growing backoff. */
  private limitWaitUntil(outcome: Outcome & { kind: 'rate_limited' }): number {
    const { run } = this.ctx.workspace.config;
    // A reset past even with its margin (a clock that differs from the API's) is no reset:
    // without the backoff the next session would meet the same limit at once, over and over.
    if (
      outcome.waitUntil !== undefined &&
      outcome.waitUntil + run.limitMargin * 1000 > this.ctx.clock.now()
    )
      return outcome.waitUntil;
    this.consecutiveRateLimits++;
    return (
      this.ctx.clock.now() +
      exponentialBackoffMs(
        this.consecutiveRateLimits,
        run.rateLimitBackoff * 1000,
        run.maxLimitWait * 1000,
      )
    );
  }

  /** The circuit breaker: too many failures in a row pause the night. */
  private async countFailure({ outcome }: Ran): Promise<void> {
    if (outcome.countsAsFailure) this.consecutiveFailures++;
    else if (outcome.kind === 'success') this.consecutiveFailures = 0;
    if (outcome.kind !== 'rate_limited') this.consecutiveRateLimits = 0;
    const breaker = this.ctx.workspace.config.run.maxConsecutiveFailures;
    if (breaker > 0 && this.consecutiveFailures >= breaker) {
      await this.pause(
        `ralph: ${this.consecutiveFailures} consecutive failures; the last: ${outcome.message}`,
      );
      this.consecutiveFailures = 0;
    }
  }

  private async pause(reason: string): Promise<void> {
    // A run meant to end that cannot even write the pause ends: the disk is the person's to fix.
    const written = await pauseForOperator(this.ctx, this.control, reason);
    if (!written && this.ctx.endsWhenPaused)
      throw new RalphError(
        `${reason.split('\n')[0] ?? reason}; the pause could not be written either`,
        ExitCode.ioError,
      );
  }

  /** Sleeps until the queue or the interrupt file changes, another worker's item ends, or `ms` pass. */
  private async sleep(ms: number): Promise<void> {
    const { dir, names } = this.ctx.controlFiles.watched;
    const signal = AbortSignal.any([this.control.signal, this.changed.signal]);
    await this.ctx.wait({ ms, watchDir: dir, names, signal });
  }

  /**
   * Sleeps until `until`, visibly (`state/waiting.json` and the log), unless stopped first.
   * Every worker waits for it: none claims until it is over. A wait already under way that
   * lasts as long is joined rather than started again.
   */
  private async waitUntil(
    until: number,
    reason: string,
    event: 'window_wait' | 'limit_wait' | 'failure_backoff',
  ): Promise<void> {
    if (this.waiting !== undefined && this.waiting.until >= until) return this.waiting.done;
    const wait = { until, done: this.waitVisibly(until, reason, event) };
    this.waiting = wait;
    try {
      await wait.done;
    } finally {
      if (this.waiting === wait) this.waiting = undefined;
    }
  }

  private async waitVisibly(
    until: number,
    reason: string,
    event: 'window_wait' | 'limit_wait' | 'failure_backoff',
  ): Promise<void> {
    const { ctx, control } = this;
    const at = new Date(until).toISOString();
    // Only for people to read: a full disk must not stop the wait.
    await ctx.controlFiles.writeWaiting({ until: at, reason, event }).catch(() => undefined);
    ctx.events.warn(event, { until: at, reason });
    try {
      while (control.requested === undefined && ctx.clock.now() < until) {
        await ctx.wait({ ms: until - ctx.clock.now(), signal: control.signal });
      }
    } finally {
      if (this.waiting === undefined || this.waiting.until <= until)
        await ctx.controlFiles.clearWaiting();
    }
  }
}

/**
 * The night loop: one iteration after another until drained, stopped or out of limits, in as
 * many workers as the run has (each runs one item at a time).
 */
export async function runLoop(
  ctx: RunnerContext,
  options: LoopOptions,
  control: StopControl,
  firstIteration: number,
): Promise<LoopResult> {
  const night = new Night(ctx, options, control);
  // A queue in a database announces new items and retries: the workers wake at once.
  const unsubscribe = ctx.queue.subscribe(() => night.wake());
  let workersDone = false;
  // Awaited once the workers end; until then a failure of it must not go unhandled.
  const stages = night
    .runStages(() => workersDone)
    .then(
      () => undefined,
      (error: unknown) => ({ error }),
    );
  try {
    await Promise.all(Array.from({ length: night.workers }, () => night.work(firstIteration)));
  } finally {
    workersDone = true;
    night.wake();
    await stages.finally(unsubscribe);
  }
  const failed = await stages;
  if (failed !== undefined) throw failed.error;
  await night.forgetRetriedElsewhere();
  return night.result;
}
