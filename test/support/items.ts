import type { Item } from '../../src/queue/item.js';

/** A pending item as `ralph add` would queue it, with `fields` over the defaults. */
export function queueItem(id: string, fields: Partial<Item> = {}): Item {
  return {
    id,
    title: `Item ${id}`,
    priority: 0,
    status: 'pending',
    attempts: 0,
    dependsOn: [],
    vars: {},
    sessions: [],
    costUsd: 0,
    ...fields,
  };
}
