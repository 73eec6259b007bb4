import { statusIs, holderOf } from '../queue/item-status.js';
import { Slots } from '../session/slots.js';
import { Awake } from '../control/awake.js';
import path from 'node:path';
import { redactorFor } from '../agent/redaction.js';
import type { Workspace } from '../config/workspace.js';
import { ControlFiles } from '../control/files.js';
import { CliHolds, heldClis, keptHolds } from '../agent/cli-holds.js';
import { fallbackClisInUse, fallbackProblem } from '../session/fallback-clis.js';
import { checkLogins } from '../session/logins.js';
import { asRunnerOf } from '../git/git.js';
import type { Clock } from '../lib/clock.js';
import { FileCache } from '../lib/file-cache.js';
import { ensurePrivateDir, refuseSharedDir, refuseUnwritableDir } from '../lib/fs.js';
import { RalphError, UnavailableError } from '../lib/errors.js';
import { ExitCode } from '../lib/exit-codes.js';
import type { Redactor } from '../lib/redact.js';
import { unrunnableItems } from '../queue/dependencies.js';
import { openQueue } from '../queue/open.js';
import type { Item } from '../queue/item.js';
import type { Queue } from '../queue/queue.js';
import { startRun } from '../control/budget.js';
import { EgressProxy } from '../sandbox/proxy.js';
import type { RunnerContext } from './context.js';
import type { SessionTimings } from '../session/host.js';
import type { StageFactory } from '../stage/stage.js';
import { NO_RUN_SPEND } from '../session/run-spend.js';
import { SessionHost } from '../session/session-host.js';
import { StageLoop } from '../stage/loop.js';
import { sessionHostContextOf, stageContextOf } from './stage-context.js';
import type { StopControl } from './stop-control.js';
import type { RunEvents } from '../events/events.js';
import { keepUp } from './fleet.js';
import { acquireRunnerLock, type RunnerLock } from '../control/runner-lock.js';
import { logFile } from './log.js';
import { startNotifications, type NightNotifications } from '../notify/night.js';
import { issueCommenter } from '../sources/issue-comments.js';
import { runLoop } from './loop.js';
import type { LoopOptions } from './loop-options.js';
import { underWatchdog } from './persist.js';
import { recoverAfterCrash } from './recover.js';
import type { LoopResult } from '../events/run-result.js';
import type { Wait } from './wait.js';
import { Pacing } from '../forecast/pacing.js';

/** Everything a runner needs from whoever starts it (the CLI, the server, a test). */
export interface RunnerOptions {
  workspace: Workspace;
  /** The environment the agent's is filtered from. */
  env: Readonly<Record<string, string | undefined>>;
  loop: LoopOptions;
  /** Subscribe to these before the start to see every event. */
  events: RunEvents;
  /** Stops the runner (signals, a server's request). */
  control: StopControl;
  clock: Clock;
  wait: Wait;
  timings: SessionTimings;
  /**
   * A state or archive operation outlived `run.watchdog`: the runner is wedged (a hung mount)
   * and must end rather than hang all night. Must not return.
   */
  onWedged: (message: string) => void;
}

/** How a run ended. */
export interface RunnerResult extends LoopResult {
  /** Items a drained run left that can never run without a person (what they wait for failed). */
  unrunnable: { id: string; reason: string }[];
}

async function checkDirectories(workspace: Workspace): Promise<void> {
  for (const dir of [workspace.paths.state, workspace.paths.sessions]) {
    await ensurePrivateDir(dir);
    await refuseSharedDir(dir);
    await refuseUnwritableDir(dir);
  }
}

/** The run's notifications, and its imported issues' comments, told as it goes. */
function notificationsOf(
  options: Omit<RunnerOptions, 'loop'>,
  redactor: Redactor,
): NightNotifications {
  const { workspace } = options;
  return startNotifications({
    notify: workspace.config.notify,
    outbox: workspace.paths.outbox,
    name: workspace.config.rig || workspace.root,
    root: workspace.root,
    events: options.events,
    clock: options.clock,
    redactor,
    env: options.env,
    commentOnIssue: issueCommenter(workspace.config.forge, options.env),
  });
}

function contextOf(
  options: Omit<RunnerOptions, 'loop'>,
  lock: RunnerLock,
  redactor: Redactor,
  queue: Queue,
  egress: EgressProxy,
  notifications: NightNotifications,
  endsWhenPaused: boolean,
): RunnerContext {
  const { workspace, events } = options;
  const controlFiles = new ControlFiles(workspace.paths);
  return {
    workspace,
    queue,
    egress,
    endsWhenPaused,
    controlFiles,
    events,
    clock: options.clock,
    redactor,
    parentEnv: options.env,
    runner: lock.identity,
    lastRunnerDied: lock.lastRunnerDied,
    timings: options.timings,
    wait: options.wait,
    files: new FileCache(),
    leases: new Map(),
    workDirsInUse: new Set(),
    slots: new Slots(
      workspace.config.environment.ports.base,
      workspace.config.environment.ports.size,
    ),
    awake: Awake.start(workspace.config.run.keepAwake, options.env, (problem) =>
      events.warn('awake_unavailable', { problem }),
    ),
    post: notifications.post,
    pacing: new Pacing(),
    cliHolds: new CliHolds((holds) => {
      // Said in status while they last; a failed write only costs status its line.
      controlFiles.writeHolds(heldClis(holds)).catch(() => undefined);
    }),
    lockLost: () => lock.compromised(),
    onWedged: (operation, afterMs) => {
      events.error('watchdog', { operation, afterMs });
      options.onWedged(
        `watchdog: ${operation} made no progress for ${afterMs / 1000} s; ralph ends itself so that it can be restarted`,
      );
    },
  };
}

