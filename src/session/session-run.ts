import { missingHint } from '../agent/clis/index.js';
import { costOf, priceFor, type SessionCost } from '../agent/cost.js';
import { classify, diskFull, type Outcome } from '../agent/outcome.js';
import { spawnAgent, type AgentChild } from '../agent/process.js';
import { supervise, type SupervisedEnd, type SuperviseOptions } from '../agent/supervise.js';
import type { PreservedContext } from '../archive/finish.js';
import type { SessionFiles } from '../archive/paths.js';
import type { SessionRecord } from '../archive/record.js';
import {
  endedSession,
  runningSession,
  spawnFailed,
  spawningSession,
  withProgress,
  type Progress,
} from '../archive/session.js';
import { workspaceLowOnSpace } from '../config/workspace.js';
import { fingerprintSecrets } from '../lib/redact.js';
import { ensurePrivateDir, readTail, writeNewFile } from '../lib/fs.js';
import type { Item } from '../queue/item.js';
import { type ItemStatus, statusIs } from '../queue/item-status.js';
import { undeliveredMessages } from '../queue/transitions.js';
import { applyToSummary, type StreamSummary } from '../stream/summary.js';
import type { CliName } from '../config/cli-names.js';
import { recordSpend } from '../control/budget.js';
import { leaseOf } from '../queue/lease.js';
import type { SessionHostContext } from './host.js';
import { archive } from './archive.js';
import type { HostedKind } from './kinds.js';
import type { WorkChecked } from './work-check.js';
import { enterSandbox, interruptStandIn, type Sandboxed } from '../sandbox/entry.js';
import type { EgressRefusal } from '../sandbox/proxy.js';
import type { PreparedSession } from './prepare.js';
import { answeringStops, carryOutStop } from './person-stop.js';

/** What one session did, for the loop. */
export interface Ran {
  kind: 'ran';
  itemId: string;
  sessionId: string;
  outcome: Outcome;
  itemStatus: ItemStatus;
  costUsd: number;
  /** The CLI it ran on. */
  cli: CliName;
  /** Whether its item has a CLI to fall back on when this one is held. */
  canFallBack: boolean;
  /** Its item is a candidate of another: how it ended is that one's to count. */
  candidate: boolean;
  /** How much of its usage window the CLI said was used, if it said. */
  usageWindow?: StreamSummary['usageWindow'];
  /** The agent's last words (its result, else its last message): a reviewer's verdict. */
  finalText?: string;
}

/** Refused connections kept in a session's record (all are counted, and logged). */
const MAX_EGRESS_RECORDED = 100;

/** Errors of a spawn that mean no item can run (the binary is missing or not executable). */
const SPAWN_UNAVAILABLE = new Set(['ENOENT', 'EACCES', 'ENOEXEC', 'ENOTDIR']);

/** Outcomes whose session leaves `<id>-context.json` for its resumption or for a person. */
const PRESERVED: ReadonlySet<string> = new Set(['interrupted', 'disk_full', 'stopped']);

/** How an author's session ended, for the runner to settle its item with. */
export type SessionEnd =
  | {
      kind: 'ended';
      outcome: Outcome;
      costUsd: number;
      summary: StreamSummary;
      checked: WorkChecked;
      /** Who stopped it to give it a message (`ralph say` to a running item). */
      messageBy?: string;
    }
  /** It never started: its CLI is missing (`unavailable`), or its spawn failed. */
  | { kind: 'spawn_failed'; unavailable: boolean; reason: string };

/** Who the session is, decided when its item was claimed and prepared. */
export interface SessionRequest {
  /** How the host runs it. */
  kind: HostedKind;
  item: Item;
  iteration: number;
  sessionId: string;
  files: SessionFiles;
  prepared: PreparedSession;
  /** Other items waiting, for "item N of M". */
  queued: number;
  /**
   * Told the session's cost as soon as it is known, before its item moves on: a stage that
   * takes the item next (a reviewer) is paid for from what the run has left after it.
   */
  spent: (costUsd: number) => void;
  /** What its end does to its item (an author's: settled); the item as it is after. */
  settle: (end: SessionEnd) => Promise<Item | undefined>;
}

/**
 * One session of one item, any kind: its state while it runs, apart from what the run shares,
 * so that several can run side by side. Spawn, supervise, classify, settle, archive, in that
 * order: the claim was written before the spawn, the item is settled after the agent exits,
 * and the archive's final record is written last.
 */
