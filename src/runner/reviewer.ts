import { randomUUID } from 'node:crypto';
import { sessionFiles } from '../archive/paths.js';
import type { Item } from '../queue/item.js';
import { prepareReviewer } from '../session/prepare-review.js';
import type { Outcome } from '../agent/outcome.js';
import type { CliName } from '../config/cli-names.js';
import type { ReviewerEnd, ReviewerSession } from '../stage/context.js';
import { Attempt } from './attempt.js';
import type { RunnerContext } from './context.js';
import type { StopControl } from './stop-control.js';
import type { RunSpend } from './run-spend.js';
import { fleetDailyLeft } from './fleet-cap.js';

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
  const none = (outcome: string, message: string, retryAt?: number): ReviewerEnd => ({
    sessionId,
    ok: false,
    outcome,
    message,
    finalText: '',
    costUsd: 0,
    retryAt,
  });
  // The run's cost limit is reached: no reviewer is paid for, and nothing is approved.
  if (budgetLeftUsd !== undefined && budgetLeftUsd <= 0)
    return none('cost_limit', "the run's cost limit is reached");
  // Its CLI held back (a usage limit it reported, an author's or a reviewer's): not before then.
  const now = ctx.clock.now();
  const held = ctx.cliHolds.of(session.cli, now);
  if (held !== undefined)
    return none(
      'held',
      `${session.cli} is held back: ${held.reason}`,
      Number.isFinite(held.until) ? held.until : undefined,
    );
  // The fleet's daily cap holds for reviewers as for authors.
  const daily = await fleetDailyLeft(ctx, control);
  if (daily !== undefined && daily.left <= 0) return none('cost_limit', daily.reason);
  const files = sessionFiles(ctx.workspace.paths.sessions, sessionId);
  const prepared = prepareReviewer({
    ...session,
    workspace: ctx.workspace,
    item,
    identity: { sessionId, iteration: 0, files },
    parentEnv: ctx.parentEnv,
    budgetLeftUsd,
  });
  if ('reason' in prepared) return none('rejected', ctx.redactor.redact(prepared.reason));
  const ran = await new Attempt(ctx, control, {
    item,
    iteration: 0,
    sessionId,
    files,
    prepared,
    queued: 0,
    spent: (costUsd) => spend.spent(costUsd),
  }).run();
  if (ran.kind !== 'ran') return none(ran.kind, ran.reason);
  const retryAt =
    ran.outcome.kind === 'rate_limited' ? holdLimited(ctx, session.cli, ran.outcome) : undefined;
  return {
    retryAt,
    sessionId,
    // A tool refused it (a write) is read-only doing its work: its answer is read all the same.
    ok: ran.outcome.kind === 'success' || ran.outcome.kind === 'permission_denied',
    outcome: ran.outcome.kind,
    message: ran.outcome.message,
    finalText: ran.finalText ?? '',
    costUsd: ran.costUsd,
  };
}

/**
 * A reviewer's usage limit holds its CLI back as an author's does: no session starts on it, an
 * author's or a reviewer's, before the limit resets (a reset not said: the backoff's wait).
 * When the review may be tried again.
 */
function holdLimited(
  ctx: RunnerContext,
  cli: CliName,
  outcome: Outcome & { kind: 'rate_limited' },
): number {
  const { run } = ctx.workspace.config;
  const now = ctx.clock.now();
  const reset =
    outcome.waitUntil !== undefined && outcome.waitUntil > now
      ? outcome.waitUntil
      : now + run.rateLimitBackoff * 1000;
  const until = reset + run.limitMargin * 1000;
  ctx.cliHolds.hold(cli, { until, reason: outcome.message, kind: 'limit' });
  ctx.events.warn('cli_held', {
    cli,
    until: new Date(until).toISOString(),
    reason: outcome.message,
    kind: 'limit',
  });
  return until;
}
