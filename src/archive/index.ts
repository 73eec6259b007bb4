import fsp from 'node:fs/promises';
import path from 'node:path';
import { appendPrivate } from '../lib/fs.js';
import { IndexEntrySchema, type IndexEntry } from './index-entry.js';
import type { SessionRecord } from './record.js';
import { allTokens } from './tokens.js';

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
    opening:
      record.opening === undefined
        ? undefined
        : { tokens: allTokens(record.opening.tokens), costUsd: record.opening.costUsd },
    cli: record.cli,
    fallbackFrom: record.fallback?.cli,
    role: record.role,
    persona: record.persona,
    model: record.model,
    windows: record.usageWindows,
    branch: record.git?.branch,
    changes: changesOf(record.git?.files),
    asked: record.asked,
    denials:
      record.result === undefined || record.result.permissionDenials.length === 0
        ? undefined
        : record.result.permissionDenials.length,
    ...(record.egressBlocked === undefined
      ? {}
      : {
          egressBlocked: record.egressBlockedCount ?? record.egressBlocked.length,
          blockedHosts: [...new Set(record.egressBlocked.map((b) => `${b.host}:${b.port}`))],
        }),
  };
}

/** Paths of a change the index keeps: enough to rank it, small enough to list 10,000 of. */
const INDEXED_PATHS = 100;

function changesOf(
  files: NonNullable<SessionRecord['git']>['files'],
): IndexEntry['changes'] | undefined {
  if (files === undefined) return undefined;
  return {
    files: files.length,
    added: files.reduce((sum, f) => sum + f.added, 0),
    deleted: files.reduce((sum, f) => sum + f.deleted, 0),
    paths: files.slice(0, INDEXED_PATHS).map((f) => f.path),
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
