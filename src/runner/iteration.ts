import type { Slot } from '../session/slots.js';
import { randomUUID } from 'node:crypto';
import { sessionFiles } from '../archive/paths.js';
import type { CliName } from '../config/cli-names.js';
import type { EnvironmentKind, Item } from '../queue/item.js';
import type { Settlement } from '../queue/transitions.js';
import type { Ran } from '../session/session-run.js';
import type { SessionHost } from '../session/session-host.js';
import type { RunnerContext } from './context.js';
import type { StopControl } from './stop-control.js';
import { claimNext, handToCandidates, handToSetup, settleEnd, settleItem } from './item-steps.js';
import { pauseForOperator } from './persist.js';
import type { PreparationError } from '../session/preparation-error.js';
import { prepareSession } from '../session/prepare.js';

/** What one turn of the loop did. */
export type IterationResult =
  /** Nothing runnable now; `wakeAt` is when a waiting item becomes runnable, `retryAt` a retry. */
  | { kind: 'idle'; wakeAt?: number; retryAt?: number }
  | Ran
  /** Refused before spawning (the item is at fault); no attempt spent. */
  | { kind: 'rejected'; itemId: string; reason: string; candidate: boolean }
  /** The workspace is at fault (every item would fail alike): item given back, night paused. */
  | { kind: 'workspace_fault'; itemId: string; reason: string }
  /** The agent could not be started at all: no item can run. */
  | { kind: 'agent_unavailable'; itemId: string; reason: string }
  /** Its worktree is not ready: handed to the setup stage, its attempt given back. */
  | { kind: 'preparing'; itemId: string; wanted: EnvironmentKind }
  /** Its candidates are to try it: put in line, its attempt given back. */
  | { kind: 'forked'; itemId: string }
  /** Every CLI the item may use is held (a usage limit): item given back, no attempt spent. */
  | { kind: 'held'; itemId: string; cli: CliName; until: number; reason: string };

/**
 * One iteration: claim the next item, prepare its session, and hand it to the session host, or
 * refuse it before anything is spawned; then settle what came back.
 */
export async function runIteration(
  ctx: RunnerContext,
  host: SessionHost,
  /** The number of the iteration, taken once an item is claimed. */
  iterationNumber: () => number,
  control: StopControl,
  budgetLeftUsd?: number,
  /** Told a session's cost before its item is settled (the run's cost, as stages see it). */
  spent: (costUsd: number) => void = () => undefined,
): Promise<IterationResult> {
  const sessionId = randomUUID();
  const { item, queued, wakeAt, retryAt, workDir } = await claimNext(ctx, control, sessionId);
  if (item === undefined) return { kind: 'idle', wakeAt, retryAt };
  const iteration = iterationNumber();
  const slot = await ctx.slots.take();
  try {
    return await prepareAndRun(
      ctx,
      host,
      control,
      { item, iteration, sessionId, queued, workDir, slot, spent },
      budgetLeftUsd,
    );
  } finally {
    ctx.slots.release(slot);
    if (workDir !== undefined) ctx.workDirsInUse.delete(workDir);
  }
}

async function prepareAndRun(
  ctx: RunnerContext,
  host: SessionHost,
  control: StopControl,
  claim: {
    item: Item;
    iteration: number;
    sessionId: string;
    queued?: number;
    workDir?: string;
    slot?: Slot;
    spent: (costUsd: number) => void;
  },
  budgetLeftUsd: number | undefined,
): Promise<IterationResult> {
  const { item, iteration, sessionId, queued } = claim;
  const files = sessionFiles(ctx.workspace.paths.sessions, sessionId);
  const prepared = await prepareSession({
    workspace: ctx.workspace,
    item,
    identity: { sessionId, iteration, files, slot: claim.slot },
    parentEnv: ctx.parentEnv,
    cache: ctx.files,
    budgetLeftUsd,
    holds: { of: (cli) => ctx.cliHolds.of(cli, ctx.clock.now()), now: ctx.clock.now() },
    redact: (text) => ctx.redactor.redact(text),
  });
  if ('reason' in prepared) return refuse(ctx, control, item, prepared);
  if ('held' in prepared) {
    await settleItem(ctx, control, item, released(item));
    return { kind: 'held', itemId: item.id, ...prepared.held };
  }
  if ('wanted' in prepared) {
    await handToSetup(ctx, control, item, prepared.wanted);
    return { kind: 'preparing', itemId: item.id, wanted: prepared.wanted };
  }
  if ('candidates' in prepared) {
    await handToCandidates(ctx, control, item, prepared);
    return { kind: 'forked', itemId: item.id };
  }
  if (prepared.fallbackFrom !== undefined)
    ctx.events.warn('fallback', {
      item: item.id,
      session: sessionId,
      cli: prepared.settings.cli,
      from: prepared.fallbackFrom.cli,
      reason: prepared.fallbackFrom.reason,
      handover: prepared.handover?.length ?? 0,
    });
  // In its own worktree, the item no longer holds the shared work dir.
  if (prepared.checkout !== undefined && claim.workDir !== undefined)
    ctx.workDirsInUse.delete(claim.workDir);
  return host.author({
    item,
    iteration,
    sessionId,
    files,
    prepared,
    queued: queued ?? 0,
    spent: claim.spent,
    settle: (end) => settleEnd(ctx, control, item, prepared, end),
  });
}

/** Given back before its session: its attempt, and the conversation it is to resume, kept. */
const released = (item: Item): Settlement => ({
  kind: 'released',
  costUsd: 0,
  resumeWith: item.conversationId,
});

/**
 * An item that cannot be prepared: rejected when it is at fault; given back with the night
 * paused when the workspace is, since every other item would fail the same way.
 */
async function refuse(
  ctx: RunnerContext,
  control: StopControl,
  item: Item,
  error: PreparationError,
): Promise<IterationResult> {
  const reason = ctx.redactor.redact(error.reason);
  if (error.scope === 'workspace') {
    await settleItem(ctx, control, item, released(item));
    ctx.events.error('workspace_fault', { item: item.id, reason });
    await pauseForOperator(ctx, control, `ralph: ${reason}; fix it, then run "ralph resume"`);
    return { kind: 'workspace_fault', itemId: item.id, reason };
  }
  await settleItem(ctx, control, item, {
    kind: 'rejected',
    error: reason,
    outcome: 'rejected',
    park: error.park,
  });
  ctx.events.error('item_rejected', { item: item.id, reason });
  const candidate = item.candidateOf !== undefined;
  return { kind: 'rejected', itemId: item.id, reason, candidate };
}
