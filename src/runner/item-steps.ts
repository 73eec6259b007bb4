import path from 'node:path';
import type { Outcome } from '../agent/outcome.js';
import { unreachable } from '../lib/errors.js';
import type { Item } from '../queue/item.js';
import { nextWakeTime, selectNext } from '../queue/select.js';
import { claim, settle, type Settlement } from '../queue/transitions.js';
import type { RunnerContext } from './context.js';
import type { StopControl } from './control.js';
import { persistently } from './persist.js';
import { tidyWorktree } from './worktrees.js';

/** The claimed item, or when something becomes runnable if nothing is now. */
export interface Claim {
  item?: Item;
  /** The work dir the item holds until its session ends (or until it has a worktree). */
  workDir?: string;
  /** How many other items wait to run (for "item N of M"). */
  queued?: number;
  wakeAt?: number;
  retryAt?: number;
}

/** Claims the next runnable item under the queue lock; the attempt is counted here. */
export async function claimNext(
  ctx: RunnerContext,
  control: StopControl,
  sessionId: string,
): Promise<Claim> {
  const now = ctx.clock.now();
  const { root, config } = ctx.workspace;
  const dirOf = (item: Item) => path.resolve(root, item.workDir ?? config.defaults.workDir ?? '.');
  const claimed = await persistently(ctx, control, 'claiming the next item', () =>
    ctx.queue.update<Claim>((items) => {
      const next = selectNext(items, now, (item) => ctx.workDirsInUse.has(dirOf(item)));
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
        value: { item: claimed, queued, workDir: dirOf(claimed) },
      };
    }),
  );
  // Two items in one work dir never run at once (unless each has a worktree of its own).
  if (claimed.workDir !== undefined) ctx.workDirsInUse.add(claimed.workDir);
  return claimed;
}

/** Applies a settlement to the item (re-read under the lock: never a stale copy). */
export async function settleItem(
  ctx: RunnerContext,
  control: StopControl,
  itemId: string,
  settlement: Settlement,
): Promise<Item | undefined> {
  const now = ctx.clock.now();
  const maxAttemptsDefault = ctx.workspace.config.defaults.maxAttempts;
  const settled = await persistently(ctx, control, `settling item ${itemId}`, () =>
    ctx.queue.update((items) => {
      const index = items.findIndex((i) => i.id === itemId);
      const current = items[index];
      // Removed or cancelled by hand while it ran: leave the person's decision alone.
      if (current === undefined || current.status !== 'running') return { value: current };
      const next = settle(
        current,
        settlement,
        current.maxAttempts ?? maxAttemptsDefault,
        now,
        ctx.workspace.config.run.retryBackoffCap * 1000,
      );
      const copy = items.slice();
      copy[index] = next;
      return { items: copy, value: next };
    }),
  );
  await tidyWorktree(ctx, itemId, settled);
  return settled;
}

/** What an outcome means for its item. */
export function settlementFor(
  outcome: Outcome,
  costUsd: number,
  claudeSessionId: string | undefined,
  gateFailure?: string,
): Settlement {
  const failed = (): Extract<Settlement, { kind: 'failed' }> => ({
    kind: 'failed',
    error: outcome.message,
    outcome: outcome.kind,
    costUsd,
    retryable: outcome.retryable,
  });
  const released = (retryAfter?: number): Settlement => ({
    kind: 'released',
    reason: outcome.message,
    costUsd,
    retryAfter,
  });
  switch (outcome.kind) {
    case 'success':
      return { kind: 'succeeded', costUsd, claudeSessionId };
    case 'interrupted':
    case 'disk_full':
      return { kind: 'interrupted', reason: outcome.message, costUsd, claudeSessionId };
    case 'rate_limited':
      return released(outcome.waitUntil);
    case 'stopped':
    case 'resume_failed':
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
      return { ...failed(), resumeWith: claudeSessionId, gateFailure };
    default:
      return unreachable(outcome);
  }
}

/** Git mode: the item's branch and base, recorded at its first checkout for retries and diffs. */
export async function recordCheckout(
  ctx: RunnerContext,
  control: StopControl,
  itemId: string,
  checkout: { branch: string; baseCommit: string },
): Promise<void> {
  await persistently(ctx, control, `recording the branch of ${itemId}`, () =>
    ctx.queue.update((items) => {
      const index = items.findIndex((i) => i.id === itemId);
      const current = items[index];
      if (current === undefined || current.baseCommit === checkout.baseCommit)
        return { value: undefined };
      const copy = items.slice();
      copy[index] = { ...current, branch: checkout.branch, baseCommit: checkout.baseCommit };
      return { items: copy, value: undefined };
    }),
  );
}
