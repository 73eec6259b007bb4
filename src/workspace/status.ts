import fsp from 'node:fs/promises';
import path from 'node:path';
import type { Workspace } from '../config/workspace.js';
import { isSameProcessAlive } from '../lib/procfs.js';
import { ControlFiles } from '../control/files.js';
import { readServerInfo, type ServerInfo } from '../control/server-file.js';
import { ITEM_STATUSES } from '../queue/item-status.js';
import { CorruptStateError, UnavailableError } from '../lib/errors.js';
import type { QueueReader, QueueTally } from '../queue/queue.js';
import { NOTHING_SPENT, readBudget } from '../control/budget.js';
import { heldClis as heldClisOf, keptHolds } from '../agent/cli-holds.js';
import { liveRunner } from '../control/runner-lock.js';
import type { StatusReport } from './status-report.js';

export type { RunningSession, StatusReport } from './status-report.js';

/** The server `state/serve.json` names, if its process still lives. */
export async function liveServer(stateDir: string): Promise<ServerInfo | undefined> {
  const info = await readServerInfo(stateDir);
  return info !== undefined && (await isSameProcessAlive(info.pid, info.startTime))
    ? info
    : undefined;
}

type Unreadable = NonNullable<StatusReport['unreadable']>;

/** A state file's reader that says why it cannot read it instead of failing the status. */
async function orUnreadable<T>(
  read: Promise<T>,
  instead: T,
  file: string,
  unreadable: Unreadable,
): Promise<T> {
  try {
    return await read;
  } catch (error) {
    if (!(error instanceof CorruptStateError)) throw error;
    const where = error.file ?? file;
    // One line, and the path once: the status line names the file itself.
    const problem = error.message.replaceAll(`${where}: `, '').replace(/\s+/g, ' ').trim();
    unreadable.push({ file: where, problem });
    return instead;
  }
}

/** The queue's items and, for a shared queue, its fleet; what cannot be read is said. */
async function readQueue(
  queue: QueueReader | UnavailableError,
  unreadable: Unreadable,
): Promise<QueueTally & { fleet?: StatusReport['fleet'] }> {
  const none = {
    counts: {},
    version: 0,
    branches: {},
    landings: { targets: [], refused: [] },
    pullRequests: [],
    questions: [],
    stalled: [],
  };
  if (queue instanceof UnavailableError)
    return { ...none, fleet: { queue: '', unreachable: queue.message, runners: [] } };
  if (queue.fleet === undefined) return orUnreadable(queue.tally(), none, queue.where, unreadable);
  try {
    const tally = await queue.tally();
    if (queue.fleet === undefined) return tally;
    const [paused, runners] = await Promise.all([queue.fleet.pauseState(), queue.fleet.runners()]);
    return { ...tally, fleet: { queue: queue.where, paused, runners } };
  } catch (error) {
    if (!(error instanceof UnavailableError)) throw error;
    return {
      ...none,
      fleet: { queue: queue.where, unreachable: error.message, runners: [] },
    };
  }
}

/**
 * Gathers the state of a workspace without changing anything; `queue` is the error that kept
 * it from being opened when its database cannot be reached.
 */
export async function gatherStatus(
  workspace: Workspace,
  queue: QueueReader | UnavailableError,
  now: number,
): Promise<StatusReport> {
  const { paths } = workspace;
  const control = new ControlFiles(paths);
  const unreadable: Unreadable = [];
  const [
    { counts: tallied, version, branches, landings, pullRequests, questions, stalled, fleet },
    budget,
    runner,
    paused,
    afterCurrent,
    waiting,
    heldClis,
    server,
  ] = await Promise.all([
    readQueue(queue, unreadable),
    orUnreadable(readBudget(paths.budget), NOTHING_SPENT, paths.budget, unreadable),
    liveRunner(paths.runnerLock),
    control.pauseReason(),
    control.pendingPauseReason(),
    control.readWaiting(),
    control.readHolds(),
    liveServer(paths.state),
  ]);
  const counts = Object.fromEntries(ITEM_STATUSES.map((s) => [s, tallied[s] ?? 0]));
  const report: StatusReport = {
    root: workspace.root,
    queue: counts,
    queueVersion: version,
    fleet,
    running: [],
    budget: { run: budget.run, totalCostUsd: budget.totalCostUsd, iterations: budget.iterations },
  };
  if (landings.targets.length > 0 || landings.refused.length > 0) report.landing = landings;
  if (pullRequests.length > 0) report.pullRequests = pullRequests;
  if (questions.length > 0) report.needsInput = questions;
  if (stalled.length > 0) report.stalled = stalled;
  if (runner) report.runner = { pid: runner.pid, startedAt: runner.startedAt };
  if (paused !== undefined) report.paused = { reason: paused };
  if (afterCurrent !== undefined) report.pauseAfterCurrent = { reason: afterCurrent };
  if (server !== undefined)
    report.server = { pid: server.pid, url: server.url, readOnly: server.readOnly };
  if (unreadable.length > 0) {
    report.unreadable = unreadable;
    const copies = await fsp.readdir(paths.quarantine).catch(() => [] as string[]);
    report.quarantined = copies.sort().map((name) => path.join(paths.quarantine, name));
  }
  const { records } = await control.readRunningSessions();
  // With no runner, what holds is what the next run keeps: a limit whose reset is still to come.
  const held = runner === undefined ? heldClisOf(keptHolds(heldClis, Date.now())) : heldClis;
  if (held.length > 0) report.heldClis = held;
  if (runner === undefined) {
    // What a runner killed mid-session left: said so, never shown as running.
    const itemIds = [...new Set(records.map((r) => r.itemId))];
    if (itemIds.length > 0 || (counts.running ?? 0) > 0)
      report.orphaned = { itemIds, sessions: records.map((r) => r.sessionId) };
    return report;
  }
  if (waiting !== undefined) report.waiting = waiting;
  report.running = records.map((s) => {
    const lastActivity = s.heartbeat.lastActivityAt;
    return {
      cli: s.cli,
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
      costEstimated: s.heartbeat.costEstimated,
      limits: s.limits,
      branch: branches[s.itemId],
      gate: s.gate,
    };
  });
  return report;
}
