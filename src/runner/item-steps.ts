import path from 'node:path';
import type { Outcome } from '../agent/outcome.js';
import { unreachable } from '../lib/errors.js';
import type { CandidateEntry, EnvironmentKind, Item } from '../queue/item.js';
import { leaseOf } from '../queue/lease.js';
import type { SessionStages } from '../queue/lifecycle.js';
import type { Claim } from '../queue/queue.js';
import type { Settlement } from '../queue/transitions.js';
import type { RunnerContext } from './context.js';
import { stagesOfWork } from '../session/stages.js';
import type { CandidatesWanted, PreparedSession } from '../session/prepare.js';
import { forkedAtClaim, forkedSaid } from '../candidates/fork.js';
import { candidatesAfterFailure } from '../candidates/roster.js';
import type { SessionEnd } from '../session/session-run.js';
import type { SessionRecord } from '../archive/record.js';
import type { StopControl } from './stop-control.js';
import { persistently } from './persist.js';
import { tidyWorktree } from '../session/worktrees.js';

/** A worker's claim: the queue's, and the work dir the claimed item takes. */
export interface WorkerClaim extends Claim {
  /** The work dir the item holds until its session ends (or until it has a worktree). */
  workDir?: string;
}

/** Claims the next runnable item; the attempt is counted here. */
export async function claimNext(
  ctx: RunnerContext,
  control: StopControl,
  sessionId: string,
): Promise<WorkerClaim> {
  const now = ctx.clock.now();
  const { root, config } = ctx.workspace;
  const dirOf = (item: Item) => path.resolve(root, item.workDir ?? config.defaults.workDir ?? '.');
  const claimed = await persistently(ctx, control, 'claiming the next item', () =>
    ctx.queue.claim({
      sessionId,
      now,
      busy: (item) => ctx.workDirsInUse.has(dirOf(item)),
      maxAttempts: config.defaults.maxAttempts,
      pace: ctx.pacing.pace,
    }),
  );
  if (claimed.expired !== undefined && claimed.expired.length > 0)
    ctx.events.warn('leases_expired', { items: claimed.expired });
  if (claimed.item === undefined) return claimed;
  ctx.leases.set(sessionId, leaseOf(claimed.item));
  // Two items in one work dir never run at once (unless each has a worktree of its own).
  const workDir = dirOf(claimed.item);
  ctx.workDirsInUse.add(workDir);
  return { ...claimed, workDir };
}

/**
 * Applies a settlement to the item `claimed` (re-read where it is kept: never a stale copy).
 * A settle whose lease was lost (expired and claimed by another runner) writes nothing and is
 * logged: the other runner's attempt owns the item now.
 */
export async function settleItem(
  ctx: RunnerContext,
  control: StopControl,
  claimed: Item,
  settlement: Settlement,
  stages?: SessionStages,
  /** Its candidates, should this settlement fail it. */
  candidates?: readonly CandidateEntry[],
): Promise<Item | undefined> {
  const policy = {
    maxAttempts: ctx.workspace.config.defaults.maxAttempts,
    retryBackoffCapMs: ctx.workspace.config.run.retryBackoffCap * 1000,
    now: ctx.clock.now(),
  };
  const lease = leaseOf(claimed);
  const settled = await persistently(ctx, control, `settling item ${claimed.id}`, () =>
    ctx.queue.apply(claimed.id, {
      kind: 'session_ended',
      lease,
      settlement,
      policy,
      stages,
      ...(candidates === undefined ? {} : { candidates }),
    }),
  );
  ctx.leases.delete(lease.sessionId);
  if (settled.kind === 'refused') {
    ctx.events.warn('settle_fenced', {
      item: claimed.id,
      session: lease.sessionId,
      attempt: lease.attempt,
      settlement: settlement.kind,
      reason: settled.reason,
    });
  }
  await tidyWorktree(ctx, claimed.id, settled.item);
  // Failed, it went to its candidates (`after_failure`).
  const after = settled.item;
  if (after?.roster !== undefined && claimed.roster === undefined)
    ctx.events.info('candidates_forked', forkedSaid(after));
  return after;
}

/** What an author's session's end does to its item: settled as its outcome says. */
export function settleEnd(
  ctx: RunnerContext,
  control: StopControl,
  item: Item,
  prepared: PreparedSession,
  end: SessionEnd,
): Promise<Item | undefined> {
  if (end.kind === 'spawn_failed')
    return settleItem(
      ctx,
      control,
      item,
      end.unavailable
        ? { kind: 'released', costUsd: 0 }
        : {
            kind: 'failed',
            error: end.reason,
            outcome: 'spawn_failed',
            costUsd: 0,
            retryable: true,
          },
    );
  const { outcome, costUsd, summary, checked } = end;
  const settlement = settlementFor(
    outcome,
    costUsd,
    summary.conversationId,
    checked.gateFailure,
    prepared.resume,
    prepared.fallback.clis.length > 0,
  );
  return settleItem(
    ctx,
    control,
    item,
    steered(withHead(settlement, checked.git), {
      question: outcome.kind === 'success' ? questionOf(summary) : undefined,
      message: end.messageBy,
      conversationId: summary.conversationId ?? prepared.resume,
    }),
    // A candidate's work goes to its judge, not on by itself.
    item.candidateOf === undefined ? stagesOf(prepared) : undefined,
    candidatesAfterFailure(item, prepared, costUsd),
  );
}

/** A success's settlement with the commit its session left the branch at (git mode). */
function withHead(settlement: Settlement, work: SessionRecord['git']): Settlement {
  const head = work?.commits.at(-1)?.sha;
  return settlement.kind === 'succeeded' && head !== undefined
    ? { ...settlement, head }
    : settlement;
}

