import { gateFailed, gatesStopped, type Outcome } from '../agent/outcome.js';
import { reapSession } from '../agent/process.js';
import type { SessionFiles } from '../archive/paths.js';
import type { SessionRecord } from '../archive/record.js';
import { runGates, type GateResult } from '../gates/gates.js';
import { commitLeftovers, commitsSince, diffStat, fileChanges } from '../git/worktree.js';
import { readIfExists, writeFileAtomically } from '../lib/fs.js';
import type { Item } from '../queue/item.js';
import type { WorkHost } from './host.js';
import type { PreparedSession } from './prepare.js';
import { gateEntry } from '../sandbox/entry.js';
import type { EgressRefusal } from '../sandbox/proxy.js';

/** What became of a session's work: its outcome after the gates, and what the record shows. */
export interface WorkChecked {
  outcome: Outcome;
  git?: SessionRecord['git'];
  gates?: GateResult[];
  /** The failing gate's command and output (redacted), for the next attempt's prompt. */
  gateFailure?: string;
}

/** The session whose work is checked; `onGate` hears of each gate as it starts. */
interface CheckedSession {
  item: Item;
  sessionId: string;
  files: SessionFiles;
  prepared: PreparedSession;
  /** When the session's CLI started (`processStartTime`): what it left started since. */
  since: string | undefined;
  onGate: (name: string) => void;
  /** A connection of a gate's that the sandbox's proxy refused. */
  onEgressRefused: (refusal: EgressRefusal) => void;
}

/** Bytes of one gate's output kept in `<session>-gates.log`. */
const GATE_OUTPUT_CAP = 4 * 1024 * 1024;

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

/**
 * After the agent's session: in git mode its leftovers are committed on the item's branch;
 * after a success the quality gates decide whether the item is done (`gate_failed` when one
 * fails); the push stage pushes the branch after (`git.push`). Nothing here throws: a git
 * failure is the attempt's outcome or a warning, never the runner's end.
 */
export async function checkWork(
  ctx: WorkHost,
  signal: AbortSignal,
  session: CheckedSession,
  outcome: Outcome,
): Promise<WorkChecked> {
  const { item, prepared } = session;
  const { checkout, work } = prepared;
  const checked: WorkChecked = { outcome };
  if (checkout !== undefined && outcome.kind === 'success') {
    try {
      const commit = await commitLeftovers(
        checkout.worktree,
        `ralph: ${item.title} (${item.id})\n\nWork left uncommitted by session ${session.sessionId}, attempt ${item.attempts}.`,
      );
      if (commit !== undefined)
        ctx.events.info('work_committed', { item: item.id, branch: checkout.branch, commit });
    } catch (error) {
      const failure = `committing the work on ${checkout.branch} failed: ${messageOf(error)}`;
      return { ...checked, outcome: gateFailed(failure), gateFailure: failure };
    }
  }
  if (outcome.kind === 'success' && work.gates.length > 0) {
    Object.assign(checked, await gate(ctx, signal, session));
  }
  if (checkout !== undefined) checked.git = await summarize(ctx, item, checkout);
  return checked;
}

/** Runs the gates in the work dir; the log is redacted once they end. */
async function gate(
  ctx: WorkHost,
  signal: AbortSignal,
  session: CheckedSession,
): Promise<Partial<WorkChecked>> {
  const { item, sessionId, files, prepared } = session;
  const run = await runGates(prepared.work.gates, {
    cwd: prepared.settings.workDir,
    env: prepared.env,
    logFile: files.gates,
    killGraceMs: ctx.workspace.config.run.killGrace * 1000,
    maxOutputBytes: GATE_OUTPUT_CAP,
    signal,
    enter: gateEntry(ctx, {
      sandbox: prepared.work.sandbox,
      env: prepared.env,
      workDir: prepared.settings.workDir,
      worktree: prepared.checkout?.worktree,
      onRefused: session.onEgressRefused,
    }),
    onStart: (g) => {
      session.onGate(g.name);
      ctx.events.info('gate_started', { item: item.id, session: sessionId, gate: g.name });
    },
    onEnd: (r) =>
      ctx.events[r.passed ? 'info' : 'warn']('gate_ended', {
        item: item.id,
        session: sessionId,
        gate: r.name,
        passed: r.passed,
        exitCode: r.exitCode,
        timedOut: r.timedOut,
        durationMs: r.durationMs,
      }),
  });
  // A gate's process that left its group (setsid) still carries the session's marker.
  await reapSession(undefined, sessionId, ctx.workspace.config.run.killGrace * 1000, session.since);
  const log = await readIfExists(files.gates);
  if (log !== undefined) await writeFileAtomically(files.gates, ctx.redactor.redact(log));
  if (run.stopped) return { gates: run.results, outcome: gatesStopped() };
  if (run.failure === undefined) return { gates: run.results };
  return {
    gates: run.results,
    gateFailure: ctx.redactor.redact(run.failure),
    outcome: gateFailed(
      ctx.redactor.redact(run.verdict ?? 'a gate failed'),
      run.unstartable !== true,
    ),
  };
}

/** Files of a branch's change kept in its session's record: what a person reviews is fewer. */
const MAX_FILES_RECORDED = 1000;

async function summarize(
  ctx: WorkHost,
  item: Item,
  checkout: NonNullable<PreparedSession['checkout']>,
): Promise<SessionRecord['git']> {
  const { worktree, branch, baseCommit } = checkout;
  try {
    return {
      branch,
      base: baseCommit,
      worktree,
      commits: await commitsSince(worktree, baseCommit, branch),
      diffstat: await diffStat(worktree, baseCommit, branch),
      files: (await fileChanges(worktree, baseCommit, branch)).slice(0, MAX_FILES_RECORDED),
    };
  } catch (error) {
    ctx.events.warn('worktree_failed', {
      item: item.id,
      operation: 'reading the branch',
      error: messageOf(error),
    });
    return { branch, base: baseCommit, worktree, commits: [], diffstat: '' };
  }
}