/**
 * The workspace's queue, waited for while its database cannot be reached (said once in the
 * log): a runner started during an outage starts working when it ends.
 */
async function openWhenReachable(
  options: Omit<RunnerOptions, 'loop'>,
  poolSize: number,
): Promise<Queue> {
  const { workspace, events, control } = options;
  for (let said = false; ; said = true) {
    try {
      return await openQueue(workspace, options.env, poolSize);
    } catch (error) {
      if (!(error instanceof UnavailableError) || control.requested !== undefined) throw error;
      if (!said)
        events.warn('queue_unreachable', { operation: 'opening the queue', error: error.message });
      await options.wait({ ms: workspace.config.run.pollInterval * 1000, signal: control.signal });
    }
  }
}

/**
 * Says at the start when `--workers N` can run nothing side by side: every item waiting works
 * in one work dir without git mode, and two agents never share a work dir.
 */
function warnIfSerial(ctx: RunnerContext, items: readonly Item[], workers: number): void {
  const { config, root } = ctx.workspace;
  const waiting = items.filter((i) => statusIs(i.status, 'runnable'));
  if (waiting.length < 2 || waiting.some((i) => i.git ?? config.git.enabled)) return;
  const dirs = new Set(
    waiting.map((i) => path.resolve(root, i.workDir ?? config.defaults.workDir ?? '.')),
  );
  const [workDir] = dirs;
  if (dirs.size !== 1 || workDir === undefined) return;
  ctx.events.warn('workers_serial', {
    workers,
    workDir,
    message: `--workers ${workers}: every item waiting works in ${workDir} without git mode, so they run one at a time; git mode (--git, or "git.enabled") gives each its own worktree`,
  });
}

/**
 * The CLIs the night may fall back on, checked now rather than at 3 a.m.: one not installed
 * stops the run before it starts; one whose login is not seen is said.
 */
async function checkFallbacks(ctx: RunnerContext, items: readonly Item[]): Promise<void> {
  for (const fallback of await fallbackClisInUse(ctx.workspace, items, ctx.files)) {
    const found = fallbackProblem(ctx.workspace, fallback, ctx.parentEnv);
    if (found === undefined) continue;
    if (found.refuse) {
      ctx.events.error('fallback_unready', { cli: fallback.cli, problem: found.problem });
      throw new RalphError(found.problem, ExitCode.agentUnavailable);
    }
    ctx.events.warn('fallback_unready', { cli: fallback.cli, problem: found.problem });
  }
}

/**
 * Runs `work` as a runner that starts no night: under the workspace lock (so never beside a
 * runner), with the log written, after what a dead runner left is settled.
 */
async function asQuietRunner<T>(
  options: Omit<RunnerOptions, 'loop'>,
  work: (ctx: RunnerContext, queue: Queue) => Promise<T>,
): Promise<T> {
  const { workspace, events, clock } = options;
  await checkDirectories(workspace);
  const lock = await acquireRunnerLock(workspace.paths.runnerLock, clock.now());
  try {
    const redactor = redactorFor(workspace, options.env);
    events.redactWith(redactor);
    const unsubscribe = events.subscribe(
      logFile(workspace.paths.iterationLog, workspace.config.log.maxBytes),
    );
    const queue = await openQueue(workspace, options.env);
    const egress = new EgressProxy(() => new Date(clock.now()).toISOString());
    const notifications = notificationsOf(options, redactor);
    try {
      const ctx = contextOf(options, lock, redactor, queue, egress, notifications, true);
      return await asRunnerOf(workspace.root, () => work(ctx, queue));
    } finally {
      await notifications.stop();
      await egress.close();
      await queue.close();
      unsubscribe();
    }
  } finally {
    await lock.release();
  }
}

/**
 * Settles what a dead runner left, as the next run would, and runs nothing (`ralph recover`,
 * and `ralph cancel` or `rm` of an item such a runner left running). Returns the items it
 * requeued.
 */
export function recoverWorkspace(options: Omit<RunnerOptions, 'loop'>): Promise<string[]> {
  return asQuietRunner(options, async (ctx, queue) => {
    const before = await queue.list();
    await recoverAfterCrash(ctx, options.control);
    return before.filter((item) => holderOf(item.status) === 'worker').map((item) => item.id);
  });
}

