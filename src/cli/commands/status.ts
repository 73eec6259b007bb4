import { plural } from '../../lib/text.js';
import { pullRequestName } from '../../queue/pull-request-name.js';
import { formatCost } from '../../lib/usd.js';
import { formatDuration } from '../../lib/duration.js';
import { ExitCode } from '../../lib/exit-codes.js';
import { gatherStatus, type StatusReport } from '../../workspace/status.js';
import { UnavailableError } from '../../lib/errors.js';
import { openQueueReader } from '../../queue/open.js';
import { openWorkspace } from '../open-workspace.js';
import type { Workspace } from '../../config/workspace.js';
import type { Output } from '../output.js';
import { holderOf, statusIs } from '../../queue/item-status.js';

/** Statuses said only while items have them: a night without landing never sees the word. */
const OCCASIONAL = new Set([
  'preparing',
  'reviewing',
  'judging',
  'landing',
  'awaiting_checks',
  'awaiting_merge',
  'deciding',
  'needs_input',
  'parked',
]);

/** Items a landing refused that the status names, one a line. */
const REFUSALS_SHOWN = 10;

/** The report as people read it. */
export function renderStatus(report: StatusReport, now = Date.now()): string {
  return [
    `Workspace ${report.root}`,
    ...stateLines(report),
    ...queueLines(report),
    ...fleetLines(report, now),
    ...runningLines(report),
    ...budgetLines(report),
  ].join('\n');
}

/** The runner, the server, and what holds the night: a pause, a wait, a held CLI, a broken file. */
function stateLines(report: StatusReport): string[] {
  const lines: string[] = [];
  lines.push(
    report.runner
      ? `Runner:  running (pid ${report.runner.pid}, since ${report.runner.startedAt})`
      : 'Runner:  not running',
  );
  if (report.server)
    lines.push(
      `Dashboard: ${report.server.url} (ralph serve, pid ${report.server.pid}${report.server.readOnly ? ', read-only' : ''})`,
    );
  if (report.paused)
    lines.push(
      `Paused:  ${report.paused.reason}${/ralph resume/.test(report.paused.reason) ? '' : ' (ralph resume to go on)'}`,
    );
  for (const { file, problem } of report.unreadable ?? [])
    lines.push(`Broken:  ${file}: ${problem} (left as it is)`);
  if (report.quarantined !== undefined && report.quarantined.length > 0)
    lines.push(`Set aside: ${report.quarantined.join(', ')}`);
  if (report.pauseAfterCurrent)
    lines.push(`Pausing after the current item: ${report.pauseAfterCurrent.reason}`);
  if (report.waiting)
    lines.push(
      report.waiting.event === 'queue_unreachable'
        ? `Waiting: since ${report.waiting.until}, for the queue: ${report.waiting.reason}`
        : `Waiting: ${report.waiting.reason}, until ${report.waiting.until}`,
    );
  for (const held of report.heldClis ?? [])
    lines.push(
      `Held:    ${held.cli}, no item starts on it ${held.until === undefined ? 'in this run' : `until ${held.until}`}: ${held.reason === report.waiting?.reason ? 'the wait above' : held.reason}`,
    );
  return lines;
}

/** The queue at a glance, and what waits on a person or a stage. */
function queueLines(report: StatusReport): string[] {
  const lines: string[] = [];
  const { fleet } = report;
  if (fleet?.unreachable !== undefined) lines.push(`Queue:   cannot be read: ${fleet.unreachable}`);
  else
    lines.push(
      `Queue:   ${Object.entries(report.queue)
        .filter(([status, n]) => !OCCASIONAL.has(status) || n > 0)
        .map(([status, n]) => `${n} ${status}`)
        .join(', ')}${fleet === undefined ? '' : ` (${fleet.queue})`}`,
    );
  for (const { target, landed, commit } of report.landing?.targets ?? [])
    lines.push(`Landed:  ${plural(landed, 'item')} on ${target}, newest ${commit.slice(0, 12)}`);
  const refused = report.landing?.refused ?? [];
  for (const [i, { id, status, error }] of refused.slice(0, REFUSALS_SHOWN).entries())
    lines.push(
      `${i === 0 ? 'Not landed:' : '           '} ${id} ${statusIs(status, 'failure') ? 'failed' : 'back with its agent'}: ${error}`,
    );
  if (refused.length > REFUSALS_SHOWN)
    lines.push(`            and ${refused.length - REFUSALS_SHOWN} more (ralph ls)`);
  for (const [i, { id, question }] of (report.needsInput ?? []).entries())
    lines.push(
      `${i === 0 ? 'Needs you:' : '          '} ${id} asks "${question}" (ralph say ${id} <answer>)`,
    );
  const stalled = report.stalled ?? [];
  for (const [i, { id, why }] of stalled.filter((s) => holderOf(s.status) === 'reviewer').entries())
    lines.push(`${i === 0 ? 'Unreviewed:' : '           '} ${id}: ${why}`);
  for (const { id, why } of stalled.filter((s) => holderOf(s.status) === 'decider'))
    lines.push(
      `Deciding:  ${id} ${why}${report.runner ? ' (the running night carries it out)' : ' (ralph recover finishes it)'}`,
    );
  const pulls = report.pullRequests ?? [];
  for (const [i, pr] of pulls.slice(0, REFUSALS_SHOWN).entries())
    lines.push(
      `${i === 0 ? 'Pull requests:' : '              '} ${pullRequestName(pr, 'number')} ${pr.id} ${holderOf(pr.status) === 'person' ? 'ready to merge' : (pr.checks ?? 'opening')}: ${pr.url}`,
    );
  if (pulls.length > REFUSALS_SHOWN)
    lines.push(`               and ${pulls.length - REFUSALS_SHOWN} more (ralph ls)`);
  return lines;
}