export class SessionRun {
  private record: SessionRecord;
  /** Heartbeats and the final write go through one chain so they land in order. */
  private writes = Promise.resolve();

  constructor(
    private readonly ctx: SessionHostContext,
    private readonly init: SessionRequest,
  ) {
    this.record = firstRecord(ctx, init);
  }

  async run(): Promise<Ran | { kind: 'agent_unavailable'; itemId: string; reason: string }> {
    await this.announceCheckout();
    await this.writePrompt();
    await this.writeCurrent();
    const command = await this.sandboxed().catch((error: unknown) => ({
      problem: `the sandbox could not be made: ${error instanceof Error ? error.message : String(error)}`,
      code: undefined,
    }));
    if ('problem' in command) return this.spawnFailed(command.problem, command.code);
    const awake = this.ctx.awake.keep();
    const services = await this.init.kind.beside(this.ctx, this.init, (refusal) =>
      this.egressRefused(refusal, 'gate'),
    );
    try {
      return await this.runAgent(command);
    } finally {
      try {
        await services?.stop();
      } finally {
        awake();
      }
    }
  }

  /** The agent's session, then its work checked (committed, gated): how the attempt ended. */
  private async runAgent(
    command: Sandboxed,
  ): Promise<Ran | { kind: 'agent_unavailable'; itemId: string; reason: string }> {
    const { prepared, files } = this.init;
    const spawned = await spawnAgent({
      argv: command.argv,
      cwd: prepared.settings.workDir,
      env: command.env,
      stdoutFile: files.stdout,
      stderrFile: files.stderr,
      missingHint: missingHint(prepared.cli.name),
    });
    if (!spawned.ok) {
      await command.close();
      return this.spawnFailed(spawned.message, spawned.code);
    }
    this.record = runningSession(this.record, spawned.child.pid, spawned.child.startTime);
    await this.writeCurrent();
    this.announce(spawned.child);
    const end = await this.supervise(spawned.child, command).finally(() => command.close());
    await this.readAfterRun(end);
    const outcome = await this.classify(end);
    const checked = await this.init.kind.check(
      this.ctx,
      this.ctx.stop.signal,
      this.init,
      {
        since: spawned.child.startTime,
        onEgressRefused: (refusal) => this.egressRefused(refusal, 'gate'),
        onGate: (gate) => {
          // The agent is done; the record says what the session waits for now.
          this.record = { ...this.record, gate };
          void this.writeCurrent();
        },
      },
      outcome,
    );
    return this.finish(end, checked);
  }

  /**
   * The agent's command: in the sandbox its settings ask for (with a door of the runner's proxy
   * that records what it refuses), or as it is.
   */
  private async sandboxed(): Promise<Sandboxed | { problem: string; code?: string }> {
    const { prepared, sessionId } = this.init;
    const { argv, env } = prepared;
    const unsandboxed = {
      argv,
      env,
      interruptRequest: () => undefined,
      close: () => Promise.resolve(),
    };
    if (prepared.work.sandbox.kind === 'none') return unsandboxed;
    const entered = await enterSandbox(this.ctx, {
      sandbox: prepared.work.sandbox,
      cli: prepared.cli,
      argv,
      env,
      workDir: prepared.settings.workDir,
      worktree: prepared.checkout?.worktree ?? prepared.worktree,
      readOnlyWork: !this.init.kind.writes,
      dirs: prepared.cliDirs,
      interrupt: await interruptStandIn(
        this.ctx.workspace.paths,
        prepared.settings.workDir,
        sessionId,
      ),
      onRefused: (refusal) => this.egressRefused(refusal, 'agent'),
    });
    // A program nowhere to be found is a missing CLI, as a spawn's ENOENT is.
    return 'problem' in entered
      ? { problem: `${entered.problem} (${missingHint(prepared.cli.name)})`, code: 'ENOENT' }
      : entered;
  }

  /** A connection the sandbox's proxy refused: logged, and kept in the session's record. */
  private egressRefused(refusal: EgressRefusal, by: 'agent' | 'gate'): void {
    const { item, sessionId } = this.init;
    this.ctx.events.warn('egress_blocked', { item: item.id, session: sessionId, by, ...refusal });
    const blocked = this.record.egressBlocked ?? [];
    this.record = {
      ...this.record,
      egressBlocked:
        blocked.length < MAX_EGRESS_RECORDED ? [...blocked, { ...refusal, by }] : blocked,
      egressBlockedCount: (this.record.egressBlockedCount ?? blocked.length) + 1,
    };
    void this.writeCurrent();
  }