/** What an outcome means for its item. */
export function settlementFor(
  outcome: Outcome,
  costUsd: number,
  conversationId: string | undefined,
  gateFailure?: string,
  /** The conversation the session resumed, if it was a resumption. */
  resumed?: string,
  /** The item may run on another CLI while this one's usage limit lasts. */
  canFallBack = false,
): Settlement {
  const failed = (): Extract<Settlement, { kind: 'failed' }> => ({
    kind: 'failed',
    error: outcome.message,
    outcome: outcome.kind,
    costUsd,
    retryable: outcome.retryable,
  });
  const released = (retryAfter?: number, resumeWith?: string): Settlement => ({
    kind: 'released',
    costUsd,
    retryAfter,
    resumeWith,
  });
  switch (outcome.kind) {
    case 'success':
      return { kind: 'succeeded', costUsd, conversationId };
    case 'interrupted':
    case 'disk_full':
      return { kind: 'interrupted', reason: outcome.message, costUsd, conversationId };
    case 'rate_limited':
      // Held till the reset, unless another CLI may take it now (the runner decides which).
      return released(canFallBack ? undefined : outcome.waitUntil);
    case 'stopped':
      // A resumption stopped by the runner keeps the conversation it went on with.
      return released(undefined, resumed === undefined ? undefined : (conversationId ?? resumed));
    case 'resume_failed':
    case 'sandbox_failed':
    case 'auth_error':
    case 'credit_exhausted':
      return released();
    case 'permission_denied':
    case 'max_turns':
    case 'max_budget':
    case 'error_during_execution':
    case 'api_error':
    case 'no_result':
    case 'signal_exit':
    case 'exit_error':
    case 'spawn_failed':
    case 'timeout':
    case 'idle_timeout':
    case 'output_limit':
      return failed();
    case 'gate_failed':
      // The next attempt resumes the conversation, told what failed.
      return { ...failed(), resumeWith: conversationId, gateFailure };
    default:
      return unreachable(outcome);
  }
}

/**
 * The stages a success of the session goes through before its item is done (the lifecycle
 * table decides which first): only work on a branch of its own lands or has a pull request.
 */
export function stagesOf(prepared: PreparedSession): SessionStages | undefined {
  return prepared.checkout === undefined ? undefined : stagesOfWork(prepared.work);
}

/** The line an agent ends with when it cannot go on without a person (the bootstrap says so). */
const NEEDS_INPUT = /^\s*RALPH_NEEDS_INPUT:\s*(\S.*)$/gm;

/** The question a session's agent ended with, if it asked a person one. */
export function questionOf(summary: {
  lastText?: string;
  result?: { text?: string };
}): string | undefined {
  const text = summary.result?.text ?? summary.lastText ?? '';
  const asked = [...text.matchAll(NEEDS_INPUT)].at(-1)?.[1]?.trim();
  return asked === undefined || asked === '' ? undefined : asked;
}

/**
 * A person's steering of a session, over what its outcome would settle: a question it ended
 * with parks the item for an answer, and so do tools refused to it (the task left undone: a
 * person allows them, or says how to do without); a session stopped to give it a message goes
 * back to the front of the line, to resume its conversation with the message.
 */
export function steered(
  settlement: Settlement,
  steering: { question?: string; message?: string; conversationId?: string },
): Settlement {
  if (settlement.kind === 'succeeded' && steering.question !== undefined)
    return { ...settlement, question: steering.question };
  if (settlement.kind === 'failed' && settlement.outcome === 'permission_denied')
    return {
      kind: 'succeeded',
      costUsd: settlement.costUsd,
      conversationId: steering.conversationId,
      question: `${settlement.error}. Allow them (its allowedTools, or its persona's) and answer to go on, or answer how to do without them.`,
    };
  if (steering.message !== undefined && settlement.kind === 'released')
    return {
      kind: 'interrupted',
      reason: `stopped to give it a message from ${steering.message}`,
      costUsd: settlement.costUsd,
      conversationId: steering.conversationId,
    };
  return settlement;
}

/** An item whose worktree is not ready goes to the setup stage, its attempt given back. */
export async function handToSetup(
  ctx: RunnerContext,
  control: StopControl,
  claimed: Item,
  wanted: EnvironmentKind,
): Promise<void> {
  const lease = leaseOf(claimed);
  const applied = await persistently(ctx, control, `handing ${claimed.id} to its setup`, () =>
    ctx.queue.apply(claimed.id, {
      kind: 'environment_wanted',
      lease,
      wanted,
      now: ctx.clock.now(),
    }),
  );
  ctx.leases.delete(lease.sessionId);
  if (applied.kind === 'applied')
    ctx.events.info('environment_wanted', { item: claimed.id, wanted });
}

/**
 * An item its candidates are to try from the start: it waits for them (the candidates stage
 * puts them in line), its attempt given back.
 */
export async function handToCandidates(
  ctx: RunnerContext,
  control: StopControl,
  claimed: Item,
  wanted: CandidatesWanted,
): Promise<void> {
  const lease = leaseOf(claimed);
  const applied = await persistently(ctx, control, `forking the candidates of ${claimed.id}`, () =>
    ctx.queue.apply(claimed.id, forkedAtClaim(claimed, wanted, lease, ctx.clock.now())),
  );
  ctx.leases.delete(lease.sessionId);
  if (applied.kind === 'applied') ctx.events.info('candidates_forked', forkedSaid(applied.item));
}