/** The fleet's pause and its runners. */
function fleetLines(report: StatusReport, now: number): string[] {
  const lines: string[] = [];
  const { fleet } = report;
  if (fleet?.paused)
    lines.push(
      `Fleet:   paused by ${fleet.paused.by} at ${fleet.paused.at}: ${fleet.paused.reason} (ralph resume --fleet to go on)`,
    );
  if (fleet !== undefined && fleet.unreachable === undefined) {
    lines.push(`Fleet:   ${fleet.runners.length} runner${fleet.runners.length === 1 ? '' : 's'}`);
    for (const r of fleet.runners)
      lines.push(
        `         ${r.host} pid ${r.pid}, ${r.workers} worker${r.workers === 1 ? '' : 's'}, ${r.workspace}: ${r.items.length === 0 ? 'idle' : `running ${r.items.join(', ')}`}, heartbeat ${formatDuration(Math.max(0, (now - Date.parse(r.heartbeatAt)) / 1000))} ago`,
      );
  }
  return lines;
}

/** The sessions running now, and what a dead runner left running. */
function runningLines(report: StatusReport): string[] {
  const lines: string[] = [];
  if (report.orphaned !== undefined) {
    const ids = report.orphaned.itemIds;
    lines.push(
      ids.length === 0
        ? 'Left running by a runner that died: the next ralph run settles what it left'
        : `Left running by a runner that died: ${ids.join(', ')}; the next ralph run settles ${ids.length === 1 ? 'it' : 'them'} (or ralph cancel ${ids.join(' ')})`,
    );
  }
  for (const r of report.running) {
    const idle =
      r.idleSeconds === undefined ? '' : `, last activity ${formatDuration(r.idleSeconds)} ago`;
    lines.push(
      `Running: ${r.itemId} "${r.itemTitle}" on ${r.cli}, session ${r.sessionId}${r.branch === undefined ? '' : `, branch ${r.branch}`}`,
      `         ${formatDuration(r.elapsedSeconds)} elapsed${r.gate === undefined ? idle : `, checking its work: gate "${r.gate}"`}, ${r.assistantMessages} assistant messages, ${r.toolCalls} tool calls${
        r.lastTool ? ` (last: ${r.lastTool})` : ''
      }${r.costUsd === undefined ? '' : `, ${formatCost(r.costUsd, r.costEstimated)}`}`,
    );
  }
  return lines;
}

/** What this run and all runs spent. */
function budgetLines(report: StatusReport): string[] {
  const lines: string[] = [];
  const run = report.budget.run;
  if (run) {
    const limit =
      run.maxCostUsd === undefined
        ? ''
        : ` of $${run.maxCostUsd.toFixed(2)} (left $${Math.max(0, run.maxCostUsd - run.costUsd).toFixed(2)})`;
    lines.push(
      `Budget:  this run $${run.costUsd.toFixed(4)}${limit}, ${plural(run.iterations, 'session')} since ${run.startedAt}`,
    );
  }
  lines.push(
    `         all time $${report.budget.totalCostUsd.toFixed(4)}, ${plural(report.budget.iterations, 'session')}`,
  );
  return lines;
}

/** `ralph status [--json] [--watch]`. */
export async function statusCommand(
  root: string,
  options: { json?: boolean; watch?: boolean },
  output: Output,
  env: Readonly<Record<string, string | undefined>>,
): Promise<number> {
  const workspace = await openWorkspace(root);
  if (options.watch) return watchStatus(workspace, output, env, { json: options.json === true });
  const queue = await openQueueReader(workspace, env).catch((error: unknown) => {
    if (error instanceof UnavailableError) return error;
    throw error;
  });
  const report = await gatherStatus(workspace, queue, Date.now()).finally(() =>
    queue instanceof UnavailableError ? undefined : queue.close(),
  );
  output.out(options.json ? JSON.stringify(report, null, 2) : renderStatus(report));
  // Everything else was shown; the exit says a state file is broken, for scripts.
  return report.unreadable === undefined ? ExitCode.ok : ExitCode.corruptState;
}

/**
 * The status, redrawn every `everyMs` until the process is interrupted (Ctrl-C ends it, which is
 * all a watch needs); `beforeEach` runs before each redraw (`ralph watch` syncs its windows).
 */
export async function watchStatus(
  workspace: Workspace,
  output: Output,
  env: Readonly<Record<string, string | undefined>>,
  options: { json?: boolean; everyMs?: number; beforeEach?: () => Promise<void> },
): Promise<never> {
  // Open until the watch is interrupted: the process's end closes it.
  const queue = await openQueueReader(workspace, env).catch((error: unknown) => {
    if (error instanceof UnavailableError) return error;
    throw error;
  });
  for (;;) {
    await options.beforeEach?.();
    const report = await gatherStatus(workspace, queue, Date.now());
    if (options.json === true) output.out(JSON.stringify(report, null, 2));
    else output.out(`${output.isTTY ? '\x1b[H\x1b[2J' : ''}${renderStatus(report)}`);
    await new Promise((resolve) => setTimeout(resolve, options.everyMs ?? 2000));
  }
}
