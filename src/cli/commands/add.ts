import { randomBytes } from 'node:crypto';
import { InputError } from '../../lib/errors.js';
import { ExitCode } from '../../lib/exit-codes.js';
import type { Item } from '../../queue/item.js';
import { QueueStore } from '../../queue/store.js';
import { checkDependencies, checkRunnable, fieldsFromFlags, validateItem } from '../item-flags.js';
import { openWorkspace } from '../open-workspace.js';
import type { Output } from '../output.js';

/** A readable id from the title, made unique with a short random suffix. */
export function idFromTitle(title: string): string {
  const slug = title
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40)
    .replace(/-+$/, '');
  return `${slug === '' ? 'item' : slug}-${randomBytes(2).toString('hex')}`;
}

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
): Promise<number> {
  const workspace = await openWorkspace(root);
  const item = await itemFromFlags(title, options, Date.now());
  const store = new QueueStore(workspace.paths.queue);
  await checkRunnable(workspace, item);
  await store.update((items) => {
    const index = items.findIndex((i) => i.id === item.id);
    const others = index === -1 ? items : items.filter((_, i) => i !== index);
    checkDependencies(item, others);
    if (index === -1) return { items: [...items, item], value: undefined };
    const existing = items[index] as Item;
    if (options.replace !== true) {
      throw new InputError(
        `an item with id ${JSON.stringify(item.id)} is already queued (use --replace)`,
      );
    }
    if (existing.status === 'running') {
      throw new InputError(`item ${JSON.stringify(item.id)} is running; it cannot be replaced now`);
    }
    const copy = items.slice();
    copy[index] = item;
    return { items: copy, value: undefined };
  });
  output.out(item.id);
  return ExitCode.ok;
}
