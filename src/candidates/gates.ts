import { sessionFiles } from '../archive/paths.js';
import { SessionRecordSchema } from '../archive/record.js';
import { readIfExists } from '../lib/fs.js';
import type { CandidateEntry, Item } from '../queue/item.js';

/** A gate as the judge is told of it: its name and whether it passed. */
export interface GateResult {
  name: string;
  passed: boolean;
}

/** Each shown candidate's gates, as its last session's record has them, by its letter. */
export async function candidateGates(
  sessions: string,
  shown: readonly CandidateEntry[],
  items: readonly Item[],
): Promise<Map<string, GateResult[]>> {
  const gates = new Map<string, GateResult[]>();
  for (const entry of shown) {
    const id = items.find((item) => item.id === entry.item)?.sessions.at(-1);
    if (id === undefined) continue;
    const text = await readIfExists(sessionFiles(sessions, id).record).catch(() => undefined);
    if (text === undefined) continue;
    try {
      const record = SessionRecordSchema.safeParse(JSON.parse(text));
      if (record.success) gates.set(entry.letter, record.data.gates ?? []);
    } catch {
      // A record cut short says nothing of its gates.
    }
  }
  return gates;
}
