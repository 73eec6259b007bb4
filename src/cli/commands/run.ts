import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { shellQuote } from '../../agent/argv.js';
import type { Workspace } from '../../config/workspace.js';
import { systemClock, type Clock } from '../../lib/clock.js';
import { InputError } from '../../lib/errors.js';
import { ExitCode } from '../../lib/exit-codes.js';
import {
  displayPath,
  ensurePrivateDir,
  refuseSharedDir,
  refuseUnwritableDir,
} from '../../lib/fs.js';
import { FileCache } from '../../lib/file-cache.js';
import { Redactor } from '../../lib/redact.js';
import type { Item } from '../../queue/item.js';
import { unrunnableItems } from '../../queue/dependencies.js';
import { selectNext } from '../../queue/select.js';
import { QueueStore } from '../../queue/store.js';
import { startRun, readBudget } from '../../runner/budget.js';
import { DEFAULT_TIMINGS, type RunnerContext, type RunnerTimings } from '../../runner/context.js';
import { StopControl } from '../../runner/control.js';
import { acquireRunnerLock } from '../../runner/lock.js';
import { RunLog } from '../../runner/log.js';
import { runLoop } from '../../runner/loop.js';
import { parseDeadline, type RunLimits } from '../../runner/gates.js';
import { waitForChange, type Wait } from '../../runner/wait.js';
import { CronSchema } from '../../config/schema.js';
import { prepareSession } from '../../runner/prepare.js';
import { underWatchdog } from '../../runner/persist.js';
import { recoverAfterCrash } from '../../runner/recover.js';
import { openWorkspace } from '../open-workspace.js';
import type { Output } from '../output.js';
import { redactorFor, secretsOf } from '../redactor.js';
import { runConsole } from '../run-output.js';
import { handleStopSignals, signalExitCode } from '../signals.js';

function positiveInt(flag: string, value: unknown): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0)
    throw new InputError(`${flag}: expected a positive whole number, got ${JSON.stringify(value)}`);
  return n;
}

/** The run's deadline, windows and budget, from the flags over the configuration. */
function runLimits(workspace: Workspace, options: Record<string, unknown>, now: number): RunLimits {
  let deadline: number | undefined;
  if (typeof options.until === 'string') {
    deadline = parseDeadline(options.until, now);
    if (deadline === undefined) {
      throw new InputError(
        `--until: expected HH:MM or an ISO time, got ${JSON.stringify(options.until)}`,
      );
    }
  }
  let maxCostUsd = workspace.config.run.maxCostUsd;
  if (options.maxCost !== undefined) {
    maxCostUsd = Number(options.maxCost);
    if (!Number.isFinite(maxCostUsd) || maxCostUsd <= 0) {
      throw new InputError(
        `--max-cost: expected a positive amount in USD, got ${JSON.stringify(options.maxCost)}`,
      );
    }
  }
  const flagWindows = (options.window as string[] | undefined) ?? [];
  for (const window of flagWindows) {
    const parsed = CronSchema.safeParse(window);
    if (!parsed.success)
      throw new InputError(`--window: ${parsed.error.issues[0]?.message ?? 'invalid'}`);
  }
  return {
    deadline,
    maxCostUsd,
    windows: flagWindows.length > 0 ? flagWindows : workspace.config.run.windows,
    timeZone: workspace.config.run.timeZone,
  };
}

/** `--dry-run`: the command each runnable item would get, in the order they would run. */
async function dryRun(
  workspace: Workspace,
  env: Readonly<Record<string, string | undefined>>,
  output: Output,
): Promise<number> {
  const { items } = await new QueueStore(workspace.paths.queue).read();
  const redactor = redactorFor(workspace, env);
  const simulated = items.map((item) => ({ ...item }));
  const files = new FileCache();
  let iteration = (await readBudget(workspace.paths.budget)).iterations + 1;
  let printed = 0;
  for (
    let next = selectNext(simulated, Date.now());
    next !== undefined;
    next = selectNext(simulated, Date.now())
  ) {
    const item: Item = next;
    const sessionId = randomUUID();
    const prepared = await prepareSession(
      workspace,
      { ...item, attempts: item.attempts + 1 },
      {
        sessionId,
        iteration,
        promptFile: path.join(workspace.paths.sessions, `${sessionId}-prompt.md`),
      },
      env,
      files,
    );
    if ('reason' in prepared)
      output.out(
        `# ${item.id}: ${prepared.scope === 'workspace' ? 'would pause the night' : 'would be rejected'}: ${redactor.redact(prepared.reason)}`,
      );
    else {
      output.out(`# ${item.id} (${item.title}) in ${prepared.settings.workDir}`);
      output.out(redactor.redact(shellQuote([prepared.argv.file, ...prepared.argv.args])));
    }
    item.status = 'done';
    iteration++;
    printed++;
  }
  if (printed === 0) output.out('# nothing is runnable now');
  for (const { id, reason } of unrunnableItems(items))
    output.out(`# ${id}: can never run as the queue stands: ${reason}`);
  return ExitCode.ok;
}

/** A drained run ends with what it left behind that can never run without a person. */
async function reportUnrunnable(queue: QueueStore, log: RunLog, output: Output): Promise<void> {
  const stuck = unrunnableItems((await queue.read()).items);
  if (stuck.length === 0) return;
  log.warn('items_cannot_run', { items: stuck });
  output.err(
    [
      `ralph: ${stuck.length} item${stuck.length === 1 ? '' : 's'} can never run as the queue stands:`,
      ...stuck.map(({ id, reason }) => `  ${id}: ${reason}`),
      'Retry what they depend on (ralph retry <id>) or change their dependencies (ralph edit <id> --depends-on …).',
    ].join('\n'),
  );
}

