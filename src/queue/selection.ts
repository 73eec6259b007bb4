import { InputError } from '../lib/errors.js';
import type { Item } from './item.js';
import type { Chosen, Selection } from './queue.js';
import { ITEM_STATUSES, type ItemStatus, holderOf, freshInLine } from './item-status.js';

/** A selection checked: ids, or the statuses `--all` / `--status` pick among `eligible`. */
export function chosenOf(selection: Selection, eligible: readonly ItemStatus[]): Chosen {
  const bulk = selection.all === true || selection.status !== undefined;
  if (bulk && selection.ids.length > 0)
    throw new InputError('give ids, or --all / --status, not both');
  if (!bulk && selection.ids.length === 0)
    throw new InputError('give the id of an item, or --all / --status');
  if (!bulk) return { ids: selection.ids };
  if (selection.status === undefined) return { statuses: eligible };
  const wanted = selection.status.split(',').map((s) => s.trim());
  for (const status of wanted) {
    if (!(ITEM_STATUSES as readonly string[]).includes(status))
      throw new InputError(
        `--status: no status ${JSON.stringify(status)} (one of ${ITEM_STATUSES.join(', ')})`,
      );
    if (!(eligible as readonly string[]).includes(status))
      throw new InputError(`--status: items that are ${status} cannot be chosen here`);
  }
  return { statuses: wanted as ItemStatus[] };
}

/** Refuses to change a running item by hand: its runner settles it. */
export function refuseRunning(item: Item): void {
  if (holderOf(item.status) === 'worker')
    throw new InputError(
      `item ${JSON.stringify(item.id)} is running; stop it first (ralph stop ${item.id})`,
    );
}

/** Refuses to retry an item that is already pending. */
export function refuseRetryOfPending(item: Item): void {
  if (freshInLine(item.status))
    throw new InputError(`item ${JSON.stringify(item.id)} is already pending`);
}

/** Refuses removing an item others (not removed with it) depend on, unless forced. */
export function refuseOrphaningRemoval(
  id: string,
  dependents: readonly string[],
  going: ReadonlySet<string>,
  force: boolean,
): void {
  const left = dependents.filter((dependent) => !going.has(dependent));
  if (left.length > 0 && !force)
    throw new InputError(
      `${id} is a dependency of ${left.join(', ')}: they could never run. Remove them too, change them (ralph edit <id> --depends-on …), or give --force`,
    );
}

/** Refuses a batch of new items of which some are queued already. */
export function refuseQueued(added: readonly Item[], queued: ReadonlySet<string>): void {
  const taken = added.filter((item) => queued.has(item.id)).map((item) => item.id);
  if (taken.length > 0)
    throw new InputError(
      `already queued: ${taken.slice(0, 10).join(', ')}${taken.length > 10 ? ` and ${taken.length - 10} more` : ''}; nothing was imported`,
    );
}
