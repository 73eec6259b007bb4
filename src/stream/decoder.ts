import type { StreamEvent, StreamIssue } from './events.js';

/** What decoding one line gives: an event, or why the line could not be used. */
export type Decoded = StreamEvent | StreamIssue;

/**
 * One agent CLI's stream format, mapped onto ralph's events. A decoder lives for one stream
 * and may keep state across its lines (a CLI that reports a turn's usage apart from its text).
 */
export interface StreamDecoder {
  /** The events of one decoded JSON line: none, one or several. */
  decode(value: unknown, bytes: number): Decoded | readonly Decoded[] | undefined;
  /** The stream has ended: what its end implies (a CLI that prints no final result line). */
  end?(): readonly Decoded[];
}

/** Makes a fresh decoder for each stream read. */
export type DecoderFactory = () => StreamDecoder;

/** Decodes one complete line (up to the in-memory limit) and maps it to events. */
export function parseLine(
  decoder: StreamDecoder,
  bytes: Buffer,
  text = bytes.toString('utf8'),
): Decoded | readonly Decoded[] | undefined {
  // Lines start with '{': only an odd line pays for the blank check.
  if (bytes[0] !== 0x7b && text.trim() === '') return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text) as unknown;
  } catch (error) {
    const tooDeep = error instanceof RangeError;
    return {
      kind: 'issue',
      issue: tooDeep ? 'too_deep' : 'invalid_json',
      detail: `${tooDeep ? 'nesting too deep' : 'not JSON'}: ${JSON.stringify(text.trim().slice(0, 120))}`,
      bytes: bytes.length,
    };
  }
  return decoder.decode(value, bytes.length);
}
