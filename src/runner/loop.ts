import fsp from 'node:fs/promises';
import path from 'node:path';
import { pathExists, readIfExists, writeJsonAtomically } from '../lib/fs.js';
import { workspaceLowOnSpace } from '../config/workspace.js';
import type { RunnerContext } from './context.js';
import type { StopControl } from './control.js';
import { checkGate, failureBackoffMs, type RunLimits } from './gates.js';
import { runIteration } from './iteration.js';
import { pauseNight } from './persist.js';

/** Options of `ralph run`. */
export interface LoopOptions {
  /** Run one item, then stop. */
  once: boolean;
  /** Stop after this many sessions. */
  maxIterations?: number;
  /** Stop when nothing is runnable (retries still waiting for their backoff are waited for). */
  drain: boolean;
  limits: RunLimits;
}

/** What a run did, for the exit code and the closing line. */
export interface LoopResult {
  sessions: number;
  succeeded: number;
  failed: number;
  rejected: number;
  costUsd: number;
  /** Why the loop ended early (deadline, budget), if it did. */
  ended?: string;
  /** Set when the agent could not be started at all. */
  agentUnavailable?: string;
  /** Set when a `--drain` or `--once` run ended because the night is paused: the reason. */
  paused?: string;
  /** Set when a `--drain` or `--once` run ended on a usage limit that resets too late. */
  limited?: { until: number; message: string };
}