  /** Git mode: says where the item works, and records its branch for retries and diffs. */
  private async announceCheckout(): Promise<void> {
    const { ctx } = this;
    const { item, prepared } = this.init;
    const { checkout } = prepared;
    if (prepared.gitSkipped === true)
      ctx.events.warn('git_skipped', { item: item.id, workDir: prepared.settings.workDir });
    if (checkout === undefined) return;
    ctx.events.info('worktree_ready', {
      item: item.id,
      branch: checkout.branch,
      worktree: checkout.worktree,
      base: checkout.baseCommit,
      reused: checkout.reused,
    });
    await ctx.persistently(`recording the branch of ${item.id}`, () =>
      ctx.queue.apply(item.id, { kind: 'checked_out', lease: leaseOf(item), checkout }),
    );
  }

  private async writePrompt(): Promise<void> {
    const { item, sessionId, files, prepared } = this.init;
    await this.ctx.persistently('writing the prompt file', async () => {
      await writeNewFile(files.prompt, prepared.prompt.text);
      for (const dir of prepared.cliDirs) await ensurePrivateDir(dir);
      for (const file of prepared.cliFiles) await writeNewFile(file.path, file.text);
    });
    for (const cut of prepared.prompt.cuts) {
      this.ctx.events.warn('prompt_cut', {
        item: item.id,
        session: sessionId,
        ...cut,
        sizes: { ...prepared.prompt.sizes },
      });
    }
  }

  private writeCurrent(): Promise<void> {
    const snapshot = this.ctx.redactor.redactValue(this.record);
    this.writes = this.writes
      .then(() => this.ctx.controlFiles.writeRunningSession(snapshot))
      .catch((error: unknown) =>
        this.ctx.events.warn('session_record_write_failed', { error: String(error) }),
      );
    return this.writes;
  }

  private async spawnFailed(message: string, code: string | undefined) {
    const { ctx } = this;
    const { item, sessionId, files, prepared } = this.init;
    const unavailable = code !== undefined && SPAWN_UNAVAILABLE.has(code);
    const reason = ctx.redactor.redact(message);
    this.record = spawnFailed(this.record, reason, !unavailable, ctx.clock.now());
    await this.writes;
    await archive(ctx, files, this.record);
    await this.init.settle({ kind: 'spawn_failed', unavailable, reason });
    await ctx.controlFiles.clearRunningSession(sessionId);
    ctx.events.error('spawn_failed', { item: item.id, session: sessionId, reason });
    if (unavailable && this.init.kind.writes)
      return { kind: 'agent_unavailable' as const, itemId: item.id, reason };
    return {
      kind: 'ran' as const,
      itemId: item.id,
      sessionId,
      outcome: spawnFailure(reason),
      itemStatus: 'pending' as const,
      costUsd: 0,
      cli: prepared.settings.cli,
      canFallBack: prepared.fallback.clis.length > 0,
      candidate: item.candidateOf !== undefined,
    };
  }

  private announce(child: AgentChild): void {
    const { item, sessionId, prepared } = this.init;
    this.ctx.events.info('session_started', {
      item: item.id,
      session: sessionId,
      role: prepared.role,
      cli: prepared.settings.cli,
      attempt: item.attempts,
      pid: child.pid,
      command: this.record.command,
      resume: prepared.resume,
    });
    this.progress(undefined);
  }

  /** A live display's view of the session (never written to the log file). */
  private progress(progress: Progress | undefined): void {
    const { item, sessionId, queued } = this.init;
    this.ctx.events.info('session_progress', {
      item: item.id,
      role: this.init.prepared.role,
      itemTitle: item.title,
      session: sessionId,
      startedAt: this.record.startedAt,
      queued,
      lastTool: progress?.summary.lastTool,
      toolCalls: progress?.summary.toolCalls ?? 0,
      costUsd: progress?.cost?.usd,
      lastActivityAt:
        progress === undefined ? undefined : new Date(progress.lastActivityAt).toISOString(),
    });
  }

