import { constants as fsConstants } from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import {
  ContentionError,
  CorruptStateError,
  InputError,
  RalphError,
  isErrnoException,
} from '../lib/errors.js';
import { recordDigest, wroteItself } from '../lib/digest.js';
import { ensurePrivateDir, parseJsonText, writeFileAtomically } from '../lib/fs.js';
import { formatIssues, issuePath } from '../lib/validation.js';
import { QUEUE_SCHEMA, migrateQueueFile, queueFileText } from './file-schema.js';
import type { Item, QueueFile } from './item.js';

/** What a mutation of the queue returns: new items to write (or none) and a value. */
export interface QueueChange<T> {
  items?: Item[];
  value: T;
}

/** A file's identity, to tell whether someone wrote it since we read it. */
interface Fingerprint {
  ino: number;
  size: number;
  mtimeMs: number;
}

/** The lock was taken from this writer mid-change; the change was not written. */
class LockLostError extends ContentionError {}

/** How many times a change is made again after its lock was taken from it. */
const LOCK_LOST_RETRIES = 3;

const EMPTY: QueueFile = { schema: QUEUE_SCHEMA, version: 0, items: [] };
/** How long to wait for a half-written file (an editor saving) before calling it malformed. */
const SETTLE_DELAYS_MS = [50, 150, 300, 500];

/**
 * The one owner of `state/queue.json`. Every change is a read-modify-write under the queue
 * lock, checked against the file's fingerprint and written atomically, so concurrent `ralph add`
 * calls, a live runner and a person editing the file by hand never lose each other's writes.
 */
export class QueueStore {
  /** The last queue text this process read or wrote that was valid: what a quarantine keeps. */
  private lastGood: string | undefined;

  constructor(readonly file: string) {}

  /** Reads and validates the queue (no lock: a consistent snapshot thanks to atomic writes). */
  async read(): Promise<QueueFile> {
    return (await this.readWithFingerprint()).queue;
  }

  /**
   * Runs `mutate` on the current items under the lock and writes the result, if any. A lock
   * taken from us while we held it (our event loop stalled past `stale`) refuses the write, and
   * the whole change is made again under a new lock: the other writer's change is kept.
   */
  async update<T>(mutate: (items: Item[]) => QueueChange<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.updateUnderLock(mutate);
      } catch (error) {
        if (!(error instanceof LockLostError) || attempt >= LOCK_LOST_RETRIES) throw error;
      }
    }
  }

  private async updateUnderLock<T>(mutate: (items: Item[]) => QueueChange<T>): Promise<T> {
    let compromised: Error | undefined;
    const release = await this.lock((error) => {
      compromised = error;
    });
    try {
      for (let round = 0; ; round++) {
        const { queue, fingerprint } = await this.readWithFingerprint();
        const change = mutate(queue.items.slice());
        if (change.items === undefined) return change.value;
        if (compromised !== undefined) {
          throw new LockLostError(
            `lost the lock on ${this.file} (${compromised.message}); nothing written`,
          );
        }
        // A person may save the file by hand while we hold the lock: never write back a stale copy.
        if (!sameFingerprint(fingerprint, await this.fingerprint())) {
          if (round < 5) continue;
          throw new ContentionError(`${this.file} keeps changing under the lock; nothing written`);
        }
        const text = queueFileText(queue.version + 1, change.items);
        await writeFileAtomically(this.file, text);
        this.lastGood = text;
        // Written after the queue: a crash in between leaves an old digest, which only costs a
        // full validation on the next read.
        await recordDigest(this.file, text);
        return change.value;
      }
    } finally {
      await release().catch(() => undefined);
    }
  }

  /**
   * Sets a malformed queue file aside for the operator without touching it: a copy of its bytes
   * and, when this process has one, the last valid queue it saw, both in `dir`.
   */
  async quarantine(dir: string, now: number): Promise<{ copy?: string; lastGood?: string }> {
    await ensurePrivateDir(dir);
    const stamp = new Date(now).toISOString().replace(/[:.]/g, '-');
    const name = path.basename(this.file, '.json');
    const base = path.join(dir, `${name}-${stamp}`);
    const result: { copy?: string; lastGood?: string } = {};
    const bad = await fsp.readFile(this.file).catch(() => undefined);
    // One breakage is set aside once, however many operations (or runners) find it.
    const kept = bad === undefined ? undefined : await keptCopy(dir, name, bad);
    if (kept !== undefined) return kept;
    if (bad !== undefined) {
      result.copy = `${base}.bad.json`;
      await writeFileAtomically(result.copy, bad);
    }
    if (this.lastGood !== undefined) {
      result.lastGood = `${base}.last-good.json`;
      await writeFileAtomically(result.lastGood, this.lastGood);
    }
    return result;
  }

  private async lock(onCompromised: (error: Error) => void): Promise<() => Promise<void>> {
    // The lock would retry a read-only or forbidden directory for half a minute: fail at once.
    await fsp.access(path.dirname(this.file), fsConstants.W_OK);
    const { default: lockfile } = await import('proper-lockfile');
    try {
      return await lockfile.lock(this.file, {
        realpath: false,
        stale: 15_000,
        update: 3_000,
        retries: { retries: 400, factor: 1.3, minTimeout: 5, maxTimeout: 100, randomize: true },
        onCompromised,
      });
    } catch (error) {
      if (isErrnoException(error) && error.code === 'ELOCKED') {
        throw new ContentionError(`${this.file} stayed locked by another process; nothing written`);
      }
      throw error;
    }
  }

  private async fingerprint(): Promise<Fingerprint | undefined> {
    try {
      const stat = await fsp.lstat(this.file);
      // Never read or write through a planted link (its target would leak into error messages).
      if (stat.isSymbolicLink())
        throw new RalphError(`${this.file} is a symbolic link; ralph does not write through links`);
      return { ino: stat.ino, size: stat.size, mtimeMs: stat.mtimeMs };
    } catch (error) {
      if (isErrnoException(error) && error.code === 'ENOENT') return undefined;
      throw error;
    }
  }

  private async readWithFingerprint(): Promise<{ queue: QueueFile; fingerprint?: Fingerprint }> {
    let lastError: unknown;
    let lastText: string | undefined;
    for (const delay of [0, ...SETTLE_DELAYS_MS]) {
      if (delay > 0) await new Promise((resolve) => setTimeout(resolve, delay));
      const fingerprint = await this.fingerprint();
      let text: string;
      try {
        text = await fsp.readFile(this.file, 'utf8');
      } catch (error) {
        if (isErrnoException(error) && error.code === 'ENOENT') return { queue: EMPTY };
        throw error;
      }
      try {
        const queue = await this.parse(text);
        this.lastGood = text;
        return { queue, fingerprint };
      } catch (error) {
        // The same bad bytes twice in a row are not a save in progress.
        if (text === lastText) throw toCorrupt(error, this.file);
        lastError = error;
        lastText = text;
      }
    }
    throw toCorrupt(lastError, this.file);
  }

  private async parse(text: string): Promise<QueueFile> {
    const read = parseJsonText(text, this.file);
    // Bytes this release wrote itself were validated before they were written: only a change
    // made by anyone else (a person's editor, a stray tool, another release) is validated again,
    // item by item. On a 100,000-item queue this saves most of the cost of a read.
    if (await wroteItself(this.file, text)) return read as QueueFile;
    const raw = migrateQueueFile(this.file, read);
    const { QueueFileSchema } = await import('./item.js');
    const parsed = QueueFileSchema.safeParse(raw);
    if (parsed.success) return parsed.data;
    const items = (raw as { items?: unknown }).items;
    throw new InputError(
      formatIssues(this.file, parsed.error, (path) => describeItemPath(path, items)),
    );
  }
}

