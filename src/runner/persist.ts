import { jittered } from '../lib/backoff.js';
import { ExitCode } from '../lib/exit-codes.js';
import {
  RalphError,
  ContentionError,
  CorruptStateError,
  UnavailableError,
  isErrnoException,
} from '../lib/errors.js';
import type { RunnerContext } from './context.js';
import type { StopControl } from './stop-control.js';

/** Failures of the file system that a person can fix: the night holds instead of crashing. */
const FIXABLE_CODES = new Set(['ENOSPC', 'EDQUOT', 'EIO', 'EROFS', 'EACCES', 'EPERM']);

type Fault = 'corrupt' | 'disk' | 'contention' | 'unavailable';

function faultOf(error: unknown): Fault | undefined {
  if (error instanceof CorruptStateError) return 'corrupt';
  if (error instanceof ContentionError) return 'contention';
  if (error instanceof UnavailableError) return 'unavailable';
  if (isErrnoException(error) && FIXABLE_CODES.has(error.code ?? '')) return 'disk';
  return undefined;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Runs one state or archive operation of the loop (a claim, a settlement, an archive write)
 * until it succeeds, under the watchdog. A full disk, a read-only mount or a queue file that
 * someone broke pauses the night with the reason and waits for the operator; contention on a
 * lock and a queue database that cannot be reached are waited out (no claim meanwhile, and a
 * finished session's settlement kept until it can be written). Anything else is a bug and is
 * thrown. Ends early only when the runner
 * is stopped, by throwing the last error.
 */
export async function persistently<T>(
  ctx: RunnerContext,
  control: StopControl,
  operation: string,
  run: () => Promise<T>,
): Promise<T> {
  for (let held: Fault | undefined; ;) {
    try {
      const value = await underWatchdog(ctx, operation, run());
      if (held === 'unavailable') {
        ctx.events.info('queue_reachable', { operation });
        await ctx.controlFiles.clearWaiting().catch(() => undefined);
      } else if (held !== undefined) ctx.events.info('state_recovered', { operation });
      return value;
    } catch (error) {
      const fault = faultOf(error);
      if (fault === undefined || control.requested !== undefined) throw error;
      await waitOutFault(ctx, control, operation, fault, error, held === fault);
      held = fault;
    }
  }
}

/** Awaits `promise`; one that outlives `run.watchdog` means the runner is wedged (`onWedged`). */
export async function underWatchdog<T>(
  ctx: RunnerContext,
  operation: string,
  promise: Promise<T>,
): Promise<T> {
  const limitMs = ctx.workspace.config.run.watchdog * 1000;
  if (limitMs <= 0) return promise;
  const timer = setTimeout(() => ctx.onWedged(operation, limitMs), limitMs);
  try {
    return await promise;
  } finally {
    clearTimeout(timer);
  }
}

async function waitOutFault(
  ctx: RunnerContext,
  control: StopControl,
  operation: string,
  fault: Fault,
  error: unknown,
  /** The same fault held this operation before: said once, not at every try. */
  again: boolean,
): Promise<void> {
  const message = messageOf(error);
  const { paths, config } = ctx.workspace;
  const pollMs = config.run.pollInterval * 1000;
  if (fault === 'unavailable') {
    if (!again) {
      ctx.events.warn('queue_unreachable', { operation, error: message });
      // For `ralph status` on this machine, which cannot ask the database either (`until`
      // says since when, for this event).
      await ctx.controlFiles
        .writeWaiting({
          until: new Date(ctx.clock.now()).toISOString(),
          reason: message,
          event: 'queue_unreachable',
        })
        .catch(() => undefined);
    }
    // Jittered: a fleet that lost its database together does not come back in lock-step.
    await ctx.wait({ ms: jittered(pollMs), signal: control.signal });
    return;
  }
  if (fault === 'contention') {
    ctx.events.warn('state_contention', { operation, error: message });
    await ctx.wait({ ms: pollMs, signal: control.signal });
    return;
  }
  let reason = `ralph: ${operation} failed: ${message}`;
  const corruptFile = error instanceof CorruptStateError ? error.file : undefined;
  const queueFile = ctx.queue.quarantine !== undefined ? ctx.queue.where : undefined;
  const otherFile = corruptFile !== undefined && corruptFile !== queueFile;
  if (fault === 'corrupt' && otherFile) {
    reason += `\nRepair or remove ${corruptFile}, then run "ralph resume".`;
  } else if (fault === 'corrupt') {
    const kept: { copy?: string; lastGood?: string; error?: string } = await (
      ctx.queue.quarantine?.(paths.quarantine, ctx.clock.now()) ?? Promise.resolve({})
    ).catch((error: unknown) => ({ error: messageOf(error) }));
    ctx.events.error('queue_quarantined', { operation, ...kept });
    const where = [
      kept.copy === undefined ? '' : `a copy of the bad file is ${kept.copy}`,
      kept.lastGood === undefined ? '' : `the last valid queue is ${kept.lastGood}`,
    ].filter((s) => s !== '');
    reason += `\n${where.join('; ')}${where.length > 0 ? '. ' : ''}Nothing was written. Repair or restore ${paths.queue}, then run "ralph resume".`;
  } else {
    reason += '. Fix the cause (free some space, remount read-write), then run "ralph resume".';
  }
  const paused = await pauseForOperator(ctx, control, reason);
  // A run meant to end ends here, with the reason; the pause stays for the next run to see.
  if (ctx.endsWhenPaused) {
    if (!paused) throw error;
    throw new RalphError(
      `the night is paused: ${reason.split('\n')[0] ?? reason}`,
      ExitCode.paused,
    );
  }
  // Two operations (a settle, the lander) may find the queue broken at once: one pause is
  // answered, the queue restored and the night resumed, while the other is still being made.
  // That one is taken back once the queue reads again, or nobody would be left to resume it.
  if (fault === 'corrupt' && !otherFile && (await queueReads(ctx)))
    await ctx.controlFiles.resumeIf(ctx.redactor.redact(reason)).catch(() => false);
  const { dir, name } = ctx.controlFiles.interruptWatch;
  while (control.requested === undefined && (await ctx.controlFiles.isPaused())) {
    await ctx.wait({ ms: pollMs, watchDir: dir, names: [name], signal: control.signal });
  }
}

/** Whether the queue reads now (a broken one repaired meanwhile). */
function queueReads(ctx: RunnerContext): Promise<boolean> {
  return ctx.queue.list().then(
    () => true,
    () => false,
  );
}

/**
 * Pauses the night: writes the interrupt file with the reason (redacted) and logs it. On a full
 * disk the file cannot be written at once, so it is tried again every poll interval until it
 * is, or the runner is stopped: the pause is always visible, and always cleared the same way.
 * A run meant to end tries once: it ends either way. Returns whether the pause was written.
 */
export async function pauseForOperator(
  ctx: RunnerContext,
  control: StopControl,
  reason: string,
): Promise<boolean> {
  const { config } = ctx.workspace;
  const text = ctx.redactor.redact(reason);
  ctx.events.error('pausing', { reason });
  for (;;) {
    try {
      await ctx.controlFiles.pause(text);
      return true;
    } catch (error) {
      ctx.events.error('pause_write_failed', { error: messageOf(error) });
      if (control.requested !== undefined || ctx.endsWhenPaused) return false;
      await ctx.wait({ ms: config.run.pollInterval * 1000, signal: control.signal });
    }
  }
}
