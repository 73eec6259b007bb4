import { randomUUID } from 'node:crypto';
import fsp from 'node:fs/promises';
import { classify, diskFull, type Outcome } from '../agent/outcome.js';
import { spawnAgent } from '../agent/process.js';
import { supervise, type Heartbeat, type Supervision } from '../agent/supervise.js';
import { archiveSession } from '../archive/finish.js';
import { sessionFiles } from '../archive/paths.js';
import { canTransition, type SessionRecord, type SessionStatus } from '../archive/record.js';
import { readIfExists, readTail, writeJsonAtomically, writeNewFile } from '../lib/fs.js';
import type { Item } from '../queue/item.js';
import type { ItemStatus } from '../queue/status.js';
import { selectNext, nextWakeTime } from '../queue/select.js';
import { claim, settle, type Settlement } from '../queue/transitions.js';
import { recordSpend } from './budget.js';
import { workspaceLowOnSpace } from '../config/workspace.js';
import type { RunnerContext } from './context.js';
import type { StopControl } from './control.js';
import { pauseNight, persistently } from './persist.js';
import { prepareSession } from './prepare.js';

/** What one turn of the loop did. */
export type IterationResult =
  /** Nothing runnable now; `wakeAt` is when a waiting item becomes runnable, `retryAt` a retry. */
  | { kind: 'idle'; wakeAt?: number; retryAt?: number }
  | {
      kind: 'ran';
      itemId: string;
      sessionId: string;
      outcome: Outcome;
      itemStatus: ItemStatus;
      costUsd: number;
    }
  /** Refused before spawning (the item is at fault); no attempt spent. */
  | { kind: 'rejected'; itemId: string; reason: string }
  /** The workspace is at fault (every item would fail alike): the item is given back, the night paused. */
  | { kind: 'workspace_fault'; itemId: string; reason: string }
  /** The agent could not be started at all: no item can run. */
  | { kind: 'agent_unavailable'; itemId: string; reason: string };

const SPAWN_UNAVAILABLE = new Set(['ENOENT', 'EACCES', 'ENOEXEC', 'ENOTDIR']);

/** Moves a session record along its lifecycle; any other move is a bug in ralph. */
function moveTo(record: SessionRecord, status: SessionStatus): void {
  if (!canTransition(record.status, status)) {
    throw new Error(
      `session ${record.sessionId}: no transition from ${record.status} to ${status}`,
    );
  }
  record.status = status;
}

/** Claims the next runnable item, if any, under the queue lock. */
async function claimNext(
  ctx: RunnerContext,
  control: StopControl,
  sessionId: string,
): Promise<{ item?: Item; wakeAt?: number; retryAt?: number; queued?: number }> {
  const now = ctx.clock.now();
  return persistently(ctx, control, 'claiming the next item', () =>
    ctx.queue.update<{ item?: Item; wakeAt?: number; retryAt?: number; queued?: number }>(
      (items) => {
        const next = selectNext(items, now);
        if (next === undefined) {
          const wakeAt = nextWakeTime(items, now);
          const retryAt = nextWakeTime(items, now, { retriesOnly: true });
          return { value: { wakeAt, retryAt } };
        }
        const claimed = claim(next, sessionId, now);
        const queued =
          items.filter((i) => i.status === 'pending' || i.status === 'interrupted').length - 1;
        return {
          items: items.map((i) => (i.id === next.id ? claimed : i)),
          value: { item: claimed, queued },
        };
      },
    ),
  );
}

/** Applies a settlement to the item (re-read under the lock: never a stale copy). */
async function settleItem(
  ctx: RunnerContext,
  control: StopControl,
  itemId: string,
  settlement: Settlement,
): Promise<Item | undefined> {
  const now = ctx.clock.now();
  const maxAttemptsDefault = ctx.workspace.config.defaults.maxAttempts;
  return persistently(ctx, control, `settling item ${itemId}`, () =>
    ctx.queue.update((items) => {
      const index = items.findIndex((i) => i.id === itemId);
      const current = items[index];
      // Removed or cancelled by hand while it ran: leave the person's decision alone.
      if (current === undefined || current.status !== 'running') return { value: current };
      const next = settle(current, settlement, current.maxAttempts ?? maxAttemptsDefault, now);
      const copy = items.slice();
      copy[index] = next;
      return { items: copy, value: next };
    }),
  );
}

