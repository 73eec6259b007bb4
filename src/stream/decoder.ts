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
