import { InputError } from '../../lib/errors.js';
import { ExitCode } from '../../lib/exit-codes.js';
import type { Item } from '../../queue/item.js';
import { QueueStore } from '../../queue/store.js';
import { openWorkspace } from '../open-workspace.js';
import type { Output } from '../output.js';

type Change = (item: Item, now: string) => Item | undefined;

/** Applies a change to one item under the queue lock; `undefined` from `change` removes it. */
async function changeItem(root: string, id: string, change: Change): Promise<Item | undefined> {
  const workspace = await openWorkspace(root);
  const store = new QueueStore(workspace.paths.queue);
  return store.update((items) => {
    const index = items.findIndex((i) => i.id === id);
    const item = items[index];
    if (item === undefined) throw new InputError(`no item ${JSON.stringify(id)} in the queue`);
    if (item.status === 'running') {
      throw new InputError(
        `item ${JSON.stringify(id)} is running; pause the runner first ("ralph pause")`,
      );
    }
    const next = change(item, new Date().toISOString());
    const copy = items.slice();
    if (next === undefined) copy.splice(index, 1);
    else copy[index] = next;
    return { items: copy, value: next };
  });
}

/** `ralph retry ID`: a failed, cancelled or interrupted item goes back to the queue with its attempts renewed. */
export async function retryCommand(root: string, id: string, output: Output): Promise<number> {
  await changeItem(root, id, (item, now) => {
    if (item.status === 'pending')
      throw new InputError(`item ${JSON.stringify(id)} is already pending`);
    return {
      ...item,
      status: 'pending',
      attempts: 0,
      retryAfter: undefined,
      finishedAt: undefined,
      updatedAt: now,
    };
  });
  output.out(`${id}: pending`);
  return ExitCode.ok;
}

/** `ralph cancel ID`: the item stays in the file, never to run. */
export async function cancelCommand(root: string, id: string, output: Output): Promise<number> {
  await changeItem(root, id, (item, now) => ({
    ...item,
    status: 'cancelled',
    updatedAt: now,
    claudeSessionId: undefined,
  }));
  output.out(`${id}: cancelled`);
  return ExitCode.ok;
}

/** `ralph rm ID`: removes the item from the queue (its sessions stay archived). */
export async function removeCommand(root: string, id: string, output: Output): Promise<number> {
  await changeItem(root, id, () => undefined);
  output.out(`${id}: removed`);
  return ExitCode.ok;
}
