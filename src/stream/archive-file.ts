import fsp from 'node:fs/promises';
import type { DecoderFactory } from './decoder.js';
import { StreamParser, type ParsedLine } from './parser.js';
import { applyToSummary, emptySummary, type StreamSummary } from './summary.js';

const CHUNK = 1024 * 1024;

/** What an archived stream holds, read back from its file. */
export interface ArchivedStream {
  summary: StreamSummary;
  bytes: number;
  /** Whether the last byte is a newline (an agent killed mid-line leaves a fragment). */
  endsWithNewline: boolean;
}

/** Reads a session's NDJSON archive from disk in bounded memory, as the supervisor would have. */
export async function readArchivedStream(
  file: string,
  decoder: DecoderFactory,
  now: number,
): Promise<ArchivedStream> {
  const summary = emptySummary();
  const { bytes, endsWithNewline } = await parseStreamFile(file, decoder, (parsed) =>
    applyToSummary(summary, parsed, now),
  );
  return { summary, bytes, endsWithNewline };
}

/**
 * Parses a stream file with a CLI's decoder, a chunk at a time, up to `maxBytes` (a missing file
 * is an empty stream); each event goes to `emit`.
 */
export async function parseStreamFile(
  file: string,
  decoder: DecoderFactory,
  emit: (parsed: ParsedLine) => void,
  maxBytes = Infinity,
): Promise<{ bytes: number; endsWithNewline: boolean }> {
  const parser = new StreamParser(emit, decoder());
  const buffer = Buffer.allocUnsafe(CHUNK);
  let bytes = 0;
  let last = -1;
  const handle = await fsp.open(file, 'r').catch(() => undefined);
  if (handle !== undefined) {
    try {
      while (bytes < maxBytes) {
        const { bytesRead } = await handle.read(buffer, 0, CHUNK, bytes);
        if (bytesRead <= 0) break;
        bytes += bytesRead;
        last = buffer[bytesRead - 1] ?? -1;
        parser.push(buffer.subarray(0, bytesRead));
      }
    } finally {
      await handle.close();
    }
  }
  parser.finish();
  return { bytes, endsWithNewline: bytes === 0 || last === 0x0a };
}
