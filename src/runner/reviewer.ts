import { randomUUID } from 'node:crypto';
import { sessionFiles } from '../archive/paths.js';
import type { Item } from '../queue/item.js';
import { prepareReviewer } from '../session/prepare-review.js';
import type { ReviewerEnd, ReviewerSession } from '../stage/context.js';
import { Attempt } from './attempt.js';
import type { RunnerContext } from './context.js';
import type { StopControl } from './stop-control.js';
import type { RunSpend } from './run-spend.js';

/**
 * A reviewer's session of `item`, run as the runner runs any (its own record in the archive,
 * supervised to its limits, its cost in the budget): how it ended, never the item settled.
 */
export async function runReviewer(
  ctx: RunnerContext,
  control: StopControl,
  item: Item,
  session: ReviewerSession,
  spend: RunSpend,
): Promise<ReviewerEnd> {
  const sessionId = randomUUID();
  const budgetLeftUsd = spend.left();
  // The run's cost limit is reached: no reviewer is paid for, and nothing is approved.
  if (budgetLeftUsd !== undefined && budgetLeftUsd <= 0)
    return {
      sessionId,
      ok: false,
      outcome: 'cost_limit',
      message: "the run's cost limit is reached",
      finalText: '',
      costUsd: 0,
    };
  const files = sessionFiles(ctx.workspace.paths.sessions, sessionId);
  const prepared = prepareReviewer({
    ...session,
    workspace: ctx.workspace,
    item,
    identity: { sessionId, iteration: 0, files },
    parentEnv: ctx.parentEnv,
    budgetLeftUsd,
  });
  if ('reason' in prepared)
    return {
      sessionId,
      ok: false,
      outcome: 'rejected',
      message: ctx.redactor.redact(prepared.reason),
      finalText: '',
      costUsd: 0,
    };
  const ran = await new Attempt(ctx, control, {
    item,
    iteration: 0,
    sessionId,
    files,
    prepared,
    queued: 0,
    spent: (costUsd) => spend.spent(costUsd),
  }).run();
  if (ran.kind !== 'ran')
    return {
      sessionId,
      ok: false,
      outcome: ran.kind,
      message: ran.reason,
      finalText: '',
      costUsd: 0,
    };
  return {
    sessionId,
    // A tool refused it (a write) is read-only doing its work: its answer is read all the same.
    ok: ran.outcome.kind === 'success' || ran.outcome.kind === 'permission_denied',
    outcome: ran.outcome.kind,
    message: ran.outcome.message,
    finalText: ran.finalText ?? '',
    costUsd: ran.costUsd,
  };
}
