/**
 * Where a client stands in the night's events, and the SSE id of each event: the log file (named
 * by the time of its first entry, which survives rotation), the byte offset in it after the
 * last entry sent, and the byte offset in the stream of the session open at that point. Every
 * event advances one of them, so ids increase in this order; and an id is all a server needs to
 * resume from the files, even one restarted since.
 */
export interface Cursor {
  /** The log file: epoch ms of its first entry (0: no log yet). */
  log: number;
  /** Bytes of that log file read. */
  offset: number;
  /** Bytes read of the stream of the session open at `offset` (0 when none is). */
  stream: number;
}

export const START: Cursor = { log: 0, offset: 0, stream: 0 };

export function formatCursor(cursor: Cursor): string {
  return `${cursor.log}-${cursor.offset}-${cursor.stream}`;
}

/** Reads an SSE id back; undefined for anything not made by `formatCursor`. */
export function parseCursor(id: string | undefined): Cursor | undefined {
  const match = /^(\d{1,16})-(\d{1,16})-(\d{1,16})$/.exec(id?.trim() ?? '');
  if (match === null) return undefined;
  const [log, offset, stream] = match.slice(1).map(Number) as [number, number, number];
  if (![log, offset, stream].every(Number.isSafeInteger)) return undefined;
  return { log, offset, stream };
}

/** Negative, zero or positive as `a` comes before, with or after `b`. */
export function compareCursors(a: Cursor, b: Cursor): number {
  return a.log - b.log || a.offset - b.offset || a.stream - b.stream;
}
