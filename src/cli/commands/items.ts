import { ExitCode } from '../../lib/exit-codes.js';
import { deleteBranches, dropWorktrees } from '../../workspace/branches.js';
import { cancelItems, removeItems, retryItems, type Selection } from '../../workspace/items.js';
import { QueueStore } from '../../queue/store.js';
import { openWorkspace } from '../open-workspace.js';
import type { Output } from '../output.js';

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
): Promise<number> {
  const { paths } = await openWorkspace(root);
  return report(output, await retryItems(paths.queue, selection), 'pending');
}

/** `ralph cancel`: the items stay in the file, never to run. */
export async function cancelCommand(
  root: string,
  selection: Selection,
  output: Output,
): Promise<number> {
  const workspace = await openWorkspace(root);
  const ids = await cancelItems(workspace.paths.queue, selection);
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
): Promise<number> {
  const workspace = await openWorkspace(root);
  const before = (await new QueueStore(workspace.paths.queue).read()).items;
  const ids = await removeItems(workspace.paths.queue, selection.ids, selection.force === true);
  await dropWorktrees(workspace, ids, 'removed');
  const code = report(output, ids, 'removed');
  if (selection.branch === true) {
    const removed = before.filter((item) => ids.includes(item.id));
    for (const branch of await deleteBranches(workspace, removed)) output.out(`${branch}: deleted`);
  }
  return code;
}