/**
 * A queue file given to import (another workspace's queue, an export): validated whole. A
 * missing, unreadable or empty file is bad input naming it, never an empty queue: importing
 * nothing from a mistyped path must not look like success.
 */
export async function readQueueFileToImport(file: string): Promise<QueueFile> {
  let text: string;
  try {
    text = await fsp.readFile(file, 'utf8');
  } catch (error) {
    const code = isErrnoException(error) ? error.code : undefined;
    const why =
      code === 'ENOENT'
        ? 'there is no such file'
        : code === 'EISDIR'
          ? 'it is a directory'
          : `it cannot be read (${code ?? String(error)})`;
    throw new InputError(
      `${file}: ${why}; give the path of a queue file (ralph queue export writes one)`,
    );
  }
  if (text.trim() === '')
    throw new InputError(
      `${file} is empty: a queue file holds {"items": [...]}; nothing was imported`,
    );
  const raw = asInput(() => migrateQueueFile(file, parseJsonText(text, file)));
  const { QueueFileSchema } = await import('./item.js');
  const parsed = QueueFileSchema.safeParse(raw);
  if (parsed.success) return parsed.data;
  const items = (raw as { items?: unknown } | null)?.items;
  throw new InputError(formatIssues(file, parsed.error, (path) => describeItemPath(path, items)));
}

/** A file given to a command is its input, not ralph's state: its problems are bad input. */
function asInput<T>(read: () => T): T {
  try {
    return read();
  } catch (error) {
    if (error instanceof CorruptStateError) throw new InputError(error.message);
    throw error;
  }
}

function sameFingerprint(a: Fingerprint | undefined, b: Fingerprint | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  return a.ino === b.ino && a.size === b.size && a.mtimeMs === b.mtimeMs;
}

function toCorrupt(error: unknown, file: string): Error {
  if (error instanceof InputError) {
    return new CorruptStateError(
      `${error.message}\nThe file was left as it is; fix it and run again.`,
      file,
    );
  }
  return error instanceof Error ? error : new Error(String(error));
}

/** `items[3].maxTurns` becomes `item "fix-login" (items[3]).maxTurns`. */
function describeItemPath(path: readonly PropertyKey[], items: unknown): string {
  const [head, index, ...rest] = path;
  if (head !== 'items' || typeof index !== 'number' || !Array.isArray(items))
    return issuePath(path);
  const id = (items[index] as { id?: unknown } | undefined)?.id;
  const name =
    typeof id === 'string' ? `item ${JSON.stringify(id)} (items[${index}])` : `items[${index}]`;
  return rest.length > 0 ? `${name}.${issuePath(rest)}` : name;
}

/** The pair an earlier quarantine made of the very same bad bytes, if there is one. */
async function keptCopy(
  dir: string,
  name: string,
  bad: Buffer,
): Promise<{ copy?: string; lastGood?: string } | undefined> {
  const names = await fsp.readdir(dir).catch(() => [] as string[]);
  for (const entry of names.filter((n) => n.startsWith(`${name}-`) && n.endsWith('.bad.json'))) {
    const copy = path.join(dir, entry);
    const text = await fsp.readFile(copy).catch(() => undefined);
    if (text === undefined || !text.equals(bad)) continue;
    const lastGood = copy.replace(/\.bad\.json$/, '.last-good.json');
    const hasLastGood = await fsp.access(lastGood).then(
      () => true,
      () => false,
    );
    return hasLastGood ? { copy, lastGood } : { copy };
  }
  return undefined;
}