  private async supervise(child: AgentChild, command: Sandboxed): Promise<SupervisedEnd> {
    const { ctx } = this;
    const control = ctx.stop;
    const supervision = supervise(
      supervisionOf(ctx, this.init, child, command, {
        cost: (summary) => this.cost(summary),
        onHeartbeat: (beat) => {
          this.record = withProgress(this.record, beat);
          void this.writeCurrent();
          this.progress(beat);
        },
      }),
    );
    const unsubscribe = control.onStop((request) =>
      supervision.stop('shutdown', { force: request.force }),
    );
    if (control.requested !== undefined) supervision.stop('shutdown');
    const end = this.init.kind.writes
      ? await answeringStops(
          ctx,
          {
            ...this.init,
            given: async (messages) => {
              this.record = {
                ...this.record,
                messages: [...(this.record.messages ?? []), ...messages],
              };
              await this.writeCurrent();
            },
          },
          supervision,
          unsubscribe,
        )
      : await supervision.done.finally(unsubscribe);
    const asked = command.interruptRequest();
    if (asked !== undefined && ((await ctx.controlFiles.pauseReason()) ?? '') === '')
      await ctx.controlFiles.pause(ctx.redactor.redact(asked));
    return end;
  }

  /** What the CLI kept outside its stream (codex's refused commands), into the summary. */
  private async readAfterRun(end: SupervisedEnd): Promise<void> {
    const { prepared } = this.init;
    const events = await prepared.cli
      .afterRun?.({ conversationId: end.summary.conversationId, env: prepared.env })
      .catch((error: unknown) => {
        this.ctx.events.warn('after_run_unread', {
          session: this.init.sessionId,
          reason: error instanceof Error ? error.message : String(error),
        });
        return [];
      });
    for (const event of events ?? []) applyToSummary(end.summary, event, this.ctx.clock.now());
  }

  private async classify(end: SupervisedEnd): Promise<Outcome> {
    const { ctx } = this;
    const outcome = classify({
      exit: end.exit,
      stopReason: end.stopReason,
      summary: end.summary,
      stderrTail: (await readTail(this.init.files.stderr, 2048)).text,
      resumed: this.init.prepared.resume !== undefined,
      sandboxed: this.init.prepared.work.sandbox.kind !== 'none',
    });
    // An agent that died of a full disk (or was stopped by the check) is not at fault.
    const low = workspaceLowOnSpace(ctx.workspace);
    if (low !== undefined && outcome.kind !== 'success') return diskFull(low);
    if (outcome.kind === 'interrupted') {
      const reason = (await ctx.controlFiles.pauseReason()) ?? '';
      if (reason !== '')
        return { ...outcome, message: `interrupted: ${ctx.redactor.redact(reason)}` };
    }
    return outcome;
  }

  private async finish(end: SupervisedEnd, checked: WorkChecked): Promise<Ran> {
    const { ctx } = this;
    const { item, sessionId, files, prepared } = this.init;
    const { outcome } = checked;
    const cost = this.cost(end.summary);
    const costUsd = cost?.usd ?? 0;
    this.init.spent(costUsd);
    this.record = {
      ...this.record,
      gate: undefined,
      git: checked.git,
      gates: checked.gates,
      files:
        checked.gates === undefined
          ? this.record.files
          : { ...this.record.files, gates: files.gates },
    };
    this.record = endedSession(this.record, {
      status: outcome.status,
      outcome: { kind: outcome.kind, message: outcome.message, retryable: outcome.retryable },
      exit: { code: end.exit.code, signal: end.exit.signal },
      stopReason: end.stopReason,
      killedProcesses: end.killedProcesses,
      progress: { ...end, cost, lastActivityAt: ctx.clock.now() },
      now: ctx.clock.now(),
    });
    await this.writes;
    const stopRequest =
      end.stopReason === 'requested' ? await ctx.controlFiles.stopRequest(item.id) : undefined;
    // Spent before the item moves on: a stage that takes it next (its reviewer) is held to the
    // budget and the fleet's daily cap with this session's cost in them.
    await recordSessionSpend(ctx, costUsd, outcome);
    const settled = await this.init.settle({
      kind: 'ended',
      outcome,
      costUsd,
      summary: end.summary,
      checked,
      messageBy: stopRequest?.message === true ? stopRequest.by : undefined,
    });
    if (outcome.kind === 'resume_failed')
      ctx.events.warn('resume_failed', {
        item: item.id,
        session: sessionId,
        resumed: prepared.resume,
      });
    let stopped: Item | undefined;
    if (!this.init.kind.writes) stopped = undefined;
    else if (end.stopReason === 'requested')
      stopped = await carryOutStop(ctx, item, settled, sessionId);
    // A stop asked for once the agent had ended (its gates ran) has nothing left to stop.
    else await ctx.controlFiles.clearStopRequest(item.id);
    this.record = askedIn(this.record, settled);
    const extras = {
      lastText: end.summary.lastText,
      context: PRESERVED.has(outcome.kind)
        ? preservedContext(this.init, this.record, end, outcome, costUsd)
        : undefined,
    };
    await archive(ctx, files, this.record, extras);
    await ctx.controlFiles.clearRunningSession(sessionId);
    tellEnded(ctx, this.init, this.record, end, { outcome, costUsd, after: stopped ?? settled });
    return {
      kind: 'ran',
      itemId: item.id,
      sessionId,
      outcome,
      itemStatus: stopped?.status ?? settled?.status ?? item.status,
      costUsd,
      cli: prepared.settings.cli,
      canFallBack: prepared.fallback.clis.length > 0,
      candidate: item.candidateOf !== undefined,
      usageWindow: end.summary.usageWindow,
      finalText:
        end.summary.result?.structuredOutput ?? end.summary.result?.text ?? end.summary.lastText,
    };
  }

