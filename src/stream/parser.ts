import { isUtf8 } from 'node:buffer';
import { parseLine, type Decoded, type StreamDecoder } from './decoder.js';
import { LineSplitter } from './lines.js';
import { DEFAULT_SKIM_LIMITS, JsonSkimmer, type SkimLimits } from './skim.js';

/** What the parser reports for each line. */
export type ParsedLine = Decoded;

/** Options of the stream parser. */
export interface StreamParserOptions {
  /** Lines up to this size are decoded whole; longer ones are skimmed. */
  maxLineBytes?: number;
  skimLimits?: SkimLimits;
}

/**
 * Turns an agent CLI's stdout bytes into events (through its decoder): tolerant of unknown types, malformed lines, huge
 * lines and a missing last newline, with memory bounded by `maxLineBytes` and the skim limits.
 */
export class StreamParser {
  private readonly splitter: LineSplitter;
  private skimmer: JsonSkimmer | undefined;

  constructor(
    private readonly emit: (parsed: ParsedLine) => void,
    private readonly decoder: StreamDecoder,
    options: StreamParserOptions = {},
  ) {
    const limits = options.skimLimits ?? DEFAULT_SKIM_LIMITS;
    this.splitter = new LineSplitter(
      {
        line: (bytes) => {
          // The bytes are archived as they are; the decoded text has U+FFFD in their place. Only
          // a line holding U+FFFD can have had invalid bytes: the others skip the full check.
          const text = bytes.toString('utf8');
          if (text.includes('\uFFFD') && !isUtf8(bytes)) {
            this.emit({
              kind: 'issue',
              issue: 'invalid_utf8',
              detail: 'invalid UTF-8 replaced by U+FFFD',
              bytes: bytes.length,
            });
          }
          this.emitAll(parseLine(decoder, bytes, text));
        },
        longStart: () => {
          this.skimmer = new JsonSkimmer(limits);
        },
        longData: (bytes) => this.skimmer?.write(bytes),
        longEnd: (complete, totalBytes) => this.endLong(complete, totalBytes),
        partial: (bytes) => {
          this.emit({
            kind: 'issue',
            issue: 'truncated',
            detail: 'the stream ended without a newline after its last line',
            bytes: bytes.length,
          });
          const parsed = parseLine(decoder, bytes);
          // Half a line that still parses is used; one that does not was said above.
          if (
            parsed === undefined ||
            (!Array.isArray(parsed) && (parsed as Decoded).kind === 'issue')
          )
            return;
          this.emitAll(parsed);
        },
      },
      options.maxLineBytes,
    );
  }

  /** Feeds bytes as they arrive. */
  push(chunk: Buffer): void {
    this.splitter.push(chunk);
  }

  /** The stream has ended. */
  finish(): void {
    this.splitter.finish();
    this.emitAll(this.decoder.end?.());
  }

  private emitAll(decoded: Decoded | readonly Decoded[] | undefined): void {
    if (decoded === undefined) return;
    if (!Array.isArray(decoded)) this.emit(decoded as Decoded);
    else for (const one of decoded as readonly Decoded[]) this.emit(one);
  }

  private endLong(complete: boolean, totalBytes: number): void {
    const skimmer = this.skimmer;
    this.skimmer = undefined;
    if (skimmer === undefined) return;
    const outcome = skimmer.end();
    if (!complete) {
      this.emit({
        kind: 'issue',
        issue: 'truncated',
        detail: `the stream ended inside a line of ${totalBytes} bytes`,
        bytes: totalBytes,
      });
      return;
    }
    if (!outcome.ok) {
      this.emit({
        kind: 'issue',
        issue: outcome.error.startsWith('nesting') ? 'too_deep' : 'invalid_json',
        detail: `a line of ${totalBytes} bytes: ${outcome.error}`,
        bytes: totalBytes,
      });
      return;
    }
    this.emit({
      kind: 'issue',
      issue: 'oversize',
      detail: `a line of ${totalBytes} bytes was read in part (${outcome.truncatedStrings} long strings cut); the archive holds it whole`,
      bytes: totalBytes,
    });
    this.emitAll(this.decoder.decode(outcome.value, totalBytes));
  }
}
