import { InputError, NotFoundError } from '../lib/errors.js';
import { dependentsOf } from '../queue/dependencies.js';
import type { Item } from '../queue/item.js';
import { ITEM_STATUSES, type ItemStatus } from '../queue/status.js';
import { QueueStore } from '../queue/store.js';

/** Which items a queue command acts on: ids, or every item (of some statuses). */
export interface Selection {
  ids: string[];
  all?: boolean;
  status?: string;
}

/**
 * A change of one item, given the queue as it stands under the lock: the new item, or
 * undefined to remove it; throws to refuse.
 */
type Change = (item: Item, now: string, queue: readonly Item[]) => Item | undefined;

/** The statuses a selection by `--all` / `--status` may pick for a command. */
function statusesOf(selection: Selection, eligible: readonly ItemStatus[]): readonly ItemStatus[] {
  if (selection.status === undefined) return eligible;
  const wanted = selection.status.split(',').map((s) => s.trim());
  for (const status of wanted) {
    if (!(ITEM_STATUSES as readonly string[]).includes(status))
      throw new InputError(
        `--status: no status ${JSON.stringify(status)} (one of ${ITEM_STATUSES.join(', ')})`,
      );
    if (!(eligible as readonly string[]).includes(status))
      throw new InputError(`--status: items that are ${status} cannot be chosen here`);
  }
  return wanted as ItemStatus[];
}

/**
 * Applies `change` to the selected items under the queue lock, all or none: one refusal leaves
 * the queue as it was. Returns the ids changed.
 */
async function changeItems(
  queueFile: string,
  selection: Selection,
  eligible: readonly ItemStatus[],
  change: Change,
): Promise<string[]> {
  const bulk = selection.all === true || selection.status !== undefined;
  if (bulk && selection.ids.length > 0)
    throw new InputError('give ids, or --all / --status, not both');
  if (!bulk && selection.ids.length === 0)
    throw new InputError('give the id of an item, or --all / --status');
  const statuses = bulk ? statusesOf(selection, eligible) : [];
  const store = new QueueStore(queueFile);
  return store.update((items) => {
    const chosen = bulk
      ? items.filter((item) => statuses.includes(item.status)).map((item) => item.id)
      : selection.ids;
    const now = new Date().toISOString();
    let copy = items.slice();
    for (const id of chosen) {
      const index = copy.findIndex((i) => i.id === id);
      const item = copy[index];
      if (item === undefined) throw new NotFoundError(`no item ${JSON.stringify(id)} in the queue`);
      if (item.status === 'running') {
        throw new InputError(
          `item ${JSON.stringify(id)} is running; pause the runner first ("ralph pause")`,
        );
      }
      const next = change(item, now, items);
      copy = next === undefined ? copy.filter((_, i) => i !== index) : copy.with(index, next);
    }
    return chosen.length === 0 ? { value: chosen } : { items: copy, value: chosen };
  });
}

/** Failed, cancelled or interrupted items go back to the queue, attempts renewed. */
export function retryItems(queueFile: string, selection: Selection): Promise<string[]> {
  return changeItems(queueFile, selection, ['failed', 'cancelled', 'interrupted'], (item, now) => {
    if (item.status === 'pending')
      throw new InputError(`item ${JSON.stringify(item.id)} is already pending`);
    return {
      ...item,
      status: 'pending',
      attempts: 0,
      retryAfter: undefined,
      finishedAt: undefined,
      updatedAt: now,
    };
  });
}

/** Cancelled items stay in the file, never to run. */
export function cancelItems(queueFile: string, selection: Selection): Promise<string[]> {
  return changeItems(queueFile, selection, ['pending', 'interrupted', 'failed'], (item, now) => ({
    ...item,
    status: 'cancelled',
    updatedAt: now,
    claudeSessionId: undefined,
  }));
}

/**
 * Removes items from the queue (their sessions stay archived). An item others depend on is
 * kept unless they go too or `force` is given: they could never run.
 */
export function removeItems(queueFile: string, ids: string[], force: boolean): Promise<string[]> {
  const going = new Set(ids);
  return changeItems(queueFile, { ids }, [], (item, _now, queue) => {
    const left = dependentsOf(item.id, queue).filter((dependent) => !going.has(dependent));
    if (left.length > 0 && !force)
      throw new InputError(
        `${item.id} is a dependency of ${left.join(', ')}: they could never run. Remove them too, change them (ralph edit <id> --depends-on …), or give --force`,
      );
    return undefined;
  });
}
