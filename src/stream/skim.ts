const QUOTE = 0x22;
const BACKSLASH = 0x5c;

type Frame =
  | { kind: 'object'; value: Record<string, unknown>; key: string | undefined; count: number }
  | { kind: 'array'; value: unknown[]; count: number };

/** Where the skimmer is between tokens. */
type Expect = 'value' | 'key' | 'colon' | 'comma' | 'end';

/** Limits that keep a skim bounded in memory whatever the input. */
export interface SkimLimits {
  /** Bytes of a string kept; the rest is counted and dropped. */
  maxStringBytes: number;
  /** Containers deeper than this are an error (no stack to overflow: the skimmer is iterative). */
  maxDepth: number;
  /** Elements kept per array or object. */
  maxElements: number;
}

/** Default limits for skimming oversize stream lines. */
export const DEFAULT_SKIM_LIMITS: SkimLimits = {
  maxStringBytes: 64 * 1024,
  maxDepth: 128,
  maxElements: 10_000,
};

/** The outcome of a skim. */
export type SkimResult =
  { ok: true; value: unknown; truncatedStrings: number } | { ok: false; error: string };

/**
 * An incremental JSON reader for lines too large to hold: fed chunk by chunk, it builds the
 * value while keeping only the head of long strings (marked as cut). Strings are skipped with
 * Buffer.indexOf, so a 50 MB text costs no more than the chunk being read.
 */
export class JsonSkimmer {
  private readonly stack: Frame[] = [];
  private expect: Expect = 'value';
  private root: unknown;
  private error: string | undefined;
  private truncatedStrings = 0;
  // The string being read.
  private inString = false;
  private stringIsKey = false;
  private stringParts: Buffer[] = [];
  private stringKept = 0;
  private stringTotal = 0;
  private escaped = false;
  // A number or literal being read.
  private atom = '';

  constructor(private readonly limits: SkimLimits = DEFAULT_SKIM_LIMITS) {}

  /** Feeds the next bytes of the line. */
  write(chunk: Buffer): void {
    let i = 0;
    while (i < chunk.length && this.error === undefined) {
      if (this.inString) {
        i = this.readString(chunk, i);
        continue;
      }
      const byte = chunk[i] as number;
      if (this.atom !== '' && !isAtomByte(byte)) this.finishAtom();
      if (this.error !== undefined) break;
      i++;
      if (byte === 0x20 || byte === 0x09 || byte === 0x0a || byte === 0x0d) continue;
      this.structural(byte);
    }
  }

  /** Ends the line and returns what was read. */
  end(): SkimResult {
    if (this.error === undefined && this.atom !== '') this.finishAtom();
    if (this.error !== undefined) return { ok: false, error: this.error };
    if (this.inString || this.stack.length > 0 || this.expect !== 'end') {
      return { ok: false, error: 'the line ends inside a JSON value' };
    }
    return { ok: true, value: this.root, truncatedStrings: this.truncatedStrings };
  }

  private structural(byte: number): void {
    const top = this.stack.at(-1);
    if (this.expect === 'end') return this.fail('unexpected data after the JSON value');
    if (byte === QUOTE) {
      if (this.expect !== 'value' && this.expect !== 'key') return this.fail('unexpected string');
      this.inString = true;
      this.stringIsKey = this.expect === 'key';
      this.stringParts = [];
      this.stringKept = 0;
      this.stringTotal = 0;
      this.escaped = false;
      return;
    }
    switch (byte) {
      case 0x7b: // {
      case 0x5b: {
        // [
        if (this.expect !== 'value') return this.fail('unexpected container');
        if (this.stack.length >= this.limits.maxDepth) {
          return this.fail(`nesting deeper than ${this.limits.maxDepth} levels`);
        }
        this.stack.push(
          byte === 0x7b
            ? { kind: 'object', value: {}, key: undefined, count: 0 }
            : { kind: 'array', value: [], count: 0 },
        );
        this.expect = byte === 0x7b ? 'key' : 'value';
        return;
      }
      case 0x7d: // }
      case 0x5d: {
        // ]
        const closesObject = byte === 0x7d;
        if (top === undefined || (top.kind === 'object') !== closesObject) {
          return this.fail('mismatched bracket');
        }
        const empty = top.count === 0;
        const ok =
          this.expect === 'comma' ||
          (empty && (closesObject ? this.expect === 'key' : this.expect === 'value'));
        if (!ok) return this.fail('unexpected end of container');
        this.stack.pop();
        return this.complete(top.value);
      }
      case 0x3a: // :
        if (this.expect !== 'colon') return this.fail('unexpected ":"');
        this.expect = 'value';
        return;
      case 0x2c: // ,
        if (this.expect !== 'comma' || top === undefined) return this.fail('unexpected ","');
        this.expect = top.kind === 'object' ? 'key' : 'value';
        return;
      default:
        if (this.expect !== 'value' || !isAtomByte(byte)) {
          return this.fail(`unexpected byte 0x${byte.toString(16)}`);
        }
        this.atom += String.fromCharCode(byte);
        if (this.atom.length > 64) this.fail('number or literal too long');
    }
  }

