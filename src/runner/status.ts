import type { Workspace } from '../config/workspace.js';
import { isSameProcessAlive } from '../agent/procfs.js';
import { ControlFiles } from '../control/files.js';
import { readServerInfo, type ServerInfo } from '../control/server-file.js';
import { ITEM_STATUSES } from '../queue/status.js';
import { UnavailableError } from '../lib/errors.js';
import type { Queue, QueueTally } from '../queue/queue.js';
import { readBudget } from './budget.js';
import { liveRunner } from './lock.js';
import type { StatusReport } from './status-report.js';

export type { RunningSession, StatusReport } from './status-report.js';

/** The server `state/serve.json` names, if its process still lives. */
export async function liveServer(stateDir: string): Promise<ServerInfo | undefined> {
  const info = await readServerInfo(stateDir);
  return info !== undefined && (await isSameProcessAlive(info.pid, info.startTime))
    ? info
    : undefined;
}

/** The queue's items and, for a shared queue, its fleet; what cannot be read is said. */
async function readQueue(
  queue: Queue | UnavailableError,
): Promise<QueueTally & { fleet?: StatusReport['fleet'] }> {
  const none = { counts: {}, version: 0, branches: {} };
  if (queue instanceof UnavailableError)
    return { ...none, fleet: { queue: '', unreachable: queue.message, runners: [] } };
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
  queue: Queue | UnavailableError,
  now: number,
): Promise<StatusReport> {
  const { paths } = workspace;
  const control = new ControlFiles(paths);
  const [
    { counts: tallied, version, branches, fleet },
    budget,
    runner,
    paused,
    afterCurrent,
    waiting,
    server,
  ] = await Promise.all([
    readQueue(queue),
    readBudget(paths.budget),
    liveRunner(paths.runnerLock),
    control.pauseReason(),
    control.pendingPauseReason(),
    control.readWaiting(),
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
  if (runner) report.runner = { pid: runner.pid, startedAt: runner.startedAt };
  if (paused !== undefined) report.paused = { reason: paused };
  if (afterCurrent !== undefined) report.pauseAfterCurrent = { reason: afterCurrent };
  if (server !== undefined)
    report.server = { pid: server.pid, url: server.url, readOnly: server.readOnly };
  if (runner === undefined) return report;
  if (waiting !== undefined) report.waiting = waiting;
  const { records } = await control.readRunningSessions();
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
