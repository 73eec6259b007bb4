import type { Item } from './item.js';
import type { QueueReader, QueueTally } from './queue.js';
import { QueueStore } from './store.js';
import { landingTally, pullRequestTally, questionTally, stalledTally } from './tally.js';
import { holderOf } from './item-status.js';

/**
 * `state/queue.json` as the commands that only look at it read it: without the transitions,
 * selection and scheduling that change it (`FileQueue`), which `status` and `ls` never load.
 */
export class FileQueueReader implements QueueReader {
  readonly store: QueueStore;

  constructor(file: string) {
    this.store = new QueueStore(file);
  }

  get where(): string {
    return this.store.file;
  }

  async list(): Promise<Item[]> {
    return (await this.store.read()).items;
  }

  snapshot(): Promise<{ items: Item[]; version: number }> {
    return this.store.read();
  }

  async tally(): Promise<QueueTally> {
    const { items, version } = await this.store.read();
    const counts: QueueTally['counts'] = {};
    const branches: Record<string, string> = {};
    for (const item of items) {
      counts[item.status] = (counts[item.status] ?? 0) + 1;
      if (holderOf(item.status) === 'worker' && item.branch !== undefined)
        branches[item.id] = item.branch;
    }
    return {
      counts,
      version,
      branches,
      landings: landingTally(items),
      pullRequests: pullRequestTally(items),
      questions: questionTally(items),
      stalled: stalledTally(items),
    };
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}
