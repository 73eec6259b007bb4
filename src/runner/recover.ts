import fsp from 'node:fs/promises';
import path from 'node:path';
import { decoderOf } from '../agent/clis/index.js';
import { costOf, priceFor } from '../agent/cost.js';
import { isSameProcessAlive, signalQuietly } from '../lib/procfs.js';
import { reapMarked, reapSession } from '../agent/process.js';
import { sessionFiles } from '../archive/paths.js';
import { orphanedSession } from '../archive/session.js';
import type { SessionRecord } from '../archive/record.js';
import { RUNNER_GIT_MARKER } from '../git/git.js';
import { appendPrivate, ATOMIC_TEMP_FILE } from '../lib/fs.js';
import { readArchivedStream } from '../stream/archive-file.js';
import type { Item } from '../queue/item.js';
import type { RunnerContext } from './context.js';
import type { StopControl } from './stop-control.js';
import { archive } from '../session/archive.js';
import { sessionHostContextOf } from './stage-context.js';
import { recordSpend } from '../control/budget.js';
import { persistently } from './persist.js';
import { tidyWorktrees } from '../session/worktrees.js';
import { holderOf } from '../queue/item-status.js';

/**
 * Removes the temp files of atomic writes cut short by a kill. A temp file whose writer is
 * alive is left alone: a `ralph add` or `ralph pause` may be writing it right now.
 */
async function removeDeadWritersTempFiles(dir: string): Promise<void> {
  for (const name of await fsp.readdir(dir).catch(() => [] as string[])) {
    const writer = ATOMIC_TEMP_FILE.exec(name)?.[1];
    if (writer === undefined) continue;
    // Our own pid may be writing too (a command run in the same process): never ours either.
    if (!(await isSameProcessAlive(Number(writer), undefined)))
      await fsp.rm(path.join(dir, name), { force: true });
  }
}

/**
 * Settles a session a dead runner left running: its agent (pid and start time both matching)
 * and the session's stray processes are killed, and it is archived as `killed`.
 */
async function settleOrphanSession(
  ctx: RunnerContext,
  control: StopControl,
  record: SessionRecord,
  now: number,
): Promise<number> {
  const { paths } = ctx.workspace;
  // Never signal a pid that now belongs to another process: the start time must match.
  if (record.pid !== undefined && (await isSameProcessAlive(record.pid, record.processStartTime)))
    signalQuietly(-record.pid, 'SIGKILL');
  const killed = await reapSession(
    record.pid,
    record.sessionId,
    ctx.workspace.config.run.killGrace * 1000,
    record.processStartTime,
  );
  const files = sessionFiles(paths.sessions, record.sessionId);
  // The agent may have died mid-line: the fragment is flagged (`truncated`) and ended with a
  // newline, so the archive is whole lines again.
  const stream = await readArchivedStream(files.stdout, decoderOf(record.cli), now);
  if (!stream.endsWithNewline) await appendPrivate(files.stdout, '\n');
  const cost = costOf(
    stream.summary,
    priceFor(ctx.workspace.config.prices, record.cli, record.model ?? stream.summary.model),
  );
  const archived = orphanedSession(record, {
    summary: stream.summary,
    cost,
    stdoutBytes: stream.bytes,
    killedProcesses: killed,
    now,
  });
  await archive(sessionHostContextOf(ctx, control), files, archived);
  ctx.events.warn('orphan_session_recovered', {
    session: record.sessionId,
    item: record.itemId,
    pid: record.pid,
    killedProcesses: killed.length,
  });
  await ctx.controlFiles.clearRunningSession(record.sessionId);
  return cost?.usd ?? 0;
}

/**
 * Settles every session a dead runner left running. Returns the cost each unsettled item's
 * session reported: a session whose item was settled had its spend recorded by its runner.
 */
async function settleOrphanSessions(
  ctx: RunnerContext,
  control: StopControl,
  now: number,
): Promise<{ sessions: string[]; spent: Map<string, number> }> {
  const { records, unreadable } = await ctx.controlFiles.readRunningSessions();
  for (const name of unreadable) {
    ctx.events.warn('orphan_session_unreadable', {
      file: path.join(ctx.controlFiles.runningDir, name),
    });
    await ctx.controlFiles.removeRunningFile(name);
  }
  const items =
    records.length === 0
      ? []
      : await persistently(ctx, control, 'reading the queue', () => ctx.queue.list());
  const spent = new Map<string, number>();
  for (const record of records) {
    const costUsd = await settleOrphanSession(ctx, control, record, now);
    const item = items.find((i) => i.id === record.itemId);
    const unsettled =
      item !== undefined &&
      holderOf(item.status) === 'worker' &&
      item.sessions.at(-1) === record.sessionId;
    if (!unsettled || costUsd === 0) continue;
    spent.set(record.itemId, costUsd);
    await persistently(ctx, control, 'recording the spend', () =>
      recordSpend(ctx.workspace.paths.budget, { costUsd, outcome: 'runner_died', now }),
    );
    const { fleet } = ctx.queue;
    if (fleet !== undefined)
      await persistently(ctx, control, "recording the fleet's spend", () =>
        fleet.recordSpend(costUsd, now),
      );
  }
  return { sessions: records.map((r) => r.sessionId), spent };
}

/**
 * Ends the gits a dead runner left running: one still making a worktree or committing would
 * race everything recovery and the next checkout do in that repository.
 */
async function endLeftoverGits(ctx: RunnerContext): Promise<void> {
  const marker = { name: RUNNER_GIT_MARKER, value: ctx.workspace.root };
  const pids = await reapMarked(undefined, marker, ctx.workspace.config.run.killGrace * 1000);
  if (pids.length > 0) ctx.events.warn('leftover_git_ended', { pids });
}

/**
 * Runs once at start, with the workspace lock held: whatever a dead runner left behind is
 * settled. Its gits are ended first; then its agent (pid and start time both matching) and the
 * session's stray processes are killed, its session is archived as `killed`, and items still
 * `running` are requeued with their attempt counted (at-least-once delivery). Temp files of
 * atomic writes whose writer is gone are removed. Returns the queue as it stands after.
 */
export async function recoverAfterCrash(ctx: RunnerContext, control: StopControl): Promise<Item[]> {
  const { paths } = ctx.workspace;
  const now = ctx.clock.now();
  for (const dir of [paths.state, paths.sessions, paths.running])
    await removeDeadWritersTempFiles(dir);
  // A /proc scan, so only when there can be any: a runner that ended ended its gits.
  if (ctx.lastRunnerDied) await endLeftoverGits(ctx);

  const orphans = await settleOrphanSessions(ctx, control, now);
  const requeued = await persistently(ctx, control, 'requeuing the items of a dead runner', () =>
    ctx.queue.requeueOrphans(
      'the runner died while the item ran',
      {
        maxAttempts: ctx.workspace.config.defaults.maxAttempts,
        retryBackoffCapMs: ctx.workspace.config.run.retryBackoffCap * 1000,
        now,
      },
      orphans.spent,
    ),
  );
  if (requeued.length > 0) {
    ctx.events.warn('items_requeued_after_crash', { items: requeued, sessions: orphans.sessions });
  }
  const items = await persistently(ctx, control, 'reading the queue', () => ctx.queue.list());
  await tidyWorktrees(ctx, items);
  return items;
}
