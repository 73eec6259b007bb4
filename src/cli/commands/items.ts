import { ExitCode } from '../../lib/exit-codes.js';
import { deleteBranches, dropWorktrees } from '../../workspace/branches.js';
import { withQueue } from '../../queue/open.js';
import type { Selection } from '../../queue/queue.js';
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