  /** The session's cost: its CLI's figure, or its tokens at the configured price. */
  private cost(summary: StreamSummary): SessionCost | undefined {
    const { settings } = this.init.prepared;
    return costOf(
      summary,
      priceFor(this.ctx.workspace.config.prices, settings.cli, settings.model ?? summary.model),
    );
  }
}

/** Characters of the agent's last message a preserved context keeps: its gist, not a verdict. */
const PRESERVED_TEXT_CHARS = 2000;

/** The messages a session is given: those its item had, given to no session before, at claim. */
function given(item: Item) {
  const messages = undeliveredMessages(item).map(({ from, at, text }) => ({ from, at, text }));
  return messages.length === 0 ? undefined : messages;
}

/** A session that ended asking a person is no success of the night's: its record says so. */
function askedIn(record: SessionRecord, settled: Item | undefined): SessionRecord {
  return settled !== undefined && statusIs(settled.status, 'asksPerson')
    ? { ...record, asked: true }
    : record;
}

/** The session's record as it is before its agent is spawned. */
function firstRecord(ctx: SessionHostContext, init: SessionRequest): SessionRecord {
  const { item, prepared, files } = init;
  const record = spawningSession({
    sessionId: init.sessionId,
    itemId: item.id,
    itemTitle: item.title,
    iteration: init.iteration,
    attempt: item.attempts,
    startedAt: ctx.clock.now(),
    runner: { pid: ctx.runner.pid, startTime: ctx.runner.startTime },
    workDir: prepared.settings.workDir,
    cli: prepared.settings.cli,
    command: ctx.redactor.redactValue([prepared.argv.file, ...prepared.argv.args]),
    resumedFrom: prepared.resume,
    fallback: prepared.fallbackFrom,
    handoverChars: prepared.handover?.length,
    persona: prepared.persona,
    role: prepared.role,
    messages: init.kind.writes ? given(item) : undefined,
    yolo: ctx.workspace.config.yolo,
    secrets: { passed: prepared.passedSecrets, ...fingerprintSecrets(prepared.secrets) },
    limits: {
      timeoutSeconds: prepared.settings.timeoutSeconds,
      idleTimeoutSeconds: prepared.settings.idleTimeoutSeconds,
      maxBudgetUsd:
        prepared.cli.enforces.budget === 'none' ? undefined : prepared.settings.maxBudgetUsd,
    },
    files,
  });
  const { sandbox } = prepared.work;
  if (sandbox.kind === 'none') return record;
  return {
    ...record,
    sandbox: {
      kind: sandbox.kind,
      network: sandbox.network,
      ...(prepared.cli.sandbox.turnsOwnOff === true ? { cliOwn: 'off' as const } : {}),
    },
  };
}

