import fsp, { type FileHandle } from 'node:fs/promises';

const CHUNK = 64 * 1024;
const NEWLINE = 0x0a;

/** One complete line of a file and the byte offset just after it. */
export interface Line {
  text: string;
  end: number;
}

/**
 * One generation of the runner's log (`iteration.log`, or `iteration.log.1` after a rotation),
 * held open so that what it holds can still be read after the runner renames it.
 */
export class LogFile {
  private constructor(
    private readonly handle: FileHandle,
    /** Names the generation in cursors: the epoch ms of its first entry. */
    readonly tag: number,
    readonly ino: number,
  ) {}

  /** The file at `path`, once it holds a first entry; undefined before. */
  static async open(path: string): Promise<LogFile | undefined> {
    const handle = await fsp.open(path, 'r').catch(() => undefined);
    if (handle === undefined) return undefined;
    try {
      const { ino } = await handle.stat();
      const [first] = await readLines(handle, 0, CHUNK);
      const tag = first === undefined ? undefined : tagOf(first.text, ino);
      if (tag !== undefined) return new LogFile(handle, tag, ino);
    } catch {
      // Unreadable now: the caller tries again on the next change.
    }
    await handle.close();
    return undefined;
  }

  /** The complete lines from `from` on (a line still being written waits for its newline). */
  async linesFrom(from: number): Promise<Line[]> {
    return readLines(this.handle, from, Infinity);
  }

  /** Whether `path` names this generation still (not a newer file after a rotation). */
  async isAt(path: string): Promise<boolean> {
    const stat = await fsp.stat(path).catch(() => undefined);
    return stat?.ino === this.ino;
  }

  async close(): Promise<void> {
    await this.handle.close().catch(() => undefined);
  }
}

/** The first entry's time; the inode when a first line has none (a log written by hand). */
function tagOf(firstLine: string, ino: number): number {
  try {
    const time = Date.parse((JSON.parse(firstLine) as { time?: unknown }).time as string);
    if (Number.isSafeInteger(time) && time > 0) return time;
  } catch {
    // Not an entry: named by its inode.
  }
  return ino;
}

/** Reads complete lines from `from` until end of file or `limit` bytes. */
async function readLines(handle: FileHandle, from: number, limit: number): Promise<Line[]> {
  const lines: Line[] = [];
  const buffer = Buffer.allocUnsafe(CHUNK);
  let pending: Buffer[] = [];
  let position = from;
  while (position - from < limit) {
    const { bytesRead } = await handle.read(buffer, 0, CHUNK, position);
    if (bytesRead <= 0) break;
    const chunk = buffer.subarray(0, bytesRead);
    let start = 0;
    for (let i = chunk.indexOf(NEWLINE); i !== -1; i = chunk.indexOf(NEWLINE, start)) {
      lines.push({
        text: Buffer.concat([...pending, chunk.subarray(start, i)]).toString('utf8'),
        end: position + i + 1,
      });
      pending = [];
      start = i + 1;
    }
    if (start < bytesRead) pending.push(Buffer.from(chunk.subarray(start)));
    position += bytesRead;
  }
  return lines;
}
