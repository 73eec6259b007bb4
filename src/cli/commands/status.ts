import type { Workspace } from '../../config/workspace.js';
import { formatDuration } from '../../lib/duration.js';
import { ExitCode } from '../../lib/exit-codes.js';
import { ControlFiles } from '../../control/files.js';
import { ITEM_STATUSES } from '../../queue/status.js';
import { QueueStore } from '../../queue/store.js';
import { liveRunner, readBudget } from '../../runner/state.js';
import { openWorkspace } from '../open-workspace.js';
import type { Output } from '../output.js';

/** Everything `ralph status` reports, as `--json` prints it. */
export interface StatusReport {
  root: string;
  runner?: { pid: number; startedAt: string };
  paused?: { reason: string };
  pauseAfterCurrent?: { reason: string };
  waiting?: { until: string; reason: string; event: string };
  queue: Record<string, number>;
  running?: {
    itemId: string;
    itemTitle: string;
    sessionId: string;
    status: string;
    startedAt: string;
    elapsedSeconds: number;
    lastActivityAt?: string;
    idleSeconds?: number;
    assistantMessages: number;
    toolCalls: number;
    lastTool?: string;
    costUsd?: number;
  };
  budget: {
    run?: {
      startedAt: string;
      costUsd: number;
      iterations: number;
      maxCostUsd?: number;
      maxIterations?: number;
    };
    totalCostUsd: number;
    iterations: number;
  };
}

/** Gathers the state of a workspace without changing anything. */
export async function gatherStatus(workspace: Workspace, now: number): Promise<StatusReport> {
  const { paths } = workspace;
  const control = new ControlFiles(paths);
  const [{ items }, budget, runner, paused, afterCurrent, waiting] = await Promise.all([
    new QueueStore(paths.queue).read(),
    readBudget(paths.budget),
    liveRunner(paths.runnerLock),
    control.pauseReason(),
    control.pendingPauseReason(),
    control.readWaiting(),
  ]);
  const queue = Object.fromEntries(ITEM_STATUSES.map((s) => [s, 0])) as Record<string, number>;
  for (const item of items) queue[item.status] = (queue[item.status] ?? 0) + 1;
  const report: StatusReport = {
    root: workspace.root,
    queue,
    budget: { run: budget.run, totalCostUsd: budget.totalCostUsd, iterations: budget.iterations },
  };
  if (runner) report.runner = { pid: runner.pid, startedAt: runner.startedAt };
  if (paused !== undefined) report.paused = { reason: paused };
  if (afterCurrent !== undefined) report.pauseAfterCurrent = { reason: afterCurrent };
  if (runner === undefined) return report;
  if (waiting !== undefined) report.waiting = waiting;
  const current = await control.readCurrentSession();
  if (current.kind === 'session') {
    const s = current.record;
    const lastActivity = s.heartbeat.lastActivityAt;
    report.running = {
      itemId: s.itemId,
      itemTitle: s.itemTitle,
      sessionId: s.sessionId,
      status: s.status,
      startedAt: s.startedAt,
      elapsedSeconds: (now - Date.parse(s.startedAt)) / 1000,
      lastActivityAt: lastActivity,
      idleSeconds: lastActivity === undefined ? undefined : (now - Date.parse(lastActivity)) / 1000,
      assistantMessages: s.heartbeat.assistantMessages,
      toolCalls: s.heartbeat.toolCalls,
      lastTool: s.heartbeat.lastTool,
      costUsd: s.heartbeat.costUsd,
    };
  }
  return report;
}

/** The report as people read it. */
export function renderStatus(report: StatusReport): string {
  const lines = [`Workspace ${report.root}`];
  lines.push(
    report.runner
      ? `Runner:  running (pid ${report.runner.pid}, since ${report.runner.startedAt})`
      : 'Runner:  not running',
  );
  if (report.paused) lines.push(`Paused:  ${report.paused.reason} (ralph resume to go on)`);
  if (report.pauseAfterCurrent)
    lines.push(`Pausing after the current item: ${report.pauseAfterCurrent.reason}`);
  if (report.waiting)
    lines.push(`Waiting: ${report.waiting.reason}, until ${report.waiting.until}`);
  lines.push(
    `Queue:   ${Object.entries(report.queue)
      .map(([status, n]) => `${n} ${status}`)
      .join(', ')}`,
  );
  const r = report.running;
  if (r) {
    const idle =
      r.idleSeconds === undefined ? '' : `, last activity ${formatDuration(r.idleSeconds)} ago`;
    lines.push(
      `Running: ${r.itemId} "${r.itemTitle}", session ${r.sessionId}`,
      `         ${formatDuration(r.elapsedSeconds)} elapsed${idle}, ${r.assistantMessages} assistant messages, ${r.toolCalls} tool calls${
        r.lastTool ? ` (last: ${r.lastTool})` : ''
      }${r.costUsd === undefined ? '' : `, $${r.costUsd.toFixed(4)}`}`,
    );
  }
  const run = report.budget.run;
  if (run) {
    const limit =
      run.maxCostUsd === undefined
        ? ''
        : ` of $${run.maxCostUsd.toFixed(2)} (left $${Math.max(0, run.maxCostUsd - run.costUsd).toFixed(2)})`;
    lines.push(
      `Budget:  this run $${run.costUsd.toFixed(4)}${limit}, ${run.iterations} sessions since ${run.startedAt}`,
    );
  }
  lines.push(
    `         all time $${report.budget.totalCostUsd.toFixed(4)}, ${report.budget.iterations} sessions`,
  );
  return lines.join('\n');
}

/** `ralph status [--json] [--watch]`. */
export async function statusCommand(
  root: string,
  options: { json?: boolean; watch?: boolean },
  output: Output,
): Promise<number> {
  const workspace = await openWorkspace(root);
  const show = async () => {
    const report = await gatherStatus(workspace, Date.now());
    if (options.json) output.out(JSON.stringify(report, null, 2));
    else
      output.out(`${options.watch && output.isTTY ? '\x1b[H\x1b[2J' : ''}${renderStatus(report)}`);
  };
  await show();
  if (!options.watch) return ExitCode.ok;
  // Until interrupted: Ctrl-C ends the process, which is all a watch needs.
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, 2000));
    await show();
  }
}