/** What a person (or the resumed session) needs to pick the work up again. */
function preservedContext(
  init: SessionRequest,
  record: SessionRecord,
  end: SupervisedEnd,
  outcome: Outcome,
  costUsd: number,
): PreservedContext {
  const { item, sessionId } = init;
  return {
    sessionId,
    itemId: item.id,
    attempt: item.attempts,
    reason: outcome.message,
    interruptedAt: record.endedAt,
    resumeWith: outcome.kind === 'interrupted' ? end.summary.conversationId : undefined,
    workDir: record.workDir,
    assistantMessages: end.summary.assistantMessages,
    toolCalls: end.summary.toolCalls,
    lastTool: end.summary.lastTool,
    lastText: end.summary.lastText?.slice(-PRESERVED_TEXT_CHARS),
    costUsd,
  };
}

/** How the session's agent is supervised: its limits, its graces, and what its lines tell. */
function supervisionOf(
  ctx: SessionHostContext,
  init: SessionRequest,
  child: AgentChild,
  command: Sandboxed,
  hooks: Pick<SuperviseOptions, 'cost' | 'onHeartbeat'>,
): SuperviseOptions {
  const { config } = ctx.workspace;
  const { sessionId, files, prepared } = init;
  const settings = prepared.settings;
  const { cli } = prepared;
  return {
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
    interrupt: {
      // A sandboxed agent asks through a file of its session's own (the pause's reason).
      state: () =>
        command.interruptRequest() === undefined ? ctx.controlFiles.interruptState() : 'present',
      ...ctx.controlFiles.interruptWatch,
    },
    clock: ctx.clock,
    decoder: cli.decoder,
    ralphLimits: {
      maxTurns: cli.enforces.maxTurns === 'ralph' ? settings.maxTurns : undefined,
      maxCostUsd: cli.enforces.budget === 'ralph' ? settings.maxBudgetUsd : undefined,
    },
    cost: hooks.cost,
    tickMs: ctx.timings.tickMs,
    heartbeatMs: ctx.timings.heartbeatMs,
    onHeartbeat: hooks.onHeartbeat,
    onLine: (parsed) => {
      if (parsed.kind === 'issue')
        ctx.events.warn('stream_issue', {
          session: sessionId,
          issue: parsed.issue,
          detail: parsed.detail,
        });
      else if (
        parsed.kind === 'init' &&
        cli.takesSessionId &&
        parsed.sessionId !== sessionId &&
        prepared.resume === undefined
      )
        ctx.events.warn('session_id_mismatch', {
          session: sessionId,
          reported: parsed.sessionId,
        });
    },
  };
}

/** Says how the session ended, and where its item went. */
function tellEnded(
  ctx: SessionHostContext,
  init: SessionRequest,
  record: SessionRecord,
  end: SupervisedEnd,
  { outcome, costUsd, after }: { outcome: Outcome; costUsd: number; after: Item | undefined },
): void {
  const { item, sessionId, prepared } = init;
  ctx.events.info('session_ended', {
    item: item.id,
    session: sessionId,
    role: prepared.role,
    outcome: outcome.kind,
    status: outcome.status,
    message: outcome.message,
    itemStatus: after?.status,
    ...(after !== undefined && statusIs(after.status, 'asksPerson') && after.question !== undefined
      ? { question: after.question }
      : {}),
    costUsd,
    exit: record.exit,
    stopReason: end.stopReason,
    killedProcesses: end.killedProcesses.length,
    streamBytes: end.stdoutBytes,
    streamMs: end.streamMs,
  });
}

/** A session's cost in the workspace's budget, and in its fleet's daily spend. */
async function recordSessionSpend(
  ctx: SessionHostContext,
  costUsd: number,
  outcome: Outcome,
): Promise<void> {
  await ctx.persistently('recording the spend', () =>
    recordSpend(ctx.workspace.paths.budget, {
      costUsd,
      outcome: outcome.kind,
      now: ctx.clock.now(),
    }),
  );
  const { fleet } = ctx.queue;
  if (fleet !== undefined)
    await ctx.persistently("recording the fleet's spend", () =>
      fleet.recordSpend(costUsd, ctx.clock.now()),
    );
}

/** A spawn that failed, as an outcome: the item's failure, tried again. */
function spawnFailure(reason: string): Outcome {
  return {
    kind: 'spawn_failed',
    status: 'failed',
    message: reason,
    retryable: true,
    countsAsFailure: true,
  };
}
