import fsp from 'node:fs/promises';
import path from 'node:path';
import { z } from '../lib/zod.js';
import { appendPrivate } from '../lib/fs.js';
import { SessionTokensSchema, type SessionRecord } from './record.js';

/** One line of `docs/sessions/index.jsonl`: enough to list and report without opening records. */
export const IndexEntrySchema = z.looseObject({
  sessionId: z.string(),
  itemId: z.string(),
  itemTitle: z.string(),
  status: z.string(),
  outcome: z.string(),
  message: z.string().optional(),
  startedAt: z.string(),
  endedAt: z.string().optional(),
  durationMs: z.number().optional(),
  turns: z.number().optional(),
  toolCalls: z.number(),
  costUsd: z.number(),
  /** The cost is an estimate from the session's tokens (its CLI reports none). */
  costEstimated: z.boolean().optional(),
  /** Its tokens, in ralph's names for every CLI. */
  tokens: SessionTokensSchema.optional(),
  /** The agent CLI that ran it (lines of older versions: claude). */
  cli: z.string().default('claude'),
  persona: z.string().optional(),
  /** Git mode: the item's branch. */
  branch: z.string().optional(),
  /** A fleet's index: the machine that ran it, and where its archive is there. */
  host: z.string().optional(),
  archive: z.string().optional(),
});

export type IndexEntry = z.output<typeof IndexEntrySchema>;

/** The index file of a sessions directory. */
export function indexFile(sessionsDir: string): string {
  return path.join(sessionsDir, 'index.jsonl');
}

/** The index line of a session record (a running one's reads as its status). */
export function indexEntryOf(record: SessionRecord): IndexEntry {
  const ended = record.endedAt === undefined ? undefined : Date.parse(record.endedAt);
  return {
    sessionId: record.sessionId,
    itemId: record.itemId,
    itemTitle: record.itemTitle,
    status: record.status,
    outcome: record.outcome?.kind ?? record.status,
    message: record.outcome?.message,
    startedAt: record.startedAt,
    endedAt: record.endedAt,
    durationMs: ended === undefined ? undefined : ended - Date.parse(record.startedAt),
    turns: record.result?.numTurns,
    toolCalls: record.heartbeat.toolCalls,
    costUsd: record.result?.costUsd ?? record.heartbeat.costUsd ?? 0,
    costEstimated: record.result?.costEstimated,
    tokens: record.tokens,
    cli: record.cli,
    persona: record.persona,
    branch: record.git?.branch,
  };
}

/** Appends a finished session to the index (one O_APPEND write: lines never interleave). */
export async function appendIndex(sessionsDir: string, record: SessionRecord): Promise<void> {
  await appendPrivate(indexFile(sessionsDir), `${JSON.stringify(indexEntryOf(record))}\n`);
}

/** The entries of whole index lines, and how many lines could not be read. */
export function parseIndexLines(text: string): { entries: IndexEntry[]; skipped: number } {
  const entries: IndexEntry[] = [];
  let skipped = 0;
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    try {
      entries.push(IndexEntrySchema.parse(JSON.parse(line)));
    } catch {
      skipped++;
    }
  }
  return { entries, skipped };
}

/** Reads the index, oldest first; unreadable lines are skipped and counted. */
export async function readIndex(
  sessionsDir: string,
): Promise<{ entries: IndexEntry[]; skipped: number }> {
  return parseIndexLines(await fsp.readFile(indexFile(sessionsDir), 'utf8').catch(() => ''));
}
