import { untilAbortedOr } from '../lib/abort-wait.js';
import { addUsd } from '../lib/usd.js';
import { NightBreaker } from './night-breaker.js';
import { NightWait } from './night-wait.js';
import { ClaimGate, type GatedNight } from './claim-gate.js';
import { RalphError } from '../lib/errors.js';
import { ExitCode } from '../lib/exit-codes.js';
import type { RunnerContext } from './context.js';
import { NightStages } from './night-stages.js';
import { sessionHostContextOf, stageContextOf } from './stage-context.js';
import { SessionHost } from '../session/session-host.js';
import { holdCli } from '../session/holds.js';
import type { StopControl } from './stop-control.js';
import type { Ran } from '../session/session-run.js';
import { checkRunLimits } from './run-limits.js';
import { runIteration, type IterationResult } from './iteration.js';
import { pauseForOperator, underWatchdog } from './persist.js';
import type { LoopResult } from '../events/run-result.js';
import { freshInLine, statusIs } from '../queue/item-status.js';
import type { LoopOptions } from './loop-options.js';

/**
 * The night: one iteration after another until drained, stopped or out of limits, with the
 * pause, the run's limits, the circuit breaker, usage-limit waits and backoffs between them.
 */
class Night implements GatedNight {
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
  private idle = false;
  /** Whether a worker found nothing to claim since the last session ended. */
  private lookedIdle = false;
  private readonly breaker: NightBreaker;
  /** Iterations under way (claimed, or claiming), across the workers. */
  active = 0;
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
  readonly wait: NightWait;
  readonly workers: number;
  /** What tends the items beside the workers (src/cli/stages.ts says which). */
  readonly stages: NightStages;
  /** Where every session of the run runs, the workers' and the stages'. */
  readonly sessions: SessionHost;
  /** Whether a worker may claim now. */
  private readonly gate: ClaimGate;

  constructor(
    private readonly ctx: RunnerContext,
    private readonly options: LoopOptions,
    private readonly control: StopControl,
  ) {
    this.workers = options.once ? 1 : Math.max(1, options.workers);
    this.breaker = new NightBreaker(ctx);
    this.wait = new NightWait(ctx, control);
    this.gate = new ClaimGate(ctx, options, this);
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
      const next = await this.gate.beforeClaim();
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

  get stagesBusy(): boolean {
    return this.stages.busy;
  }

  get draining(): boolean {
    return this.options.drain || this.options.once;
  }

  /** Takes in what an iteration did; 'stop' ends the run. */
  async after(turn: IterationResult): Promise<'stop' | 'again'> {
    switch (turn.kind) {
      case 'idle':
        return this.whenIdle(turn.wakeAt, turn.retryAt);
      case 'rejected':
        // A candidate refused is out of its item's pick: the item's end is what counts.
        if (!turn.candidate) this.result.rejected++;
        return 'again';
      case 'workspace_fault':
        return 'again';
      case 'preparing':
      case 'forked':
        // A stage has an item (the setup, the candidates'): it looks before the night is idle.
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
    // A candidate that failed is out of its item's pick: the item's end is what counts.
    else if (!turn.candidate && statusIs(turn.itemStatus, 'failure')) result.failed++;
    // A failure of the item's own that it will be retried for; an attempt given back (a pause,
    // a limit, a stop) is told by the run's other exit codes.
    if (outcome.countsAsFailure && turn.itemStatus !== undefined && freshInLine(turn.itemStatus))
      this.retrying.add(turn.itemId);
    else this.retrying.delete(turn.itemId);
    this.breaker.keepReserve(turn);
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
    const broken = this.breaker.count(outcome);
    if (broken !== undefined) await this.pause(broken);
    if (this.control.requested !== undefined) return 'stop';
    const waitUntil =
      outcome.kind === 'rate_limited' ? this.breaker.limitWaitUntil(outcome) : undefined;
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
    // A usage limit: nothing can run until it resets, whatever the item.
    if (waitUntil !== undefined)
      return this.afterLimit(waitUntil + config.run.limitMargin * 1000, outcome.message);
    const backoff = this.breaker.backoff();
    if (backoff !== undefined)
      await this.wait.until(ctx.clock.now() + backoff.ms, backoff.reason, 'failure_backoff');
    else if (config.run.delay > 0)
      await ctx.wait({ ms: config.run.delay * 1000, signal: this.control.signal });
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
    await this.wait.until(until, reason, 'limit_wait');
    return 'again';
  }

  async pause(reason: string): Promise<void> {
    // A run meant to end that cannot even write the pause ends: the disk is the person's to fix.
    const written = await pauseForOperator(this.ctx, this.control, reason);
    if (!written && this.ctx.endsWhenPaused)
      throw new RalphError(
        `${reason.split('\n')[0] ?? reason}; the pause could not be written either`,
        ExitCode.ioError,
      );
  }

  /** Sleeps until the queue or the interrupt file changes, another worker's item ends, or `ms` pass. */
  async sleep(ms: number): Promise<void> {
    const { dir, names } = this.ctx.controlFiles.watched;
    const signal = AbortSignal.any([this.control.signal, this.changed.signal]);
    await this.ctx.wait({ ms, watchDir: dir, names, signal });
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
