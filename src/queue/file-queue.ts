import { NotFoundError, InputError } from '../lib/errors.js';
import { closureOf, dependentsOf } from './dependencies.js';
import type { Item } from './item.js';
import { FileQueueReader } from './file-queue-reader.js';
import type {
  AddOptions,
  Claim,
  ClaimRequest,
  ClosureCheck,
  ItemChange,
  Queue,
  Selection,
} from './queue.js';
import type { SettlePolicy } from './lease.js';
import { nextWakeTime, selectNext } from './select.js';
import { statusIs, type ItemStatus, holderOf } from './item-status.js';
import {
  chosenOf,
  refuseQueued,
  refuseOrphaningRemoval,
  refuseRetryOfPending,
  refuseRunning,
} from './selection.js';
import {
  applyEvent,
  appliedOrThrow,
  bulkStatusesFor,
  type Applied,
  type ItemEvent,
} from './lifecycle.js';

const byIdOf = (items: readonly Item[]) => new Map(items.map((item) => [item.id, item]));

/**
 * The queue in `state/queue.json`: every operation a read-modify-write of the whole file under
 * its lock (`QueueStore`). One runner holds a workspace, so a lease is the runner's lock: it
 * needs no renewal, and the items a dead runner left running are all orphans.
 */
export class FileQueue extends FileQueueReader implements Queue {
  async dependencyClosure(ids: readonly string[]): Promise<Item[]> {
    return closureOf(ids, byIdOf(await this.list()));
  }

  add(item: Item, options: AddOptions): Promise<void> {
    return this.store.update((items) => {
      const index = items.findIndex((i) => i.id === item.id);
      const others = index === -1 ? items : items.filter((_, i) => i !== index);
      options.check(item, closureOf(item.dependsOn, byIdOf(others)));
      if (index === -1) return { items: [...items, item], value: undefined };
      const existing = items[index] as Item;
      if (!options.replace)
        throw new InputError(
          `an item with id ${JSON.stringify(item.id)} is already queued (use ${options.replaceFlag})`,
        );
      if (holderOf(existing.status) === 'worker')
        throw new InputError(
          `item ${JSON.stringify(item.id)} is running; it cannot be replaced now`,
        );
      return { items: items.with(index, item), value: undefined };
    });
  }

  importItems(added: readonly Item[]): Promise<void> {
    return this.store.update((items) => {
      refuseQueued(added, new Set(items.map((item) => item.id)));
      return { items: [...items, ...added], value: undefined };
    });
  }

  async inStatus(status: ItemStatus): Promise<Item[]> {
    return (await this.list()).filter((item) => item.status === status);
  }

  async apply(id: string, event: ItemEvent, check?: ClosureCheck): Promise<Applied> {
    return this.store.update<Applied>((items) => {
      const index = items.findIndex((item) => item.id === id);
      const applied = applyEvent(items[index], event);
      if (applied.kind === 'refused') return { value: applied };
      check?.(
        applied.item,
        closureOf(applied.item.dependsOn, byIdOf(items.filter((_, i) => i !== index))),
      );
      return { items: items.with(index, applied.item), value: applied };
    });
  }

  applyAll(changes: readonly ItemChange[]): Promise<Item[]> {
    return this.store.update((items) => {
      const indexOf = new Map(items.map((item, index) => [item.id, index]));
      const next = [...items];
      const changed: Item[] = [];
      for (const { id, event } of changes) {
        const index = indexOf.get(id);
        if (index === undefined) continue;
        const applied = applyEvent(next[index], event);
        if (applied.kind === 'refused') continue;
        next[index] = applied.item;
        changed.push(applied.item);
      }
      return { items: changed.length === 0 ? undefined : next, value: changed };
    });
  }

  lockAlone(): Promise<() => Promise<void>> {
    // One runner holds the workspace, and lands one item at a time.
    return Promise.resolve(() => Promise.resolve());
  }

  claim({ sessionId, now, busy, pace }: ClaimRequest): Promise<Claim> {
    return this.store.update<Claim>((items) => {
      const next = selectNext(items, now, busy, pace);
      if (next === undefined) {
        const wakeAt = nextWakeTime(items, now);
        const retryAt = nextWakeTime(items, now, { retriesOnly: true });
        return { value: { wakeAt, retryAt } };
      }
      const claimed = appliedOrThrow(applyEvent(next, { kind: 'claimed', sessionId, now }));
      const queued = items.filter((i) => statusIs(i.status, 'runnable')).length - 1;
      return {
        items: items.map((i) => (i.id === next.id ? claimed : i)),
        value: { item: claimed, queued },
      };
    });
  }

  /** The runner's workspace lock is the lease: nothing to renew. */
  renew(): Promise<void> {
    return Promise.resolve();
  }

  requeueOrphans(
    reason: string,
    policy: SettlePolicy,
    spent: ReadonlyMap<string, number> = new Map(),
  ): Promise<string[]> {
    return this.store.update((items) => {
      const ids: string[] = [];
      const next = items.map((item) => {
        if (holderOf(item.status) !== 'worker') return item;
        ids.push(item.id);
        return appliedOrThrow(
          applyEvent(item, {
            kind: 'runner_died',
            reason,
            policy,
            costUsd: spent.get(item.id) ?? 0,
          }),
        );
      });
      return ids.length > 0 ? { items: next, value: ids } : { value: ids };
    });
  }

  retry(selection: Selection): Promise<string[]> {
    return this.change(selection, 'retried', (item, now) => {
      refuseRetryOfPending(item);
      return appliedOrThrow(applyEvent(item, { kind: 'retried', now, force: selection.force }));
    });
  }

  cancel(selection: Selection): Promise<string[]> {
    return this.change(selection, 'cancelled', (item, now) =>
      appliedOrThrow(applyEvent(item, { kind: 'cancelled', now, force: selection.force })),
    );
  }

  remove(ids: readonly string[], force: boolean): Promise<string[]> {
    const going = new Set(ids);
    return this.change({ ids }, undefined, (item, _now, items) => {
      refuseOrphaningRemoval(item.id, dependentsOf(item.id, items), going, force);
      return undefined;
    });
  }

  quarantine(dir: string, now: number): Promise<{ copy?: string; lastGood?: string }> {
    return this.store.quarantine(dir, now);
  }

  subscribe(): () => void {
    return () => undefined;
  }

  /**
   * Applies `change` to the selected items under the queue lock, all or none: one refusal leaves
   * the queue as it was. `change` returns the new item, or undefined to remove it.
   */
  private change(
    selection: Selection,
    event: 'retried' | 'cancelled' | undefined,
    change: (item: Item, now: number, items: readonly Item[]) => Item | undefined,
  ): Promise<string[]> {
    const chosen = chosenOf(selection, event === undefined ? [] : bulkStatusesFor(event));
    return this.store.update((items) => {
      const ids =
        'ids' in chosen
          ? chosen.ids
          : items.filter((item) => chosen.statuses.includes(item.status)).map((item) => item.id);
      const now = Date.now();
      let copy = items.slice();
      for (const id of ids) {
        const index = copy.findIndex((i) => i.id === id);
        const item = copy[index];
        if (item === undefined)
          throw new NotFoundError(`no item ${JSON.stringify(id)} in the queue`);
        refuseRunning(item);
        const next = change(item, now, items);
        copy = next === undefined ? copy.filter((_, i) => i !== index) : copy.with(index, next);
      }
      return ids.length === 0 ? { value: [...ids] } : { items: copy, value: [...ids] };
    });
  }
}
