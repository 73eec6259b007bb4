import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { SessionRecord } from '../archive/record.js';
import type { WorkspacePaths } from '../config/workspace.js';
import { pathExists, readIfExists, writeFileAtomically, writeJsonAtomically } from '../lib/fs.js';
import { compareText } from '../lib/text.js';

/** What the runner waits for, while it waits (`state/waiting.json`). */
export interface Waiting {
  until: string;
  reason: string;
  /** The event that started the wait: `limit_wait`, `window_wait` or `failure_backoff`. */
  event: string;
}

/** An agent CLI the runner holds back (`state/holds.json`): no item starts on it until then. */
export interface HeldCli {
  cli: string;
  /** Absent: not again in this run (its credit or its login is gone). */
  until?: string;
  reason: string;
  kind: string;
}

/** A person's request to stop one running item (`state/stop/<item>.json`). */
export interface ItemStopRequest {
  /** Cancel the item once its session has ended, instead of putting it back in line. */
  cancel: boolean;
  /** Park it (out of line until a person puts it back), instead of putting it back in line. */
  park?: boolean;
  /** Who asked: `cli`, or the HTTP client's address. */
  by: string;
  at: string;
  /** Stopped to be given a message: it resumes its conversation with it, first in line. */
  message?: boolean;
}

/** The interrupt file as a running session's supervision sees it. */
export type InterruptState = 'absent' | 'empty' | 'present';

/** The records of the running sessions (`state/running/<session id>.json`), oldest first. */
export interface RunningSessions {
  records: SessionRecord[];
  /** Files there that are not records (cut short by a crash, or edited). */
  unreadable: string[];
}

/**
 * The one owner of the workspace's control files: the interrupt file (presence pauses the
 * night; its text is the reason), `ralph pause --after-current`'s file, `state/waiting.json`
 * and the running sessions' records in `state/running/`. The runner, the commands and the server read, write and
 * watch them only through this.
 */
export class ControlFiles {
  constructor(private readonly paths: WorkspacePaths) {}

  /** Where one item's stop request is written: watched by the session running it. */
  stopWatch(itemId: string): { dir: string; name: string } {
    return { dir: this.paths.stopRequests, name: `${itemId}.json` };
  }

  /** Asks the runner to stop the session of one item (the rest of the night goes on). */
  async requestStop(itemId: string, request: ItemStopRequest): Promise<void> {
    await fsp.mkdir(this.paths.stopRequests, { recursive: true });
    await writeJsonAtomically(path.join(this.paths.stopRequests, `${itemId}.json`), request);
  }

  /**
   * The stop request of an item, if one waits; a file that is not one (cut short, edited) is a
   * request all the same, to stop without cancelling.
   */
  async stopRequest(itemId: string): Promise<ItemStopRequest | undefined> {
    const text = await readIfExists(path.join(this.paths.stopRequests, `${itemId}.json`));
    if (text === undefined) return undefined;
    try {
      const parsed = JSON.parse(text) as Partial<ItemStopRequest>;
      return {
        cancel: parsed.cancel === true,
        by: typeof parsed.by === 'string' ? parsed.by : 'unknown',
        at: typeof parsed.at === 'string' ? parsed.at : '',
        ...(parsed.park === true ? { park: true } : {}),
        ...(parsed.message === true ? { message: true } : {}),
      };
    } catch {
      return { cancel: false, by: 'unknown', at: '' };
    }
  }

  /** Whether an item's stop request waits, read synchronously (a session's first look). */
  stopRequested(itemId: string): boolean {
    return fs.existsSync(path.join(this.paths.stopRequests, `${itemId}.json`));
  }

  /** Removes an item's stop request once it has been carried out. */
  async clearStopRequest(itemId: string): Promise<void> {
    await fsp.rm(path.join(this.paths.stopRequests, `${itemId}.json`), { force: true });
  }

  /** The interrupt file's path: the agent is told it (`$INTERRUPT_FILE`) to ask for a pause. */
  get interruptFile(): string {
    return this.paths.interruptFile;
  }

  /** Where to watch for the interrupt file (its directory: a re-created file is a new inode). */
  get interruptWatch(): { dir: string; name: string } {
    return { dir: this.paths.state, name: path.basename(this.paths.interruptFile) };
  }

  /** The directory of the running sessions' records. */
  get runningDir(): string {
    return this.paths.running;
  }

  /** The state directory and the names in it whose changes wake a waiting runner. */
  get watched(): { dir: string; names: string[] } {
    return {
      dir: this.paths.state,
      names: [path.basename(this.paths.queue), path.basename(this.paths.interruptFile)],
    };
  }

  /** The pause's reason (trimmed), or undefined when the night is not paused. */
  async pauseReason(): Promise<string | undefined> {
    return (await readIfExists(this.paths.interruptFile))?.trim();
  }

  async isPaused(): Promise<boolean> {
    return pathExists(this.paths.interruptFile);
  }

  /** Pauses the night with a reason (already redacted by the caller). */
  async pause(reason: string): Promise<void> {
    await writeFileAtomically(this.paths.interruptFile, `${reason}\n`);
  }

  /** Asks for a pause once the running item ends (`ralph pause --after-current`). */
  async pauseAfterCurrent(reason: string): Promise<void> {
    await writeFileAtomically(this.paths.pauseAfterCurrent, `${reason}\n`);
  }