function settlementFor(
  outcome: Outcome,
  costUsd: number,
  claudeSessionId: string | undefined,
): Settlement {
  switch (outcome.kind) {
    case 'success':
      return { kind: 'succeeded', costUsd, claudeSessionId };
    case 'interrupted':
    case 'disk_full':
      return { kind: 'interrupted', reason: outcome.message, costUsd, claudeSessionId };
    case 'stopped':
    case 'resume_failed':
    case 'rate_limited':
    case 'auth_error':
    case 'credit_exhausted':
      return { kind: 'released', reason: outcome.message, costUsd, retryAfter: outcome.waitUntil };
    default:
      return {
        kind: 'failed',
        error: outcome.message,
        outcome: outcome.kind,
        costUsd,
        retryable: outcome.retryable,
      };
  }
}

/**
 * One iteration (SPEC section 3): claim, prepare, spawn, supervise, classify, archive, settle.
 * Crash ordering: the claim is written before anything spawns, the item is settled after the
 * agent exits, and the archive's final record is written last.
 */
export async function runIteration(
  ctx: RunnerContext,
  iteration: number,
  control: StopControl,
  budgetLeftUsd?: number,
): Promise<IterationResult> {
  const { workspace, log, clock, redactor } = ctx;
  const { paths, config } = workspace;
  const sessionId = randomUUID();
  const { item, wakeAt, retryAt, queued } = await claimNext(ctx, control, sessionId);
  if (item === undefined) return { kind: 'idle', wakeAt, retryAt };

  const files = sessionFiles(paths.sessions, sessionId);
  const prepared = await prepareSession(
    workspace,
    item,
    { sessionId, iteration, promptFile: files.prompt },
    ctx.parentEnv,
    ctx.files,
    budgetLeftUsd,
  );
  if ('reason' in prepared) {
    const reason = redactor.redact(prepared.reason);
    if (prepared.scope === 'workspace') {
      await settleItem(ctx, control, item.id, { kind: 'released', reason, costUsd: 0 });
      log.error('workspace_fault', { item: item.id, reason });
      await pauseNight(ctx, control, `ralph: ${reason}; fix it, then run "ralph resume"`);
      return { kind: 'workspace_fault', itemId: item.id, reason };
    }
    await settleItem(ctx, control, item.id, {
      kind: 'rejected',
      error: reason,
      outcome: 'rejected',
    });
    log.error('item_rejected', { item: item.id, reason });
    return { kind: 'rejected', itemId: item.id, reason };
  }

  await persistently(ctx, control, 'writing the prompt file', () =>
    writeNewFile(files.prompt, prepared.prompt.text),
  );

  for (const cut of prepared.prompt.cuts) {
    log.warn('prompt_cut', {
      item: item.id,
      session: sessionId,
      ...cut,
      sizes: prepared.prompt.sizes,
    });
  }

  const startedAt = clock.now();
  const record: SessionRecord = {
    sessionId,
    itemId: item.id,
    itemTitle: item.title,
    iteration,
    attempt: item.attempts,
    status: 'spawning',
    startedAt: new Date(startedAt).toISOString(),
    runner: { pid: ctx.runner.pid, startTime: ctx.runner.startTime },
    workDir: prepared.settings.workDir,
    command: redactor.redactValue([prepared.argv.file, ...prepared.argv.args]),
    resumedFrom: prepared.resume,
    persona: prepared.persona,
    yolo: config.yolo,
    heartbeat: { events: 0, assistantMessages: 0, toolCalls: 0, stdoutBytes: 0, stderrBytes: 0 },
    files: {
      stdout: files.stdout,
      stderr: files.stderr,
      prompt: files.prompt,
      summary: files.summary,
      record: files.record,
    },
  };
  // Heartbeats and the final write go through one chain so they land in order.
  let writes = Promise.resolve();
  const writeCurrent = () => {
    const snapshot = redactor.redactValue(record);
    writes = writes
      .then(() => writeJsonAtomically(paths.currentSession, snapshot))
      .catch((error: unknown) => log.warn('session_record_write_failed', { error: String(error) }));
    return writes;
  };
  await writeCurrent();

  const spawned = await spawnAgent({
    argv: prepared.argv,
    cwd: prepared.settings.workDir,
    env: prepared.env,
    stdoutFile: files.stdout,
    stderrFile: files.stderr,
  });
  if (!spawned.ok) {
    const unavailable = spawned.code !== undefined && SPAWN_UNAVAILABLE.has(spawned.code);
    const reason = redactor.redact(spawned.message);
    moveTo(record, 'failed');
    record.statusReason = reason;
    record.endedAt = new Date(clock.now()).toISOString();
    record.outcome = { kind: 'spawn_failed', message: reason, retryable: !unavailable };
    await writes;
    await persistently(ctx, control, `archiving session ${sessionId}`, () =>
      archiveSession(files, paths.sessions, record, redactor),
    );
    await settleItem(
      ctx,
      control,
      item.id,
      unavailable
        ? { kind: 'released', reason, costUsd: 0 }
        : { kind: 'failed', error: reason, outcome: 'spawn_failed', costUsd: 0, retryable: true },
    );
    await fsp.rm(paths.currentSession, { force: true });
    log.error('spawn_failed', { item: item.id, session: sessionId, reason });
    if (unavailable) return { kind: 'agent_unavailable', itemId: item.id, reason };
    const outcome: Outcome = {
      kind: 'spawn_failed',
      status: 'failed',
      message: reason,
      retryable: true,
      countsAsFailure: true,
    };
    return { kind: 'ran', itemId: item.id, sessionId, outcome, itemStatus: 'pending', costUsd: 0 };
  }

  const { child } = spawned;
  moveTo(record, 'running');
  record.pid = child.pid;
  record.processStartTime = child.startTime;
  await writeCurrent();
  log.info('session_started', {
    item: item.id,
    session: sessionId,
    attempt: item.attempts,
    pid: child.pid,
    command: record.command,
    resume: prepared.resume,
  });

  ctx.progress?.({
    kind: 'started',
    itemId: item.id,
    itemTitle: item.title,
    sessionId,
    startedAt,
    queued: queued ?? 0,
  });
  const applyHeartbeat = (beat: Heartbeat) => {
    const s = beat.summary;
    record.claudeSessionId = s.claudeSessionId ?? record.claudeSessionId;
    record.model = s.model ?? record.model;
    record.cliVersion = s.cliVersion ?? record.cliVersion;
    record.heartbeat = {
      lastEventAt:
        s.lastEventAtMs === undefined ? undefined : new Date(s.lastEventAtMs).toISOString(),
      lastActivityAt: new Date(beat.lastActivityAt).toISOString(),
      events: s.events,
      assistantMessages: s.assistantMessages,
      toolCalls: s.toolCalls,
      lastTool: s.lastTool,
      costUsd: s.result?.totalCostUsd,
      stdoutBytes: beat.stdoutBytes,
      stderrBytes: beat.stderrBytes,
    };
  };

  const settings = prepared.settings;
  const supervision: Supervision = supervise({
    child,
    sessionId,
    stdoutFile: files.stdout,
    stderrFile: files.stderr,
    timeoutMs: settings.timeoutSeconds * 1000,
    idleTimeoutMs: settings.idleTimeoutSeconds * 1000,
    graces: {
      afterInterrupt: config.run.killGrace * 1000,
      afterTerminate: config.run.killGrace * 1000,
    },
    afterResultGraceMs: config.run.afterResultGrace * 1000,
    maxOutputBytes: config.run.maxOutputBytes,
    diskLow: () => workspaceLowOnSpace(ctx.workspace),
    interruptFile: paths.interruptFile,
    clock,
    tickMs: ctx.timings.tickMs,
    heartbeatMs: ctx.timings.heartbeatMs,
    onHeartbeat: (beat) => {
      applyHeartbeat(beat);
      void writeCurrent();
      ctx.progress?.({
        kind: 'heartbeat',
        lastTool: beat.summary.lastTool,
        toolCalls: beat.summary.toolCalls,
        costUsd: beat.summary.result?.totalCostUsd,
        lastActivityAt: beat.lastActivityAt,
      });
    },
    onLine: (parsed) => {
      if (parsed.kind === 'issue')
        log.warn('stream_issue', {
          session: sessionId,
          issue: parsed.issue,
          detail: parsed.detail,
        });
      else if (
        parsed.kind === 'init' &&
        parsed.sessionId !== sessionId &&
        prepared.resume === undefined
      ) {
        log.warn('session_id_mismatch', { session: sessionId, reported: parsed.sessionId });
      }
    },
  });
  const unsubscribe = control.onStop((request) =>
    supervision.stop('shutdown', { force: request.force }),
  );
  if (control.requested !== undefined) supervision.stop('shutdown');
  const end = await supervision.done.finally(unsubscribe);
  ctx.progress?.({ kind: 'ended' });

  let outcome = classify({
    exit: end.exit,
    stopReason: end.stopReason,
    summary: end.summary,
    stderrTail: (await readTail(files.stderr, 2048)).text,
    resumed: prepared.resume !== undefined,
  });
  // An agent that died of a full disk (or was stopped by the check) is not at fault.
  const low = workspaceLowOnSpace(ctx.workspace);
  if (low !== undefined && outcome.kind !== 'success') outcome = diskFull(low);
  if (outcome.kind === 'interrupted') {
    const reason = (await readIfExists(paths.interruptFile))?.trim() ?? '';
    if (reason !== '') outcome.message = `interrupted: ${redactor.redact(reason)}`;
  }
  const costUsd = end.summary.result?.totalCostUsd ?? 0;
  const result = end.summary.result;
  // The agent has exited: completing, then its final state (seed 003's lifecycle).
  moveTo(record, 'completing');
  moveTo(record, outcome.status);
  record.statusReason = outcome.message;
  record.endedAt = new Date(clock.now()).toISOString();
  record.exit = { code: end.exit.code, signal: end.exit.signal };
  record.stopReason = end.stopReason;
  record.outcome = { kind: outcome.kind, message: outcome.message, retryable: outcome.retryable };
  record.result =
    result === undefined
      ? undefined
      : {
          subtype: result.subtype,
          isError: result.isError,
          numTurns: result.numTurns,
          durationMs: result.durationMs,
          costUsd: result.totalCostUsd,
          usage: result.usage,
          apiErrorStatus: result.apiErrorStatus,
          permissionDenials: end.summary.permissionDenials.map((d) => ({
            toolName: d.toolName,
            toolUseId: d.toolUseId,
          })),
          text: result.text,
        };
  record.streamIssues = end.summary.issues;
  record.killedProcesses = end.killedProcesses;
  applyHeartbeat({
    summary: end.summary,
    stdoutBytes: end.stdoutBytes,
    stderrBytes: end.stderrBytes,
    lastActivityAt: clock.now(),
  });
  await writes;

  const settled = await settleItem(
    ctx,
    control,
    item.id,
    settlementFor(outcome, costUsd, end.summary.claudeSessionId),
  );
  await persistently(ctx, control, 'recording the spend', () =>
    recordSpend(paths.budget, { costUsd, outcome: outcome.kind, now: clock.now() }),
  );
  if (outcome.kind === 'resume_failed') {
    log.warn('resume_failed', { item: item.id, session: sessionId, resumed: prepared.resume });
  }
  const preserve =
    outcome.kind === 'interrupted' || outcome.kind === 'disk_full' || outcome.kind === 'stopped';
  const extras = {
    lastText: end.summary.lastText,
    // What a person (or the resumed session) needs to pick the work up again.
    context: preserve
      ? {
          sessionId,
          itemId: item.id,
          attempt: item.attempts,
          reason: outcome.message,
          interruptedAt: record.endedAt,
          resumeWith: outcome.kind === 'interrupted' ? end.summary.claudeSessionId : undefined,
          workDir: record.workDir,
          assistantMessages: end.summary.assistantMessages,
          toolCalls: end.summary.toolCalls,
          lastTool: end.summary.lastTool,
          lastText: end.summary.lastText,
          costUsd,
        }
      : undefined,
  };
  await persistently(ctx, control, `archiving session ${sessionId}`, () =>
    archiveSession(files, paths.sessions, record, redactor, extras),
  );
  await fsp.rm(paths.currentSession, { force: true });
  log.info('session_ended', {
    item: item.id,
    session: sessionId,
    outcome: outcome.kind,
    status: outcome.status,
    message: outcome.message,
    itemStatus: settled?.status,
    costUsd,
    exit: record.exit,
    stopReason: end.stopReason,
    killedProcesses: end.killedProcesses.length,
    streamBytes: end.stdoutBytes,
    streamMs: end.streamMs,
  });
  return {
    kind: 'ran',
    itemId: item.id,
    sessionId,
    outcome,
    itemStatus: settled?.status ?? 'running',
    costUsd,
  };
}
