import fsp, { type FileHandle } from 'node:fs/promises';
import type { Redactor } from '../lib/redact.js';
import type { StreamDecoder } from '../stream/decoder.js';
import { StreamParser, type ParsedLine } from '../stream/parser.js';

const CHUNK = 256 * 1024;
const NEWLINE = 0x0a;

/** A parsed line of a session's stream and the byte offset just after it. */
export interface StreamEntry {
  event: ParsedLine;
  end: number;
}

/**
 * Reads one session's archived stream (`<id>.ndjson`) from a line boundary on, as parsed and
 * redacted events with their positions; it may be read again as the agent writes more.
 * Partial-message deltas are left out: the assistant message that follows holds their text.
 */
export class SessionStream {
  private handle: FileHandle | undefined;
  private readonly parser: StreamParser;
  private parsed: ParsedLine[] = [];
  /** Bytes fed to the parser, the last line's fragment included. */
  private read = 0;

  constructor(
    private readonly file: string,
    /** Where the last complete line ends: every entry read is after it. */
    private committed: number,
    private readonly redactor: Redactor,
    decoder: StreamDecoder,
  ) {
    this.read = committed;
    this.parser = new StreamParser((parsed) => {
      if (parsed.kind !== 'delta') this.parsed.push(this.redactor.redactValue(parsed));
    }, decoder);
  }

  /** Offset after the last complete line read. */
  get position(): number {
    return this.committed;
  }

  /** What the file holds now beyond what was read, up to `limit` bytes (all by default). */
  async next(limit = Infinity): Promise<StreamEntry[]> {
    this.handle ??= await fsp.open(this.file, 'r').catch(() => undefined);
    if (this.handle === undefined) return [];
    const entries: StreamEntry[] = [];
    const buffer = Buffer.allocUnsafe(CHUNK);
    const from = this.read;
    while (this.read - from < limit) {
      const { bytesRead } = await this.handle.read(buffer, 0, CHUNK, this.read);
      if (bytesRead <= 0) break;
      const chunk = buffer.subarray(0, bytesRead);
      let start = 0;
      // Line by line, so that each event gets the offset of the end of its own line.
      for (let i = chunk.indexOf(NEWLINE); i !== -1; i = chunk.indexOf(NEWLINE, start)) {
        this.parser.push(chunk.subarray(start, i + 1));
        this.committed = this.read + i + 1;
        for (const event of this.take()) entries.push({ event, end: this.committed });
        start = i + 1;
      }
      if (start < bytesRead) this.parser.push(chunk.subarray(start));
      this.read += bytesRead;
    }
    return entries;
  }

  /** Whether everything the file holds now has been read. */
  async atEnd(): Promise<boolean> {
    if (this.handle === undefined) return true;
    return (await this.handle.stat()).size <= this.read;
  }

  /** The stream has ended: its last line, cut short without a newline, is read as it is. */
  finish(): StreamEntry[] {
    this.parser.finish();
    this.committed = this.read;
    return this.take().map((event) => ({ event, end: this.committed }));
  }

  async close(): Promise<void> {
    await this.handle?.close().catch(() => undefined);
    this.handle = undefined;
  }

  private take(): ParsedLine[] {
    const taken = this.parsed;
    this.parsed = [];
    return taken;
  }
}