  async pendingPauseReason(): Promise<string | undefined> {
    return (await readIfExists(this.paths.pauseAfterCurrent))?.trim();
  }

  /** Turns a pause asked for after the current item into the pause itself; true if there was one. */
  async promotePauseAfterCurrent(): Promise<boolean> {
    try {
      await fsp.rename(this.paths.pauseAfterCurrent, this.paths.interruptFile);
      return true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
      throw error;
    }
  }

  /** Lifts the pause (and one asked for after the current item); returns the reason it had. */
  async resume(): Promise<string | undefined> {
    const reason = await this.pauseReason();
    await fsp.rm(this.paths.pauseAfterCurrent, { force: true });
    await fsp.rm(this.paths.interruptFile, { force: true });
    return reason;
  }

  /**
   * Lifts the pause only if it is still the one `reason` made (a person may have paused the
   * night since, for a reason of their own); says whether it did.
   */
  async resumeIf(reason: string): Promise<boolean> {
    if ((await this.pauseReason()) !== reason.trim()) return false;
    await fsp.rm(this.paths.interruptFile, { force: true });
    return true;
  }

  /**
   * The interrupt file's state, read synchronously (a supervision tick stats it every second).
   * An empty file may be an agent's `echo reason > file` half done.
   */
  interruptState(): InterruptState {
    try {
      return fs.statSync(this.paths.interruptFile).size > 0 ? 'present' : 'empty';
    } catch {
      return 'absent';
    }
  }

  async writeWaiting(waiting: Waiting): Promise<void> {
    await writeJsonAtomically(this.paths.waiting, waiting);
  }

  async clearWaiting(): Promise<void> {
    await fsp.rm(this.paths.waiting, { force: true });
  }

  /** What the runner waits for, if it waits (a file being rewritten reads as no wait). */
  async readWaiting(): Promise<Waiting | undefined> {
    const text = await readIfExists(this.paths.waiting);
    if (text === undefined) return undefined;
    try {
      const value = JSON.parse(text) as Partial<Waiting>;
      return typeof value.until === 'string' &&
        typeof value.reason === 'string' &&
        typeof value.event === 'string'
        ? { until: value.until, reason: value.reason, event: value.event }
        : undefined;
    } catch {
      return undefined;
    }
  }

  /** Says which CLIs are held; none: the file goes. */
  async writeHolds(holds: readonly HeldCli[]): Promise<void> {
    if (holds.length === 0) await fsp.rm(this.paths.holds, { force: true });
    else await writeJsonAtomically(this.paths.holds, { holds });
  }

  /** The CLIs held, as the runner last said (a file being rewritten or edited reads as none). */
  async readHolds(): Promise<HeldCli[]> {
    const text = await readIfExists(this.paths.holds);
    if (text === undefined) return [];
    try {
      const { holds } = JSON.parse(text) as { holds?: unknown };
      if (!Array.isArray(holds)) return [];
      return holds.filter(
        (h): h is HeldCli =>
          typeof h === 'object' &&
          h !== null &&
          typeof (h as HeldCli).cli === 'string' &&
          typeof (h as HeldCli).reason === 'string' &&
          typeof (h as HeldCli).kind === 'string' &&
          ['string', 'undefined'].includes(typeof (h as HeldCli).until),
      );
    } catch {
      return [];
    }
  }

  private runningFile(sessionId: string): string {
    return path.join(this.paths.running, `${sessionId}.json`);
  }

  async writeRunningSession(record: SessionRecord): Promise<void> {
    await fsp.mkdir(this.paths.running, { recursive: true, mode: 0o700 });
    // Not flushed to disk: its processes die with the machine, and the cost a recovery reads
    // for it comes from the CLI's stream, which is not flushed either.
    await writeJsonAtomically(this.runningFile(record.sessionId), record, { durable: false });
  }

  async clearRunningSession(sessionId: string): Promise<void> {
    await fsp.rm(this.runningFile(sessionId), { force: true });
  }

  /** Removes a file of the running directory by name (an unreadable one, after a crash). */
  async removeRunningFile(name: string): Promise<void> {
    await fsp.rm(path.join(this.paths.running, name), { force: true });
  }

  /** The running sessions' records, validated (the validator is loaded only when there are some). */
  async readRunningSessions(): Promise<RunningSessions> {
    const names = (await fsp.readdir(this.paths.running).catch(() => [] as string[])).filter(
      (name) => name.endsWith('.json'),
    );
    const result: RunningSessions = { records: [], unreadable: [] };
    if (names.length === 0) return result;
    const { SessionRecordSchema } = await import('../archive/record.js');
    for (const name of names) {
      const text = await readIfExists(path.join(this.paths.running, name));
      // Gone since the listing: that session has just ended.
      if (text === undefined) continue;
      let raw: unknown;
      try {
        raw = JSON.parse(text);
      } catch {
        raw = undefined;
      }
      const parsed = SessionRecordSchema.safeParse(raw);
      if (parsed.success) result.records.push(parsed.data);
      else result.unreadable.push(name);
    }
    result.records.sort((a, b) => compareText(a.startedAt, b.startedAt));
    return result;
  }
}
