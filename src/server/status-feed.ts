import type { Changes } from './changes.js';
import { coalesced } from './coalesced.js';

/**
 * Least time between two computations of the state: during a run the files change many times a
 * second, and the state is read from several of them. A pause still shows within a second.
 */
const MIN_INTERVAL_MS = 250;

/**
 * The workspace's state (the health report) as it changes: computed again after file changes
 * (at most every `MIN_INTERVAL_MS`) while anyone listens, sent on only when it differs. One for
 * the whole server.
 */
export class StatusFeed {
  private readonly listeners = new Set<(json: string) => void>();
  private last: string | undefined;
  private nextAt = 0;

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
      await new Promise((resolve) => setTimeout(resolve, this.nextAt - Date.now()));
      this.nextAt = Date.now() + MIN_INTERVAL_MS;
      const before = this.last;
      const json = await this.current();
      if (json !== before) for (const listener of this.listeners) listener(json);
    },
    () => undefined,
  );
}
