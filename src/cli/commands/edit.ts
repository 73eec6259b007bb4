import { InputError } from '../../lib/errors.js';
import { ExitCode } from '../../lib/exit-codes.js';
import type { Item } from '../../queue/item.js';
import { QueueStore } from '../../queue/store.js';
import { checkDependencies, checkRunnable } from '../../workspace/admission.js';
import { fieldsFromFlags, flagOf, validateItem } from '../item-flags.js';
import { openWorkspace } from '../open-workspace.js';
import type { Output } from '../output.js';

/** Fields `ralph edit` clears when given an empty value, rather than setting them to "". */
const CLEARED_BY_EMPTY = ['model', 'workDir', 'agent', 'schedule', 'notBefore'] as const;

/**
 * `ralph edit ID [flags]`: changes the fields the flags name on an item that is not running,
 * with the checks of `ralph add`; every other field stays as it is. An empty `--depends-on ""`
 * drops the dependencies; an empty `--model ""` (and the like) goes back to the default.
 */
export async function editCommand(
  root: string,
  id: string,
  options: Record<string, unknown>,
  output: Output,
): Promise<number> {
  const workspace = await openWorkspace(root);
  const cleared = CLEARED_BY_EMPTY.filter((key) => options[key] === '');
  const given = Object.fromEntries(
    Object.entries(options).filter(([key]) => !(cleared as readonly string[]).includes(key)),
  );
  const fields = await fieldsFromFlags(given, Date.now());
  if (Object.keys(fields).length === 0 && cleared.length === 0)
    throw new InputError(
      'nothing to change: give the flags of the fields to change (ralph help edit)',
    );
  const store = new QueueStore(workspace.paths.queue);
  const current = (await store.read()).items.find((item) => item.id === id);
  if (current === undefined) throw new InputError(`no item ${JSON.stringify(id)} in the queue`);
  const edit = (item: Item): Item => {
    const next: Record<string, unknown> = {
      ...item,
      ...fields,
      updatedAt: new Date().toISOString(),
    };
    for (const key of cleared) delete next[key];
    return validateItem(next, `item ${JSON.stringify(id)}`);
  };
  await checkRunnable(workspace, edit(current), flagOf);
  const edited = await store.update((items) => {
    const index = items.findIndex((item) => item.id === id);
    const item = items[index];
    if (item === undefined) throw new InputError(`no item ${JSON.stringify(id)} in the queue`);
    if (item.status === 'running')
      throw new InputError(
        `item ${JSON.stringify(id)} is running; pause the runner first ("ralph pause")`,
      );
    const next = edit(item);
    checkDependencies(
      next,
      items.filter((_, i) => i !== index),
      flagOf,
    );
    const copy = items.slice();
    copy[index] = next;
    return { items: copy, value: next };
  });
  output.out(`${edited.id}: edited (${[...Object.keys(fields), ...cleared].join(', ')})`);
  return ExitCode.ok;
}