/** The night loop: one iteration after another until drained, stopped or out of limits. */
export async function runLoop(
  ctx: RunnerContext,
  options: LoopOptions,
  control: StopControl,
  firstIteration: number,
): Promise<LoopResult> {
  const { paths, config } = ctx.workspace;
  const result: LoopResult = { sessions: 0, succeeded: 0, failed: 0, rejected: 0, costUsd: 0 };
  const stateNames = [path.basename(paths.queue), path.basename(paths.interruptFile)];
  let paused = false;
  let idle = false;
  let consecutiveFailures = 0;

  /** Sleeps until `until`, visibly (`state/waiting.json` and the log), unless stopped first. */
  const waitUntil = async (until: number, reason: string, event: string) => {
    // Only for people to read: a full disk must not stop the wait.
    await writeJsonAtomically(paths.waiting, {
      until: new Date(until).toISOString(),
      reason,
      event,
    }).catch(() => undefined);
    ctx.log.warn(event, { until: new Date(until).toISOString(), reason });
    try {
      while (control.requested === undefined && ctx.clock.now() < until) {
        await ctx.wait({ ms: until - ctx.clock.now(), signal: control.signal });
      }
    } finally {
      await fsp.rm(paths.waiting, { force: true });
    }
  };

  const pause = (reason: string) => pauseNight(ctx, control, reason);

  while (control.requested === undefined) {
    const lost = ctx.lockLost();
    if (lost !== undefined) {
      // Two runners must never claim from one queue: the one that stalled gives way.
      ctx.log.error('runner_lock_lost', { error: lost.message });
      result.ended = 'another runner took the workspace lock';
      break;
    }
    if (options.maxIterations !== undefined && result.sessions >= options.maxIterations) break;
    if (await pathExists(paths.pauseAfterCurrent)) {
      await fsp.rename(paths.pauseAfterCurrent, paths.interruptFile);
    }
    if (await pathExists(paths.interruptFile)) {
      const reason = (await readIfExists(paths.interruptFile))?.trim() ?? '';
      if (!paused) {
        ctx.log.warn('paused', { reason, file: paths.interruptFile });
        paused = true;
      }
      // Nothing can run until a person acts: a run meant to end must not wait for that.
      if (options.drain || options.once) {
        result.paused = reason;
        return result;
      }
      // Quietly: a directory watch wakes the loop when the file goes, the timer is the fallback.
      await ctx.wait({
        ms: config.run.pollInterval * 1000,
        watchDir: paths.state,
        names: stateNames,
        signal: control.signal,
      });
      continue;
    }
    if (paused) {
      ctx.log.info('resumed');
      paused = false;
    }
    // No item starts without room to record it: a full disk would cost its result.
    const low = workspaceLowOnSpace(ctx.workspace);
    if (low !== undefined) {
      await pause(`ralph: ${low}; free some space, then run "ralph resume"`);
      continue;
    }

    const gate = checkGate(options.limits, ctx.clock.now(), result.costUsd);
    if (gate.kind === 'stop') {
      ctx.log.info('run_limit_reached', { reason: gate.reason });
      result.ended = gate.reason;
      break;
    }
    if (gate.kind === 'wait') {
      await waitUntil(gate.until, gate.reason, 'window_wait');
      continue;
    }

    const turn = await runIteration(
      ctx,
      firstIteration + result.sessions,
      control,
      gate.budgetLeftUsd,
    );
    switch (turn.kind) {
      case 'idle': {
        const now = ctx.clock.now();
        const draining = options.drain || options.once;
        const wakeAt = draining ? turn.retryAt : turn.wakeAt;
        if (draining && wakeAt === undefined) return result;
        // Said once, so that a quiet runner does not look hung.
        if (!idle) {
          ctx.log.info('idle', {
            waitingFor:
              wakeAt === undefined
                ? 'new items (ralph add)'
                : `the next item at ${new Date(wakeAt).toISOString()}, or new items`,
          });
          idle = true;
        }
        const pollMs = config.run.pollInterval * 1000;
        await ctx.wait({
          ms: wakeAt === undefined ? pollMs : Math.min(pollMs, wakeAt - now),
          watchDir: paths.state,
          names: stateNames,
          signal: control.signal,
        });
        continue;
      }
      case 'rejected':
        result.rejected++;
        continue;
      case 'workspace_fault':
        continue;
      case 'agent_unavailable':
        result.agentUnavailable = turn.reason;
        return result;
      case 'ran':
        break;
    }

    idle = false;
    result.sessions++;
    result.costUsd += turn.costUsd;
    const { outcome } = turn;
    if (outcome.kind === 'success') result.succeeded++;
    else if (turn.itemStatus === 'failed') result.failed++;
    if (outcome.pauseReason !== undefined) await pause(outcome.pauseReason);

    if (outcome.countsAsFailure) consecutiveFailures++;
    else if (outcome.kind === 'success') consecutiveFailures = 0;
    const breaker = config.run.maxConsecutiveFailures;
    if (breaker > 0 && consecutiveFailures >= breaker) {
      await pause(
        `ralph: ${consecutiveFailures} consecutive failures; the last: ${outcome.message}`,
      );
      consecutiveFailures = 0;
    }

    if (control.requested !== undefined) break;
    if (options.once) {
      if (outcome.kind !== 'success' && (await pathExists(paths.interruptFile)))
        result.paused = (await readIfExists(paths.interruptFile))?.trim() ?? '';
      else if (outcome.waitUntil !== undefined)
        result.limited = { until: outcome.waitUntil, message: outcome.message };
      break;
    }
    if (outcome.waitUntil !== undefined) {
      // A drained run waits for a reset that is near (a 5-hour window), not for one days away.
      const maxWaitMs = config.run.maxLimitWait * 1000;
      if (options.drain && outcome.waitUntil - ctx.clock.now() > maxWaitMs) {
        ctx.log.warn('limit_too_far', {
          until: new Date(outcome.waitUntil).toISOString(),
          maxLimitWait: config.run.maxLimitWait,
        });
        result.limited = { until: outcome.waitUntil, message: outcome.message };
        break;
      }
      // A usage limit: nothing can run until it resets, whatever the item.
      await waitUntil(
        outcome.waitUntil + config.run.limitMargin * 1000,
        outcome.message,
        'limit_wait',
      );
    } else if (consecutiveFailures > 0) {
      const backoff = failureBackoffMs(consecutiveFailures, config.run.failureBackoffCap);
      await waitUntil(
        ctx.clock.now() + backoff,
        `${consecutiveFailures} consecutive failures`,
        'failure_backoff',
      );
    } else if (config.run.delay > 0) {
      await ctx.wait({ ms: config.run.delay * 1000, signal: control.signal });
    }
  }
  return result;
}
