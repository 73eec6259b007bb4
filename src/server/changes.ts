import type fs from 'node:fs';
import { watchNames } from '../lib/watch.js';

/** How often the files are looked at when no watch event came (watches can miss on some file systems). */
const POLL_MS = 1000;
/**
 * File events closer together than this make one notification: a runner's step writes several
 * files at once (queue, record, budget, their temp files), and each client reads them once.
 */
const SETTLE_MS = 15;

/**
 * Tells listeners that the workspace's files may have changed: inotify watches of the state and
 * sessions directories, and a slow poll behind them. One for the whole server, however many
 * clients listen.
 */
export class Changes {
  private readonly listeners = new Set<() => void>();
  private readonly watchers: fs.FSWatcher[] = [];
  private readonly timer: NodeJS.Timeout;
  private scheduled = false;

  constructor(dirs: readonly string[]) {
    for (const dir of dirs) {
      const watcher = watchNames(dir, undefined, () => this.notify());
      if (watcher !== undefined) this.watchers.push(watcher);
    }
    this.timer = setInterval(() => this.notify(), POLL_MS);
    this.timer.unref();
  }

  /** Calls `listener` after each change; returns the unsubscribe function. */
  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** A burst of file events makes one call, `SETTLE_MS` after its first. */
  private notify(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setTimeout(() => {
      this.scheduled = false;
      for (const listener of this.listeners) listener();
    }, SETTLE_MS).unref();
  }

  close(): void {
    clearInterval(this.timer);
    for (const watcher of this.watchers) watcher.close();
    this.listeners.clear();
  }
}
