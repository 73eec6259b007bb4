import { ExitCode } from '../../lib/exit-codes.js';
import { cancelItems, removeItems, retryItems, type Selection } from '../../workspace/items.js';
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
  const { paths } = await openWorkspace(root);
  return report(output, await cancelItems(paths.queue, selection), 'cancelled');
}

/** `ralph rm`: removes items from the queue (their sessions stay archived). */
export async function removeCommand(
  root: string,
  selection: { ids: string[]; force?: boolean },
  output: Output,
): Promise<number> {
  const { paths } = await openWorkspace(root);
  return report(
    output,
    await removeItems(paths.queue, selection.ids, selection.force === true),
    'removed',
  );
}
