import os from 'node:os';
import type { Workspace } from '../config/workspace.js';
import { liveRunner } from '../control/runner-lock.js';
import type { Item } from '../queue/item.js';
import { withQueue } from '../queue/open.js';
import { carryLedger } from '../workspace/decide.js';
import { sessionIndex } from '../workspace/sessions.js';
import { quietRunner } from './quiet-runner.js';
import { holderOf } from '../queue/item-status.js';

// What the review commands share, on the command line and in the interactive inbox: who
// decides, the state decided on, and a decision's effects carried out when no night runs.

type Env = Readonly<Record<string, string | undefined>>;

/** Who decides from this terminal. */
export const personOfTerminal = () => `${os.userInfo().username}@${os.hostname()}`;

/** The queue's items (any decision a crash kept from them applied first) and the sessions index. */
export async function reviewState(
  workspace: Workspace,
  env: Env,
): Promise<{ items: Item[]; entries: Awaited<ReturnType<typeof sessionIndex>>['entries'] }> {
  const items = await withQueue(workspace, env, async (queue) => {
    await carryLedger(workspace, queue);
    return queue.list();
  });
  return { items, entries: (await sessionIndex(workspace, env)).entries };
}

/**
 * What the decisions left to the world, carried out now when no night runs (the decision stage,
 * then the lander for an accepted item put in line to land); the items as they are after.
 */
export async function carryOut(
  workspace: Workspace,
  env: Env,
  decided: readonly Item[],
): Promise<Item[]> {
  const waits = decided.some((item) => ['decider', 'lander'].includes(holderOf(item.status)));
  if (!waits || (await liveRunner(workspace.paths.runnerLock)) !== undefined) return [...decided];
  const { runner, options } = await quietRunner(workspace, env);
  const [{ decisions }, { lander }] = await Promise.all([
    import('../decide/decision-stage.js'),
    import('../land/lander.js'),
  ]);
  await runner.tendWaiting(options, [decisions, lander]);
  const ids = new Set(decided.map((item) => item.id));
  const items = await withQueue(workspace, env, (queue) => queue.list());
  return items.filter((item) => ids.has(item.id));
}

/**
 * Decisions left `deciding` by a decision command that was killed mid-way (a revert cut short),
 * carried out now when no night runs to do it; the items as they are after.
 */
export async function finishLeftDecisions(workspace: Workspace, env: Env): Promise<Item[]> {
  const items = await withQueue(workspace, env, (queue) => queue.list());
  const left = items.filter((item) => holderOf(item.status) === 'decider');
  return left.length === 0 ? [] : carryOut(workspace, env, left);
}
