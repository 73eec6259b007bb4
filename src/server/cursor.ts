/**
 * Where a client stands in the night's events, and the SSE id of each event: the log file (named
 * by the time of its first entry, which survives rotation), the byte offset in it after the
 * last entry sent, and the byte offsets in the streams of the sessions open at that point (in
 * the order they started: several with `--workers`). Every event advances one of them, so ids
 * increase; and an id is all a server needs to resume from the files, even one restarted since.
 */
export interface Cursor {
  /** The log file: epoch ms of its first entry (0: no log yet). */
  log: number;
  /** Bytes of that log file read. */
  offset: number;
  /** Bytes read of the streams of the sessions open at `offset`, in the order they started. */
  streams: number[];
}

/** As many sessions as can run at once (`--workers` is at most 16), with room to spare. */
const MAX_STREAMS = 64;

export function formatCursor(cursor: Cursor): string {
  const streams = cursor.streams.length === 0 ? '0' : cursor.streams.join('.');
  return `${cursor.log}-${cursor.offset}-${streams}`;
}

/** Reads an SSE id back; undefined for anything not made by `formatCursor`. */
export function parseCursor(id: string | undefined): Cursor | undefined {
  const match = /^(\d{1,16})-(\d{1,16})-(\d{1,16}(?:\.\d{1,16}){0,63})$/.exec(id?.trim() ?? '');
  if (match === null) return undefined;
  const [log, offset] = [Number(match[1]), Number(match[2])];
  const streams = (match[3] ?? '').split('.').map(Number);
  if (![log, offset, ...streams].every(Number.isSafeInteger) || streams.length > MAX_STREAMS)
    return undefined;
  return { log, offset, streams };
}

/**
 * Negative, zero or positive as `a` comes before, with or after `b`. At one place in the log the
 * same sessions are open, and each stream event advances one of them: their sum orders them.
 */
export function compareCursors(a: Cursor, b: Cursor): number {
  const sum = (streams: number[]) => streams.reduce((total, n) => total + n, 0);
  return a.log - b.log || a.offset - b.offset || sum(a.streams) - sum(b.streams);
}
