import { decoderOf } from '../agent/clis/index.js';
import type { Redactor } from '../lib/redact.js';
import { sessionFiles } from '../archive/paths.js';
import { formatCursor, type Cursor } from './cursor.js';
import { LogFile, type Line } from './log-file.js';
import { SessionStream, type StreamEntry } from './session-stream.js';

/** One event of `GET /events`: a runner log entry, or a parsed line of the running session. */
export type NightEvent =
  | { id: string; type: 'runner'; data: Record<string, unknown> }
  | {
      id: string;
      type: 'stream';
      data: { session: string; item: string } & Record<string, unknown>;
    };

/** The files a reader follows. */
export interface NightFiles {
  log: string;
  sessions: string;
}

interface OpenSession {
  id: string;
  item: string;
  stream: SessionStream;
}

type Entry = { event?: unknown; session?: unknown; item?: unknown; cli?: unknown };

/** Log events that open and close a session's stream. */
const OPENS = 'session_started';
const CLOSES = new Set(['session_ended', 'orphan_session_recovered']);

function parseEntry(line: Line): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(line.text);
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Follows the night through its files from a cursor: the runner's log and, between a
 * `session_started` and its end, that session's stream (several at once with `--workers`). Each call of `next` returns what the
 * files hold beyond the cursor, in order, each event with the cursor just after it as its id.
 * A session's stream is read to its end before the entry that closes it, so an id says exactly
 * which events came before it, which is what makes a resumption from an id lose nothing.
 */
export class NightReader {
  private constructor(
    private readonly files: NightFiles,
    private readonly redactor: Redactor,
    private log: LogFile | undefined,
    private offset: number,
    /** The sessions open at `offset`, in the order they started. */
    private readonly open: OpenSession[],
  ) {}

  /**
   * A reader from `from`; without one, from now, with the running session's stream from its
   * start (a new client sees what the agent did so far).
   */
  static async at(
    files: NightFiles,
    redactor: Redactor,
    from: Cursor | undefined,
  ): Promise<NightReader> {
    const current = await LogFile.open(files.log);
    const rotated = await LogFile.open(`${files.log}.1`);
    const older = rotated === undefined || rotated.tag === current?.tag ? [] : [rotated];
    const start = placeOf(from, current, older[0]);
    // From now: after the last complete entry.
    if (from === undefined && current !== undefined)
      start.offset = (await current.linesFrom(0)).at(-1)?.end ?? 0;
    const scanned = start.log === current ? [...older, current] : [start.log];
    const open = await openSessionsAt(scanned, start.log, start.offset);
    for (const file of [current, rotated]) if (file !== start.log) await file?.close();
    const reader = new NightReader(files, redactor, start.log, start.offset, []);
    open.forEach(({ id, item, cli }, i) =>
      reader.openSession(id, item, cli, start.streams[i] ?? 0),
    );
    return reader;
  }

  /** The cursor after the last event returned. */
  get cursor(): Cursor {
    return {
      log: this.log?.tag ?? 0,
      offset: this.offset,
      streams: this.open.map((o) => o.stream.position),
    };
  }

  /** Everything the files hold beyond the cursor now. */
  async next(): Promise<NightEvent[]> {
    const events: NightEvent[] = [];
    for (;;) {
      await this.drainStreams(events);
      const before = events.length;
      await this.readLog(events);
      if (events.length === before) return events;
    }
  }

  async close(): Promise<void> {
    for (const open of this.open) await open.stream.close();
    await this.log?.close();
  }

  private async readLog(events: NightEvent[]): Promise<void> {
    if (this.log === undefined) {
      this.log = await LogFile.open(this.files.log);
      this.offset = 0;
      if (this.log === undefined) return;
    }
    // Asked before reading: a generation found rotated away and then read to its end has no
    // line left that was written before the rotation.
    const rotated = !(await this.log.isAt(this.files.log));
    const lines = await this.log.linesFrom(this.offset);
    if (lines.length === 0) {
      // At the end of a generation the runner has rotated away: go on in the new file.
      if (rotated) {
        const next = await LogFile.open(this.files.log);
        if (next === undefined) return;
        await this.log.close();
        this.log = next;
        this.offset = 0;
        await this.readLog(events);
      }
      return;
    }
    for (const line of lines) {
      const entry = parseEntry(line);
      if (entry !== undefined) await this.apply(entry, events);
      this.offset = line.end;
      if (entry !== undefined)
        events.push({
          id: formatCursor(this.cursor),
          type: 'runner',
          data: this.redactor.redactValue(entry),
        });
    }
  }

