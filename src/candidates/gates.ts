import { gatesLogEnd } from '../archive/gate-output.js';
import { sessionFiles } from '../archive/paths.js';
import { gatesInLog, type GateEnd } from '../lib/gate-log.js';
import { readIfExists } from '../lib/fs.js';
import type { CandidateEntry, Item } from '../queue/item.js';

/** Each shown candidate's gates, as its last session's gates log has them, by its letter. */
export async function candidateGates(
  sessions: string,
  shown: readonly CandidateEntry[],
  items: readonly Item[],
): Promise<Map<string, GateEnd[]>> {
  const gates = new Map<string, GateEnd[]>();
  for (const entry of shown) {
    const session = items.find((item) => item.id === entry.item)?.sessions.at(-1);
    if (session === undefined) continue;
    const log = await readIfExists(sessionFiles(sessions, session).gates).catch(() => undefined);
    gates.set(entry.letter, gatesInLog(log ?? ''));
  }
  return gates;
}

/**
 * The candidates, each that is out for a failing gate with the end of that gate's output after
 * why (`redact`ed): what failed is on the item's page, not only in a candidate's file. Read from
 * its last session's gates log, written before its item was settled (its record may come later).
 */
export async function withGateOutput(
  sessions: string,
  entries: readonly CandidateEntry[],
  items: readonly Item[],
  redact: (text: string) => string,
): Promise<CandidateEntry[]> {
  return Promise.all(
    entries.map(async (entry) => {
      if (entry.out === undefined || entry.out.includes('\n')) return entry;
      const item = items.find((i) => i.id === entry.item);
      const session = item?.sessions.at(-1);
      if (item?.lastOutcome !== 'gate_failed' || session === undefined) return entry;
      const output = await gatesLogEnd(sessionFiles(sessions, session).gates);
      if (output.length === 0) return entry;
      return { ...entry, out: redact([entry.out, ...output].join('\n')) };
    }),
  );
}