  private readString(chunk: Buffer, from: number): number {
    let i = from;
    if (this.escaped) {
      this.keep(chunk, i, i + 1);
      this.escaped = false;
      i++;
    }
    // Jump to the next quote or backslash: the bytes between are plain string content.
    let nextQuote = chunk.indexOf(QUOTE, i);
    let nextBackslash = chunk.indexOf(BACKSLASH, i);
    while (i < chunk.length) {
      if (nextQuote !== -1 && nextQuote < i) nextQuote = chunk.indexOf(QUOTE, i);
      if (nextBackslash !== -1 && nextBackslash < i) nextBackslash = chunk.indexOf(BACKSLASH, i);
      const stop =
        nextBackslash !== -1 && (nextQuote === -1 || nextBackslash < nextQuote)
          ? nextBackslash
          : nextQuote;
      if (stop === -1) {
        this.keep(chunk, i, chunk.length);
        return chunk.length;
      }
      this.keep(chunk, i, stop);
      if (chunk[stop] === QUOTE) {
        this.inString = false;
        this.finishString();
        return stop + 1;
      }
      // A backslash: keep it with the byte it escapes, which may be in the next chunk.
      if (stop + 1 >= chunk.length) {
        this.keep(chunk, stop, stop + 1);
        this.escaped = true;
        return chunk.length;
      }
      this.keep(chunk, stop, stop + 2);
      i = stop + 2;
    }
    return i;
  }

  private keep(chunk: Buffer, start: number, end: number): void {
    this.stringTotal += end - start;
    const room = this.limits.maxStringBytes - this.stringKept;
    if (room <= 0) return;
    const slice = chunk.subarray(start, Math.min(end, start + room));
    this.stringParts.push(Buffer.from(slice));
    this.stringKept += slice.length;
  }

  private finishString(): void {
    let raw = Buffer.concat(this.stringParts).toString('utf8');
    const cut = this.stringTotal > this.stringKept;
    if (cut) {
      // Drop an escape sequence the cut went through, so the rest still decodes.
      const lastBackslash = raw.lastIndexOf('\\', raw.length - 1);
      if (lastBackslash !== -1 && raw.length - lastBackslash < 6) raw = raw.slice(0, lastBackslash);
      this.truncatedStrings++;
    }
    let text: string;
    try {
      text = JSON.parse(`"${raw}"`) as string;
    } catch {
      text = raw;
    }
    if (cut) text += `…[cut: ${this.stringTotal - this.stringKept} more bytes]`;
    this.stringParts = [];
    if (this.stringIsKey) {
      const top = this.stack.at(-1);
      if (top?.kind === 'object') top.key = text;
      this.expect = 'colon';
    } else {
      this.complete(text);
    }
  }

  private finishAtom(): void {
    const atom = this.atom;
    this.atom = '';
    let value: unknown;
    if (atom === 'true') value = true;
    else if (atom === 'false') value = false;
    else if (atom === 'null') value = null;
    else if (/^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/.test(atom)) value = Number(atom);
    else return this.fail(`invalid literal ${JSON.stringify(atom.slice(0, 20))}`);
    this.complete(value);
  }

  private complete(value: unknown): void {
    const top = this.stack.at(-1);
    if (top === undefined) {
      this.root = value;
      this.expect = 'end';
      return;
    }
    if (top.count < this.limits.maxElements) {
      if (top.kind === 'array') top.value.push(value);
      else if (top.key !== undefined) top.value[top.key] = value;
    }
    top.count++;
    this.expect = 'comma';
  }

  private fail(message: string): void {
    this.error ??= message;
  }
}

function isAtomByte(byte: number): boolean {
  return (
    (byte >= 0x30 && byte <= 0x39) || // digits
    (byte >= 0x61 && byte <= 0x7a) || // a-z (true, false, null, e)
    byte === 0x2d || // -
    byte === 0x2b || // +
    byte === 0x2e || // .
    byte === 0x45 // E
  );
}