  /** A session opens or closes: its stream is read to the end before the entry that closes it. */
  private async apply(entry: Entry, events: NightEvent[]): Promise<void> {
    const session = typeof entry.session === 'string' ? entry.session : undefined;
    if (session === undefined) return;
    if (entry.event === OPENS) {
      // A session id opens once; an entry seen again (a replayed log) reopens nothing.
      if (!this.open.some((o) => o.id === session))
        this.openSession(session, stringOf(entry.item), stringOf(entry.cli), 0);
    } else if (CLOSES.has(String(entry.event))) {
      const index = this.open.findIndex((o) => o.id === session);
      if (index < 0) return;
      await this.drainStreams(events);
      await this.closeSession(index, events);
    }
  }

  private openSession(id: string, item: string, cli: string, from: number): void {
    const file = sessionFiles(this.files.sessions, id).stdout;
    const stream = new SessionStream(file, from, this.redactor, decoderOf(cli)());
    this.open.push({ id, item, stream });
  }

  private async closeSession(index: number, events: NightEvent[]): Promise<void> {
    const open = this.open[index];
    if (open === undefined) return;
    this.push(index, events, open.stream.finish());
    await open.stream.close();
    this.open.splice(index, 1);
  }

  private async drainStreams(events: NightEvent[]): Promise<void> {
    for (let i = 0; i < this.open.length; i++)
      this.push(i, events, await (this.open[i] as OpenSession).stream.next());
  }

  private push(index: number, events: NightEvent[], entries: StreamEntry[]): void {
    const open = this.open[index];
    if (open === undefined) return;
    for (const { event, end } of entries) {
      const streams = this.open.map((o, i) => (i === index ? end : o.stream.position));
      const id = formatCursor({ log: this.log?.tag ?? 0, offset: this.offset, streams });
      events.push({ id, type: 'stream', data: { session: open.id, item: open.item, ...event } });
    }
  }
}

/** Where a cursor points in the log files there are; from their start if it is older. */
function placeOf(
  from: Cursor | undefined,
  current: LogFile | undefined,
  rotated: LogFile | undefined,
): { log: LogFile | undefined; offset: number; streams: number[] } {
  if (from === undefined) return { log: current, offset: 0, streams: [] };
  if (current !== undefined && from.log === current.tag)
    return { log: current, offset: from.offset, streams: from.streams };
  if (rotated !== undefined && from.log === rotated.tag)
    return { log: rotated, offset: from.offset, streams: from.streams };
  return { log: rotated ?? current, offset: 0, streams: [] };
}

/** The sessions open at a point of the log (started, not yet ended), in the order they started. */
async function openSessionsAt(
  files: (LogFile | undefined)[],
  at: LogFile | undefined,
  offset: number,
): Promise<{ id: string; item: string; cli: string }[]> {
  const open: { id: string; item: string; cli: string }[] = [];
  for (const file of files) {
    if (file === undefined) continue;
    for (const line of await file.linesFrom(0)) {
      if (file === at && line.end > offset) break;
      if (!line.text.includes('session_')) continue;
      const entry = parseEntry(line) as Entry | undefined;
      const session = entry?.session;
      if (typeof session !== 'string') continue;
      const index = open.findIndex((o) => o.id === session);
      if (entry?.event === OPENS && index < 0)
        open.push({ id: session, item: stringOf(entry.item), cli: stringOf(entry.cli) });
      else if (CLOSES.has(String(entry?.event)) && index >= 0) open.splice(index, 1);
    }
  }
  return open;
}

const stringOf = (value: unknown) => (typeof value === 'string' ? value : '');
