import type { Changes } from './changes.js';
import { coalesced } from './coalesced.js';

/**
 * The workspace's state (the health report) as it changes: computed again after file changes
 * while anyone listens, sent on only when it differs. One for the whole server.
 */
export class StatusFeed {
  private readonly listeners = new Set<(json: string) => void>();
  private last: string | undefined;

  constructor(
    private readonly compute: () => Promise<unknown>,
    changes: Changes,
  ) {
    changes.subscribe(() => this.refresh());
  }

  /** The state now, as JSON. */
  async current(): Promise<string> {
    this.last = JSON.stringify(await this.compute());
    return this.last;
  }

  /** Calls `listener` with each new state; returns the unsubscribe function. */
  subscribe(listener: (json: string) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private readonly refresh = coalesced(
    async () => {
      if (this.listeners.size === 0) return;
      const before = this.last;
      const json = await this.current();
      if (json !== before) for (const listener of this.listeners) listener(json);
    },
    () => undefined,
  );
}
