import type { SessionRecord } from './record.js';
import { readTail } from '../lib/fs.js';

/** Bytes of a gates log read for its end, and the lines of it shown. */
const GATES_TAIL_BYTES = 8 * 1024;
const GATES_TAIL_LINES = 20;

/**
 * The end of the failing gate's output, from the session's gates log: what failed (the
 * assertion, the compiler's error) said where the session is shown, not left in a file.
 */
export async function failingGateOutput(
  record: SessionRecord,
  gatesLog: string,
): Promise<string[]> {
  if (!(record.gates ?? []).some((gate) => !gate.passed)) return [];
  return gatesLogEnd(gatesLog);
}

/** The last lines of a session's gates log (none when it is missing or empty). */
export async function gatesLogEnd(gatesLog: string): Promise<string[]> {
  const tail = await readTail(gatesLog, GATES_TAIL_BYTES).catch(() => undefined);
  if (tail === undefined || tail.text.trim() === '') return [];
  return tail.text.trimEnd().split('\n').slice(-GATES_TAIL_LINES);
}
