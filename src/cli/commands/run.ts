import { STAGES } from '../stages.js';
import { shellQuote } from '../../agent/argv.js';
import { redactorFor } from '../../agent/redaction.js';
import { CronSchema } from '../../config/values.js';
import type { Workspace } from '../../config/workspace.js';
import { ControlFiles } from '../../control/files.js';
import { systemClock, type Clock } from '../../lib/clock.js';
import { InputError } from '../../lib/errors.js';
import { ExitCode } from '../../lib/exit-codes.js';
import { displayPath } from '../../lib/fs.js';
import {
  DEFAULT_TIMINGS,
  RunEvents,
  StopControl,
  parseDeadline,
  planRun,
  startRunner,
  waitForChange,
  type RunLimits,
  type RunnerEvent,
  type RunnerResult,
  type SessionTimings,
  type Wait,
} from '../../runner/index.js';
import { liveServer } from '../../workspace/status.js';
import { positiveAmount, positiveInt } from '../flags.js';
import { openWorkspace } from '../open-workspace.js';
import type { Output } from '../output.js';
import { runConsole } from '../run-output.js';
import { handleStopSignals, signalExitCode } from '../signals.js';

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
  const flagWindows = (options.window as string[] | undefined) ?? [];
  for (const window of flagWindows) {
    const parsed = CronSchema.safeParse(window);
    if (!parsed.success)
      throw new InputError(`--window: ${parsed.error.issues[0]?.message ?? 'invalid'}`);
  }
  return {
    deadline,
    maxCostUsd: positiveAmount('--max-cost', options.maxCost) ?? workspace.config.run.maxCostUsd,
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
  const redactor = redactorFor(workspace, env);
  const plan = await planRun(workspace, env, Date.now());
  for (const { id, title, session, through, after } of plan.items) {
    if (after.length > 0)
      output.out(
        `# ${id} starts once ${after.join(', ')} ${after.length === 1 ? 'rests' : 'rest'} where dependents may run`,
      );
    if ('reason' in session)
      output.out(
        `# ${id}: ${session.scope === 'workspace' ? 'would pause the night' : 'would be rejected'}: ${redactor.redact(session.reason)}`,
      );
    else {
      const where =
        session.checkout === undefined
          ? session.settings.workDir
          : `${session.checkout.worktree} on branch ${session.checkout.branch} (from ${session.checkout.baseCommit.slice(0, 12)})`;
      output.out(`# ${id} (${title}) on ${session.settings.cli} in ${where}`);
      if (session.work.gates.length > 0)
        output.out(`# gates: ${session.work.gates.map((g) => g.name).join(', ')}`);
      const { sandbox } = session.work;
      if (sandbox.kind !== 'none') {
        const hosts = [
          ...session.cli.sandbox.apiHosts(session.env),
          ...(sandbox.network === 'allow' ? sandbox.allowHosts : []),
        ];
        output.out(
          `# sandbox: ${sandbox.kind}, network ${sandbox.network}${sandbox.network === 'open' ? '' : `: ${hosts.join(', ')}`}`,
        );
      }
      if (through.join() !== 'done') output.out(`# after its session: ${through.join(' → ')}`);
      const { file, args, stdinFile } = session.argv;
      const command = shellQuote([file, ...args]);
      // The prompt file is written when the session starts: its path says where it will be.
      output.out(
        redactor.redact(
          stdinFile === undefined ? command : `${command} < ${shellQuote([stdinFile])}`,
        ),
      );
    }
  }
  if (plan.items.length === 0) output.out('# nothing is runnable now');
  for (const found of plan.fallbackProblems)
    output.out(`# ${found.refuse ? 'the run would not start' : 'warning'}: ${found.problem}`);
  for (const { id, reason } of plan.unrunnable)
    output.out(`# ${id}: can never run as the queue stands: ${reason}`);
  return ExitCode.ok;
}

