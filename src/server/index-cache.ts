import fsp from 'node:fs/promises';
import type { IndexEntry } from '../archive/index-entry.js';
import { indexFile, parseIndexLines } from '../archive/index.js';
import { fleetIndex } from '../workspace/sessions.js';
import type { Queue } from '../queue/queue.js';

/**
 * The session index (`docs/sessions/index.jsonl`) kept in memory and read on from where it was
 * left: the file only grows, by whole lines, so a request reads just what was appended since
 * the last one. A file that shrank was replaced, and is read again from its start.
 */
export class IndexCache {
  private entries: IndexEntry[] = [];
  private read = 0;
  private skipped = 0;
  /** The read under way: requests at once share it, so none reads the same bytes twice. */
  private inFlight: Promise<void> | undefined;

  constructor(private readonly sessionsDir: string) {}

  /** Every entry, oldest first, and how many lines could not be read. */
  async current(): Promise<{ entries: readonly IndexEntry[]; skipped: number }> {
    while (this.inFlight !== undefined) await this.inFlight;
    const refresh = this.refresh().finally(() => {
      if (this.inFlight === refresh) this.inFlight = undefined;
    });
    this.inFlight = refresh;
    await refresh;
    return { entries: this.entries, skipped: this.skipped };
  }

  private async refresh(): Promise<void> {
    const file = indexFile(this.sessionsDir);
    const size = (await fsp.stat(file).catch(() => undefined))?.size ?? 0;
    if (size < this.read) {
      this.entries = [];
      this.read = 0;
      this.skipped = 0;
    }
    if (size > this.read) await this.readOn(file, size);
  }

  private async readOn(file: string, size: number): Promise<void> {
    const handle = await fsp.open(file, 'r');
    try {
      const bytes = Buffer.alloc(size - this.read);
      const { bytesRead } = await handle.read(bytes, 0, bytes.length, this.read);
      const text = bytes.subarray(0, bytesRead).toString('utf8');
      // Only whole lines: one being appended is read next time.
      const whole = text.lastIndexOf('\n') + 1;
      const { entries, skipped } = parseIndexLines(text.slice(0, whole));
      for (const entry of entries) this.entries.push(entry);
      this.skipped += skipped;
      this.read += Buffer.byteLength(text.slice(0, whole));
    } finally {
      await handle.close();
    }
  }
}

/** The sessions the server shows: this workspace's index, or its fleet's. */
export function indexOf(ctx: {
  index: IndexCache;
  queue: Queue;
}): Promise<{ entries: readonly IndexEntry[]; skipped: number }> {
  return ctx.queue.fleet === undefined ? ctx.index.current() : fleetIndex(ctx.queue);
}
