import { ExitCode } from '../../lib/exit-codes.js';
import type { Item } from '../../queue/item.js';
import { addItem, idFromTitle } from '../../workspace/admission.js';
import { fieldsFromFlags, flagOf, validateItem } from '../item-flags.js';
import { withQueue } from '../../queue/open.js';
import { openWorkspace } from '../open-workspace.js';
import type { Output } from '../output.js';

/** Builds and validates a new item from the command line. */
export async function itemFromFlags(
  title: string,
  options: Record<string, unknown>,
  now: number,
): Promise<Item> {
  const fields = await fieldsFromFlags({ ...options, title }, now);
  const stamp = new Date(now).toISOString();
  return validateItem(
    { id: idFromTitle(title), ...fields, createdAt: stamp, updatedAt: stamp },
    'the new item',
  );
}

/** `ralph add`: validates the item and adds it under the queue lock; prints the id. */
export async function addCommand(
  root: string,
  title: string,
  options: Record<string, unknown>,
  output: Output,
  env: Readonly<Record<string, string | undefined>>,
): Promise<number> {
  const workspace = await openWorkspace(root);
  const item = await itemFromFlags(title, options, Date.now());
  await withQueue(workspace, env, (queue) =>
    addItem(workspace, queue, item, {
      replace: options.replace === true,
      names: flagOf,
      searchPath: env.PATH,
    }),
  );
  output.out(item.id);
  return ExitCode.ok;
}