/** What `ralph run` takes from its surroundings; tests pass a fake clock and wait. */
export interface RunDependencies {
  clock: Clock;
  wait: Wait;
  timings: RunnerTimings;
}

const REAL: RunDependencies = { clock: systemClock, wait: waitForChange, timings: DEFAULT_TIMINGS };

/** `ralph run`: the night loop, with the workspace lock held. */
export async function runCommand(
  root: string,
  options: Record<string, unknown>,
  output: Output,
  env: Readonly<Record<string, string | undefined>>,
  dependencies: Partial<RunDependencies> = {},
): Promise<number> {
  const { clock, wait, timings } = { ...REAL, ...dependencies };
  const workspace = await openWorkspace(root);
  const maxIterations = positiveInt('--max-iterations', options.maxIterations);
  const limits = runLimits(workspace, options, clock.now());
  if (options.dryRun === true) return dryRun(workspace, env, output);

  const { paths } = workspace;
  for (const dir of [paths.state, paths.sessions]) {
    await ensurePrivateDir(dir);
    await refuseSharedDir(dir);
    await refuseUnwritableDir(dir);
  }
  const lock = await acquireRunnerLock(paths.runnerLock, clock.now());
  const control = new StopControl();
  const secrets = secretsOf(workspace, env);
  const redactor = new Redactor(secrets);
  const display = runConsole(output);
  const log = new RunLog(paths.iterationLog, workspace.config.log.maxBytes, [display.log], () =>
    clock.now(),
  );
  log.addSecrets(secrets);
  let stopSignal: NodeJS.Signals | undefined;
  const removeHandlers = handleStopSignals(control, (signal) => {
    stopSignal ??= signal;
    log.warn(control.requested === undefined ? 'stopping' : 'forcing_stop', { signal });
  });
  try {
    const ctx: RunnerContext = {
      workspace,
      queue: new QueueStore(paths.queue),
      log,
      clock,
      redactor,
      parentEnv: env,
      runner: lock.identity,
      timings,
      wait,
      files: new FileCache(),
      progress: display.progress,
      lockLost: () => lock.compromised(),
      onWedged: (operation, afterMs) => {
        const message = `watchdog: ${operation} made no progress for ${afterMs / 1000} s; ralph ends itself so that it can be restarted`;
        log.error('watchdog', { operation, afterMs });
        display.close();
        output.err(`ralph: ${message}`);
        // A hung file system call cannot be cancelled, and a normal exit waits for it: SIGKILL
        // is the one way out. The next start recovers as after any crash.
        process.kill(process.pid, 'SIGKILL');
      },
    };
    if (lock.reclaimedFrom !== undefined) {
      log.warn('stale_lock_reclaimed', { file: paths.runnerLock, holder: lock.reclaimedFrom });
    }
    if (workspace.config.yolo) {
      log.warn('yolo', {
        message:
          'PERMISSION CHECKS ARE OFF: every session runs with --dangerously-skip-permissions ("yolo": true)',
      });
    }
    // A queue broken before the run is the operator's to fix now (exit 4, file untouched); one
    // broken during the run is quarantined and waited for (SPEC: nothing overwritten).
    await underWatchdog(ctx, 'reading the queue', ctx.queue.read());
    await recoverAfterCrash(ctx, control);
    const budget = await startRun(paths.budget, {
      now: clock.now(),
      maxIterations,
      maxCostUsd: limits.maxCostUsd,
    });
    log.info('run_started', {
      root: workspace.root,
      pid: process.pid,
      once: options.once === true,
      drain: options.drain === true,
      maxIterations,
    });
    const result = await runLoop(
      ctx,
      { once: options.once === true, drain: options.drain === true, maxIterations, limits },
      control,
      budget.iterations + 1,
    );
    log.info('run_finished', { ...result, stoppedBy: stopSignal });
    if (options.drain === true) await reportUnrunnable(ctx.queue, log, output);
    if (stopSignal !== undefined) return signalExitCode(stopSignal);
    if (result.agentUnavailable !== undefined) {
      output.err(`ralph: the agent cannot be started: ${result.agentUnavailable}`);
      return ExitCode.agentUnavailable;
    }
    if (result.paused !== undefined) {
      output.err(
        `ralph: the night is paused${result.paused === '' ? '' : `: ${redactor.redact(result.paused)}`}\n` +
          `Nothing runs until the pause is lifted: fix the cause, then "ralph resume" (it removes ${displayPath(paths.interruptFile, process.cwd())}) and run again.`,
      );
      return ExitCode.paused;
    }
    if (result.limited !== undefined) {
      output.err(
        `ralph: ${redactor.redact(result.limited.message)}; it resets at ${new Date(result.limited.until).toISOString()}, and this run does not wait that long (--once never waits, --drain up to run.maxLimitWait). Run again after the reset.`,
      );
      return ExitCode.limited;
    }
    return result.failed > 0 || result.rejected > 0 ? ExitCode.itemsFailed : ExitCode.ok;
  } finally {
    display.close();
    removeHandlers();
    await lock.release();
  }
}
