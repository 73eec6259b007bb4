import fsp from 'node:fs/promises';
import path from 'node:path';
import { writeFileAtomically } from '../lib/fs.js';
import type { RunnerContext } from './context.js';
import type { StopControl } from './control.js';
import { runIteration } from './iteration.js';
import { waitForChange } from './wait.js';

/** Options of `ralph run`. */
export interface LoopOptions {
  /** Run one item, then stop. */
  once: boolean;
  /** Stop after this many sessions. */
  maxIterations?: number;
  /** Stop when nothing is runnable (retries still waiting for their backoff are waited for). */
  drain: boolean;
}

/** What a run did, for the exit code and the closing line. */
export interface LoopResult {
  sessions: number;
  succeeded: number;
  failed: number;
  rejected: number;
  /** Set when the agent could not be started at all. */
  agentUnavailable?: string;
}

/** Margin after a usage limit's reset time before the next try. */
const LIMIT_MARGIN_MS = 30_000;

async function exists(file: string): Promise<boolean> {
  return fsp.access(file).then(
    () => true,
    () => false,
  );
}

/** The night loop: one iteration after another until drained, stopped or out of iterations. */
export async function runLoop(
  ctx: RunnerContext,
  options: LoopOptions,
  control: StopControl,
  firstIteration: number,
): Promise<LoopResult> {
  const { paths, config } = ctx.workspace;
  const result: LoopResult = { sessions: 0, succeeded: 0, failed: 0, rejected: 0 };
  const queueName = path.basename(paths.queue);
  const interruptName = path.basename(paths.interruptFile);
  let paused = false;

  while (control.requested === undefined) {
    if (options.maxIterations !== undefined && result.sessions >= options.maxIterations) break;
    if (await exists(paths.interruptFile)) {
      if (!paused) {
        const reason = (await fsp.readFile(paths.interruptFile, 'utf8').catch(() => '')).trim();
        ctx.log.warn('paused', { reason, file: paths.interruptFile });
        paused = true;
      }
      await waitForChange({
        ms: config.run.pollInterval * 1000,
        watchDir: paths.state,
        names: [interruptName],
        signal: control.signal,
      });
      continue;
    }
    if (paused) {
      ctx.log.info('resumed');
      paused = false;
    }

    const turn = await runIteration(ctx, firstIteration + result.sessions, control);
    switch (turn.kind) {
      case 'idle': {
        const now = ctx.clock.now();
        const wakeAt = options.drain || options.once ? turn.retryAt : turn.wakeAt;
        if ((options.drain || options.once) && wakeAt === undefined) return result;
        const pollMs = config.run.pollInterval * 1000;
        await waitForChange({
          ms: wakeAt === undefined ? pollMs : Math.min(pollMs, wakeAt - now),
          watchDir: paths.state,
          names: [queueName],
          signal: control.signal,
        });
        continue;
      }
      case 'rejected':
        result.rejected++;
        continue;
      case 'agent_unavailable':
        result.agentUnavailable = turn.reason;
        return result;
      case 'ran':
        break;
    }

    result.sessions++;
    if (turn.outcome.kind === 'success') result.succeeded++;
    else if (turn.itemStatus === 'failed') result.failed++;
    if (turn.outcome.pauseReason !== undefined) {
      await writeFileAtomically(
        paths.interruptFile,
        `${ctx.redactor.redact(turn.outcome.pauseReason)}\n`,
      );
      ctx.log.error('pausing', { reason: turn.outcome.pauseReason });
    }
    if (options.once) break;
    if (turn.outcome.waitUntil !== undefined) {
      const until = turn.outcome.waitUntil + LIMIT_MARGIN_MS;
      ctx.log.warn('limit_wait', {
        until: new Date(until).toISOString(),
        reason: turn.outcome.message,
      });
      await waitForChange({ ms: until - ctx.clock.now(), signal: control.signal });
    } else if (config.run.delay > 0) {
      await waitForChange({ ms: config.run.delay * 1000, signal: control.signal });
    }
  }
  return result;
}
