import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import * as z from '../lib/zod.js';
import { makePrivateDirs, writeJsonAtomically } from '../lib/fs.js';
import type { NotifyMessage, Recipient } from './message.js';

/** One target's delivery of an entry. */
export interface Delivery {
  target: Recipient;
  attempts: number;
  /** Not before this time (a backoff after a failed try). */
  nextAt?: string;
  sentAt?: string;
  lastError?: string;
  /** Given up after failing this long (its error kept). */
  gaveUpAt?: string;
}

/** A message and its deliveries, as kept until each is sent or given up. */
export interface OutboxEntry {
  id: string;
  createdAt: string;
  message: NotifyMessage;
  deliveries: Delivery[];
}

const EntrySchema = z.looseObject({
  id: z.string(),
  createdAt: z.string(),
  message: z.looseObject({ events: z.array(z.string()), title: z.string(), text: z.string() }),
  deliveries: z.array(z.looseObject({ target: z.looseObject({ kind: z.string() }) })),
});

/**
 * An id that sorts as the messages were made (by time, then by `sequence` within a runner's
 * millisecond) and is safe as a file name.
 */
export function entryId(now: number, sequence: number, what: string): string {
  const safe = what.replace(/[^A-Za-z0-9._-]+/g, '-').slice(0, 80);
  const at = new Date(now).toISOString().replace(/[:.]/g, '-');
  return `${at}-${String(sequence).padStart(6, '0')}-${safe}`;
}

/**
 * `state/outbox/`: every message is written here before it is sent, so that a crash neither
 * loses it (the next runner sends it) nor sends it twice (each target's delivery is recorded as
 * it is made); delivered entries move to `sent/`, where reports read them.
 */
export class Outbox {
  readonly sentDir: string;
  private made: Promise<void> | undefined;

  constructor(readonly dir: string) {
    this.sentDir = path.join(dir, 'sent');
  }

  private fileOf(id: string, sent = false): string {
    return path.join(sent ? this.sentDir : this.dir, `${id}.json`);
  }

  /** Writes an entry (new, or with its deliveries updated). */
  async put(entry: OutboxEntry): Promise<void> {
    // Made once: a message a try would otherwise ask for its directories again.
    this.made ??= makePrivateDirs(this.sentDir).catch((error: unknown) => {
      this.made = undefined;
      throw error;
    });
    await this.made;
    await writeJsonAtomically(this.fileOf(entry.id), entry);
  }

  /** Whether an entry of this id was ever written (waiting or sent). */
  has(id: string): boolean {
    return fs.existsSync(this.fileOf(id)) || fs.existsSync(this.fileOf(id, true));
  }

  /** Every entry waiting, oldest first; one that cannot be read is left where it is. */
  async waiting(): Promise<OutboxEntry[]> {
    return this.read(this.dir);
  }

  /** The entries delivered (or given up), oldest first. */
  async sent(): Promise<OutboxEntry[]> {
    return this.read(this.sentDir);
  }

  /** Moves an entry whose every delivery is over to `sent/`. */
  async close(entry: OutboxEntry): Promise<void> {
    await writeJsonAtomically(this.fileOf(entry.id, true), entry);
    await fsp.rm(this.fileOf(entry.id), { force: true });
  }

  private async read(dir: string): Promise<OutboxEntry[]> {
    const names = await fsp.readdir(dir).catch(() => [] as string[]);
    const entries: OutboxEntry[] = [];
    for (const name of names.filter((n) => n.endsWith('.json')).sort()) {
      const text = await fsp.readFile(path.join(dir, name), 'utf8').catch(() => undefined);
      if (text === undefined) continue;
      try {
        const parsed = EntrySchema.safeParse(JSON.parse(text));
        if (parsed.success) entries.push(parsed.data as unknown as OutboxEntry);
      } catch {
        // A torn file is not possible (atomic writes); one edited by hand is skipped.
      }
    }
    return entries;
  }
}
