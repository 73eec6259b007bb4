import { failingGateOutput } from '../archive/gate-output.js';
import { sessionFiles } from '../archive/paths.js';
import { SessionRecordSchema, type SessionRecord } from '../archive/record.js';
import { readIfExists } from '../lib/fs.js';
import type { CandidateEntry, Item } from '../queue/item.js';

/** A gate as the judge is told of it: its name and whether it passed. */
export interface GateResult {
  name: string;
  passed: boolean;
}

/** The record of an item's last session, if it can be read whole. */
async function lastRecord(
  sessions: string,
  item: Item | undefined,
): Promise<{ record: SessionRecord; gatesLog: string } | undefined> {
  const id = item?.sessions.at(-1);
  if (id === undefined) return undefined;
  const files = sessionFiles(sessions, id);
  const text = await readIfExists(files.record).catch(() => undefined);
  if (text === undefined) return undefined;
  try {
    const record = SessionRecordSchema.safeParse(JSON.parse(text));
    return record.success ? { record: record.data, gatesLog: files.gates } : undefined;
  } catch {
    // A record cut short says nothing of its gates.
    return undefined;
  }
}

/** Each shown candidate's gates, as its last session's record has them, by its letter. */
export async function candidateGates(
  sessions: string,
  shown: readonly CandidateEntry[],
  items: readonly Item[],
): Promise<Map<string, GateResult[]>> {
  const gates = new Map<string, GateResult[]>();
  for (const entry of shown) {
    const last = await lastRecord(
      sessions,
      items.find((item) => item.id === entry.item),
    );
    if (last !== undefined) gates.set(entry.letter, last.record.gates ?? []);
  }
  return gates;
}

/**
 * The candidates, each that is out for a failing gate with the end of that gate's output after
 * why (`redact`ed): what failed is on the item's page, not only in a candidate's file.
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
      const last = await lastRecord(
        sessions,
        items.find((item) => item.id === entry.item),
      );
      const output = last === undefined ? [] : await failingGateOutput(last.record, last.gatesLog);
      if (output.length === 0) return entry;
      return { ...entry, out: redact([entry.out, ...output].join('\n')) };
    }),
  );
}