/**
 * Runs the stages given, one after another, until none has anything left that it can move now,
 * and runs no agent: `ralph land` lands what waits to land, `ralph reject` carries out its
 * decision (a running night does it itself).
 */
export function tendWaiting(
  options: Omit<RunnerOptions, 'loop'>,
  stages: readonly StageFactory[],
): Promise<void> {
  return asQuietRunner(options, async (ctx) => {
    await recoverAfterCrash(ctx, options.control);
    const pace = { sleep: () => Promise.resolve(), untilChanged: () => Promise.resolve() };
    const host = new SessionHost(sessionHostContextOf(ctx, options.control), NO_RUN_SPEND);
    const stageCtx = stageContextOf(ctx, options.control, host);
    const moved = () => undefined;
    for (const declare of stages)
      await new StageLoop(declare(stageCtx, moved), stageCtx, moved).run(() => true, pace);
  });
}

/**
 * The one way to start a runner: takes the workspace lock, writes the log, settles what a dead
 * runner left, opens the run's budget, and runs the night loop until it ends. The lock is
 * released whatever happens.
 */
export async function startRunner(options: RunnerOptions): Promise<RunnerResult> {
  const { workspace, events, clock, loop } = options;
  const { paths } = workspace;
  await checkDirectories(workspace);
  const lock = await acquireRunnerLock(paths.runnerLock, clock.now());
  try {
    const redactor = redactorFor(workspace, options.env);
    events.redactWith(redactor);
    const unsubscribe = events.subscribe(
      logFile(paths.iterationLog, workspace.config.log.maxBytes),
    );
    // A connection for each worker's claim or settle, one for the lease renewal, one to spare.
    const queue = await openWhenReachable(options, loop.workers + 2);
    const egress = new EgressProxy(() => new Date(clock.now()).toISOString());
    const notifications = notificationsOf(options, redactor);
    const ctx = contextOf(
      options,
      lock,
      redactor,
      queue,
      egress,
      notifications,
      loop.drain || loop.once,
    );
    try {
      // A limit an earlier run was held by still holds until its reset; the rest is forgotten.
      const kept = keptHolds(await ctx.controlFiles.readHolds(), clock.now());
      await ctx.controlFiles.writeHolds(heldClis(kept)).catch(() => undefined);
      for (const [cli, hold] of kept) ctx.cliHolds.hold(cli, hold);
      if (lock.reclaimedFrom !== undefined)
        events.warn('stale_lock_reclaimed', { file: paths.runnerLock, holder: lock.reclaimedFrom });
      if (workspace.config.yolo)
        events.warn('yolo', {
          message:
            'PERMISSION CHECKS ARE OFF: every session runs with --dangerously-skip-permissions ("yolo": true)',
        });
      // A queue broken before the run is the operator's to fix now (exit 4, file untouched);
      // one broken during the run is quarantined and waited for: nothing is overwritten.
      await underWatchdog(ctx, 'reading the queue', ctx.queue.list());
      const recovered = await asRunnerOf(workspace.root, () =>
        recoverAfterCrash(ctx, options.control),
      );
      if (!loop.once && loop.workers > 1) warnIfSerial(ctx, recovered, loop.workers);
      await checkFallbacks(ctx, recovered);
      await checkLogins(ctx, recovered);
      const budget = await startRun(paths.budget, {
        now: clock.now(),
        maxIterations: loop.maxIterations,
        maxCostUsd: loop.limits.maxCostUsd,
      });
      events.info('run_started', {
        root: workspace.root,
        pid: process.pid,
        once: loop.once,
        drain: loop.drain,
        maxIterations: loop.maxIterations,
        workers: loop.once ? 1 : loop.workers,
      });
      await underWatchdog(
        ctx,
        'planning the night',
        ctx.pacing.start(ctx, {
          workers: loop.once ? 1 : loop.workers,
          deadline: loop.limits.deadline,
          maxCostUsd: loop.limits.maxCostUsd,
        }),
      );
      const stopUpkeep = await keepUp(ctx, loop.once ? 1 : loop.workers);
      const result = await asRunnerOf(workspace.root, () =>
        runLoop(ctx, loop, options.control, budget.iterations + 1),
      ).finally(stopUpkeep);
      events.info('run_finished', { ...result, stoppedBy: options.control.requested?.signal });
      // Only said when the queue can be read now: the database may be away.
      const items = loop.drain
        ? await ctx.queue.list().catch((error: unknown) => {
            if (error instanceof UnavailableError) return [];
            throw error;
          })
        : [];
      const unrunnable = unrunnableItems(items);
      if (unrunnable.length > 0) events.warn('items_cannot_run', { items: unrunnable });
      return { ...result, unrunnable };
    } finally {
      ctx.awake.close();
      const lasting = ctx.cliHolds.lasting(clock.now());
      await ctx.controlFiles.writeHolds(heldClis(lasting)).catch(() => undefined);
      await notifications.stop();
      await egress.close();
      await queue.close();
      unsubscribe();
    }
  } finally {
    await lock.release();
  }
}
