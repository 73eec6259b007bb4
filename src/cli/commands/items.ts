import type { Workspace } from '../../config/workspace.js';
import { ControlFiles } from '../../control/files.js';
import { InputError } from '../../lib/errors.js';
import { ExitCode } from '../../lib/exit-codes.js';
import type { Item } from '../../queue/item.js';
import { liveRunner } from '../../control/runner-lock.js';
import { deleteBranches, dropWorktrees } from '../../workspace/branches.js';
import { withQueue, withQueueReader } from '../../queue/open.js';
import { stopItems, stopTimeoutMs } from '../../workspace/stop.js';
import type { Selection } from '../../queue/queue.js';
import { openWorkspace } from '../open-workspace.js';
import { quietRunner } from '../quiet-runner.js';
import { finishLeftDecisions } from '../review-state.js';
import type { Output } from '../output.js';
import { holderOf } from '../../queue/item-status.js';

/**
 * Settles what a runner that died left running (as its next run would) when a person acts on
 * such an item: it is no longer running, so it can be cancelled or removed. A live runner's
 * items are its own to settle.
 */
async function recoverDeadRunner(
  workspace: Workspace,
  env: Readonly<Record<string, string | undefined>>,
  selection: Selection,
  output: Output,
): Promise<void> {
  if ((await liveRunner(workspace.paths.runnerLock)) !== undefined) return;
  const items = await withQueueReader(workspace, env, (queue) => queue.list());
  const chosen = (item: Item) =>
    selection.ids.length === 0
      ? selection.all === true || selection.status !== undefined
      : selection.ids.includes(item.id);
  if (!items.some((item) => holderOf(item.status) === 'worker' && chosen(item))) return;
  for (const id of await recover(workspace, env))
    output.err(
      `ralph: ${id} was left running by a runner that died: settled (its session archived)`,
    );
}

/**
 * Stops the running items among `ids` of a live runner, cancelling them (`ralph stop --cancel`),
 * so that a person's cancel or removal of one needs no pause of the night.
 */
async function stopRunning(
  workspace: Workspace,
  env: Readonly<Record<string, string | undefined>>,
  ids: readonly string[],
  output: Output,
): Promise<void> {
  if (ids.length === 0 || (await liveRunner(workspace.paths.runnerLock)) === undefined) return;
  const items = await withQueueReader(workspace, env, (queue) => queue.list());
  const running = items
    .filter((i) => holderOf(i.status) === 'worker' && ids.includes(i.id))
    .map((i) => i.id);
  if (running.length === 0) return;
  const left = await stopItems(
    new ControlFiles(workspace.paths),
    running,
    { cancel: true, by: 'cli' },
    stopTimeoutMs(workspace.config.run.killGrace),
  );
  if (left.length > 0)
    throw new InputError(
      `${left.join(', ')}: running, and the runner did not stop ${left.length === 1 ? 'it' : 'them'} in time (in a fleet: from the workspace whose runner runs it)`,
    );
  for (const id of running) output.err(`ralph: ${id} was running: its session was stopped`);
}

/** Settles what a dead runner left, with the runner's own recovery; returns the items requeued. */
async function recover(
  workspace: Workspace,
  env: Readonly<Record<string, string | undefined>>,
): Promise<string[]> {
  const { runner, options } = await quietRunner(workspace, env);
  return runner.recoverWorkspace(options);
}

/**
 * `ralph recover`: settles what a runner that died left, finishes a decision a killed command
 * left half carried out, and runs no agent.
 */
export async function recoverCommand(
  root: string,
  output: Output,
  env: Readonly<Record<string, string | undefined>>,
): Promise<number> {
  const workspace = await openWorkspace(root);
  const ids = await recover(workspace, env);
  const decisions = await finishLeftDecisions(workspace, env);
  const lines = [
    ...ids.map((id) => `${id}: settled (left running by a runner that died)`),
    ...decisions.map(
      (item) =>
        `${item.id}: its decision (${item.decision?.kind ?? '?'}), left half carried out, ${holderOf(item.status) === 'decider' ? 'still to be carried out' : `carried out: ${item.status}`}${item.decision?.failure === undefined ? '' : `; it failed: ${item.decision.failure}`}`,
    ),
  ];
  output.out(lines.length === 0 ? 'nothing was left running or half decided' : lines.join('\n'));
  return ExitCode.ok;
}

function report(output: Output, ids: string[], outcome: string): number {
  if (ids.length === 0) output.out('no item matched; nothing changed');
  for (const id of ids) output.out(`${id}: ${outcome}`);
  return ExitCode.ok;
}

/** `ralph retry`: failed, cancelled or interrupted items go back to the queue, attempts renewed. */
export async function retryCommand(
  root: string,
  selection: Selection,
  output: Output,
  env: Readonly<Record<string, string | undefined>>,
): Promise<number> {
  const workspace = await openWorkspace(root);
  const ids = await withQueue(workspace, env, (queue) => queue.retry(selection));
  return report(output, ids, 'pending');
}

/** `ralph cancel`: the items stay in the file, never to run. */
export async function cancelCommand(
  root: string,
  selection: Selection,
  output: Output,
  env: Readonly<Record<string, string | undefined>>,
): Promise<number> {
  const workspace = await openWorkspace(root);
  await recoverDeadRunner(workspace, env, selection, output);
  await stopRunning(workspace, env, selection.ids, output);
  const ids = await withQueue(workspace, env, (queue) => queue.cancel(selection));
  await dropWorktrees(workspace, ids, 'cancelled');
  return report(output, ids, 'cancelled');
}

/**
 * `ralph rm`: removes items from the queue (their sessions stay archived, and their branches
 * unless `--branch`).
 */
export async function removeCommand(
  root: string,
  selection: { ids: string[]; force?: boolean; branch?: boolean },
  output: Output,
  env: Readonly<Record<string, string | undefined>>,
): Promise<number> {
  const workspace = await openWorkspace(root);
  await recoverDeadRunner(workspace, env, selection, output);
  await stopRunning(workspace, env, selection.ids, output);
  const { before, ids } = await withQueue(workspace, env, async (queue) => ({
    before: await queue.list(),
    ids: await queue.remove(selection.ids, selection.force === true),
  }));
  await dropWorktrees(workspace, ids, 'removed');
  const code = report(output, ids, 'removed');
  if (selection.branch === true) {
    const removed = before.filter((item) => ids.includes(item.id));
    for (const branch of await deleteBranches(workspace, removed)) output.out(`${branch}: deleted`);
  }
  return code;
}