/** The closing words of a run and its exit code. */
function conclude(
  workspace: Workspace,
  result: RunnerResult,
  stopSignal: NodeJS.Signals | undefined,
  output: Output,
  env: Readonly<Record<string, string | undefined>>,
): number {
  const redact = redactorFor(workspace, env);
  if (result.unrunnable.length > 0) {
    const n = result.unrunnable.length;
    output.err(
      [
        `ralph: ${n} item${n === 1 ? '' : 's'} can never run as the queue stands:`,
        ...result.unrunnable.map(({ id, reason }) => `  ${id}: ${reason}`),
        'Retry what they depend on (ralph retry <id>) or change their dependencies (ralph edit <id> --depends-on …).',
      ].join('\n'),
    );
  }
  if (stopSignal !== undefined) return signalExitCode(stopSignal);
  if (result.agentUnavailable !== undefined) {
    output.err(`ralph: the agent cannot be started: ${result.agentUnavailable}`);
    return ExitCode.agentUnavailable;
  }
  if (result.paused !== undefined) {
    const file = new ControlFiles(workspace.paths).interruptFile;
    output.err(
      `ralph: the night is paused${result.paused === '' ? '' : `: ${redact.redact(result.paused)}`}\n` +
        `Nothing runs until the pause is lifted: fix the cause, then "ralph resume" (it removes ${displayPath(file, process.cwd())}) and run again.`,
    );
    return ExitCode.paused;
  }
  if (result.limited !== undefined) {
    output.err(
      `ralph: ${redact.redact(result.limited.message)}${/resets at/.test(result.limited.message) ? '' : `; it resets at ${new Date(result.limited.until).toISOString()}`}, and this run does not wait that long (--once never waits, --drain up to run.maxLimitWait). Run again after the reset.`,
    );
    return ExitCode.limited;
  }
  // An item whose last session failed and waits for a retry did not succeed either (--once).
  return result.failed > 0 || result.rejected > 0 || result.awaitingRetry > 0
    ? ExitCode.itemsFailed
    : ExitCode.ok;
}

/** `--serve`: the server inside the runner, loaded only when asked for (a run starts faster). */
async function serveToo(
  workspace: Workspace,
  address: string,
  output: Output,
  env: Readonly<Record<string, string | undefined>>,
) {
  const { openServer, parseServeAddress } = await import('./serve.js');
  return openServer(workspace, parseServeAddress(address), output, env);
}

/** What `ralph run` takes from its surroundings; tests pass a fake clock and wait. */
export interface RunDependencies {
  clock: Clock;
  wait: Wait;
  timings: SessionTimings;
  /** Sees every event of the run, as the terminal and the log file do. */
  listen?: (event: RunnerEvent) => void;
}

/** As many agents as one machine runs well (`run.workers` has the same cap). */
const MAX_WORKERS = 16;

const REAL: RunDependencies = { clock: systemClock, wait: waitForChange, timings: DEFAULT_TIMINGS };

/** `ralph run`: the night loop, started through the runner's one entry. */
export async function runCommand(
  root: string,
  options: Record<string, unknown>,
  output: Output,
  env: Readonly<Record<string, string | undefined>>,
  dependencies: Partial<RunDependencies> = {},
): Promise<number> {
  const { clock, wait, timings, listen } = { ...REAL, ...dependencies };
  const workspace = await openWorkspace(root);
  const maxIterations = positiveInt('--max-iterations', options.maxIterations);
  const workers = positiveInt('--workers', options.workers) ?? workspace.config.run.workers;
  if (workers > MAX_WORKERS) throw new InputError(`--workers: at most ${MAX_WORKERS}`, '--workers');
  const limits = runLimits(workspace, options, clock.now());
  if (options.dryRun === true) return dryRun(workspace, env, output);

  const server =
    typeof options.serve === 'string'
      ? await serveToo(workspace, options.serve, output, env)
      : undefined;
  const control = new StopControl();
  const events = new RunEvents(() => clock.now());
  // Where the dashboard is: this runner's server, or a `ralph serve` found at each session.
  let dashboard = server?.url;
  const findServer = () =>
    void liveServer(workspace.paths.state).then((found) => (dashboard = found?.url ?? server?.url));
  const display = runConsole(output, undefined, () => dashboard);
  const unsubscribe = events.subscribe((event) => {
    if (event.event === 'session_started' && server === undefined) findServer();
    display.show(event);
  });
  if (listen !== undefined) events.subscribe(listen);
  const removeHandlers = handleStopSignals(control, (signal) =>
    events.warn(control.requested === undefined ? 'stopping' : 'forcing_stop', { signal }),
  );
  try {
    const result = await startRunner({
      workspace,
      env,
      loop: {
        once: options.once === true,
        drain: options.drain === true,
        maxIterations,
        limits,
        workers,
        stages: STAGES,
      },
      events,
      control,
      clock,
      wait,
      timings,
      onWedged: (message) => {
        display.close();
        output.err(`ralph: ${message}`);
        // A hung file system call cannot be cancelled, and a normal exit waits for it: SIGKILL
        // is the one way out. The next start recovers as after any crash.
        process.kill(process.pid, 'SIGKILL');
      },
    });
    return conclude(workspace, result, control.requested?.signal, output, env);
  } finally {
    display.close();
    unsubscribe();
    removeHandlers();
    await server?.close();
  }
}
