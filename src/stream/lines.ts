/** Receives what the splitter finds in the byte stream. */
export interface LineSink {
  /** A complete line up to the in-memory limit, without its newline. */
  line(bytes: Buffer): void;
  /** The start of a line longer than the limit: its bytes follow through `longData`. */
  longStart(): void;
  longData(bytes: Buffer): void;
  /** The end of a long line; `complete` is false when the stream ended before its newline. */
  longEnd(complete: boolean, totalBytes: number): void;
  /** The last line had no newline when the stream ended. */
  partial(bytes: Buffer): void;
}

/**
 * Splits a byte stream into lines across chunk boundaries with a carrying buffer (never
 * per chunk, so a line split in two is not lost). Lines up to `maxLineBytes` are handed over
 * whole; longer ones are streamed through, so memory stays bounded whatever the line length.
 */
export class LineSplitter {
  private carry: Buffer[] = [];
  private carryBytes = 0;
  private longBytes = -1;

  constructor(
    private readonly sink: LineSink,
    private readonly maxLineBytes = 1024 * 1024,
  ) {}

  /** Feeds the next chunk of the stream. */
  push(chunk: Buffer): void {
    let start = 0;
    while (start < chunk.length) {
      const newline = chunk.indexOf(0x0a, start);
      const end = newline === -1 ? chunk.length : newline;
      const piece = chunk.subarray(start, end);
      if (this.longBytes >= 0) {
        if (piece.length > 0) this.sink.longData(piece);
        this.longBytes += piece.length;
      } else if (this.carryBytes + piece.length > this.maxLineBytes) {
        this.sink.longStart();
        const head = this.takeCarry();
        if (head.length > 0) this.sink.longData(head);
        if (piece.length > 0) this.sink.longData(piece);
        this.longBytes = head.length + piece.length;
      } else if (newline !== -1 && this.carryBytes === 0) {
        // A whole line inside the chunk: handed over without a copy.
        this.sink.line(piece);
        start = newline + 1;
        continue;
      } else if (piece.length > 0) {
        // Copy: the caller reuses its read buffer.
        this.carry.push(Buffer.from(piece));
        this.carryBytes += piece.length;
      }
      if (newline === -1) return;
      this.endLine();
      start = newline + 1;
    }
  }

  /** The stream ended: flushes a last line that had no newline. */
  finish(): void {
    if (this.longBytes >= 0) {
      this.sink.longEnd(false, this.longBytes);
      this.longBytes = -1;
    } else if (this.carryBytes > 0) {
      this.sink.partial(this.takeCarry());
    }
  }

  private endLine(): void {
    if (this.longBytes >= 0) {
      this.sink.longEnd(true, this.longBytes);
      this.longBytes = -1;
    } else {
      this.sink.line(this.takeCarry());
    }
  }

  private takeCarry(): Buffer {
    const bytes = this.carry.length === 1 ? (this.carry[0] as Buffer) : Buffer.concat(this.carry);
    this.carry = [];
    this.carryBytes = 0;
    return bytes;
  }
}
