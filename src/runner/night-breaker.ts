import type { Outcome } from '../agent/outcome.js';
import { exponentialBackoffMs } from '../lib/backoff.js';
import { holdCli } from '../session/holds.js';
import type { Ran } from '../session/session-run.js';
import type { RunnerContext } from './context.js';

/** The gap after consecutive failures: 2 s, 4 s, 8 s, … */
const FAILURE_BACKOFF_BASE_MS = 2_000;

/**
 * What the night learns from one session's end about going on: the circuit breaker (failures
 * in a row), the backoff after them and after rate limits that name no reset, and
 * `run.reserve` (a CLI's subscription window kept for the morning).
 */
export class NightBreaker {
  private consecutiveFailures = 0;
  /** Rate limits in a row that named no reset time: each waits twice as long as the last. */
  private consecutiveRateLimits = 0;

  constructor(private readonly ctx: RunnerContext) {}

  /**
   * Counts a session's end; the reason to pause the night when too many failed in a row (the
   * count starts again).
   */
  count(outcome: Outcome): string | undefined {
    if (outcome.countsAsFailure) this.consecutiveFailures++;
    else if (outcome.kind === 'success') this.consecutiveFailures = 0;
    if (outcome.kind !== 'rate_limited') this.consecutiveRateLimits = 0;
    const breaker = this.ctx.workspace.config.run.maxConsecutiveFailures;
    if (breaker === 0 || this.consecutiveFailures < breaker) return undefined;
    const reason = `ralph: ${this.consecutiveFailures} consecutive failures; the last: ${outcome.message}`;
    this.consecutiveFailures = 0;
    return reason;
  }

  /** The wait before the next claim after failures in a row, with why; none after a success. */
  backoff(): { ms: number; reason: string } | undefined {
    if (this.consecutiveFailures === 0) return undefined;
    const ms = exponentialBackoffMs(
      this.consecutiveFailures,
      FAILURE_BACKOFF_BASE_MS,
      this.ctx.workspace.config.run.failureBackoffCap * 1000,
    );
    return { ms, reason: `${this.consecutiveFailures} consecutive failures` };
  }

  /** When a usage or rate limit lets the night go on: its reset, or a growing backoff. */
  limitWaitUntil(outcome: Outcome & { kind: 'rate_limited' }): number {
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

  /**
   * `run.reserve`: a CLI that reports its subscription's window used past what the night may
   * spend takes no new item until the window resets (what is left is the person's morning).
   */
  keepReserve({ cli, usageWindow }: Ran): void {
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
}
