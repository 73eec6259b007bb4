import { indexEntryOf, readIndex, type IndexEntry } from '../archive/index.js';
import { sessionFiles } from '../archive/paths.js';
import { SESSION_STATUSES, SessionRecordSchema, type SessionRecord } from '../archive/record.js';
import { decoderOf } from '../agent/clis/index.js';
import { OUTCOME_KINDS } from '../agent/outcome.js';
import type { StreamDecoder } from '../stream/decoder.js';
import type { Workspace } from '../config/workspace.js';
import { parseDuration } from '../lib/duration.js';
import { InputError } from '../lib/errors.js';
import { pathExists, readIfExists } from '../lib/fs.js';
import { ControlFiles } from '../control/files.js';
import { withQueue } from '../queue/open.js';

/** A session found by id, id prefix or item id. */
export interface FoundSession {
  sessionId: string;
  /** Running now (`state/running/`). */
  live: boolean;
}

/** The running sessions' records, oldest first. */
export async function readRunning(workspace: Workspace): Promise<SessionRecord[]> {
  return (await new ControlFiles(workspace.paths).readRunningSessions()).records;
}

/**
 * Finds a session: a full session id, a unique prefix of at least 4 characters, or an item id
 * (its latest session, the running one first).
 */
export async function findSession(
  workspace: Workspace,
  ref: string,
  env: Readonly<Record<string, string | undefined>>,
): Promise<FoundSession> {
  const live = (await readRunning(workspace)).find(
    (record) => record.sessionId.startsWith(ref) || record.itemId === ref,
  );
  if (live !== undefined) return { sessionId: live.sessionId, live: true };
  const { entries } = await readIndex(workspace.paths.sessions);
  const exact = entries.find((e) => e.sessionId === ref);
  if (exact) return { sessionId: exact.sessionId, live: false };
  if (/^[0-9a-f-]{36}$/.test(ref)) {
    if (await pathExists(sessionFiles(workspace.paths.sessions, ref).record))
      return { sessionId: ref, live: false };
  }
  const byItem = entries.filter((e) => e.itemId === ref);
  const latest = byItem.at(-1);
  if (latest) return { sessionId: latest.sessionId, live: false };
  if (ref.length >= 4) {
    const matches = [
      ...new Set(entries.filter((e) => e.sessionId.startsWith(ref)).map((e) => e.sessionId)),
    ];
    if (matches.length === 1) return { sessionId: matches[0] as string, live: false };
    if (matches.length > 1)
      throw new InputError(`"${ref}" matches ${matches.length} sessions; give more of the id`);
  }
  const items = await withQueue(workspace, env, (queue) => queue.list());
  const item = items.find((i) => i.id === ref);
  if (item !== undefined)
    throw new InputError(`item ${JSON.stringify(ref)} has no session yet (it is ${item.status})`);
  throw new InputError(`no session or item matches ${JSON.stringify(ref)} (see "ralph sessions")`);
}

/** The decoder of a session's stream, from its record (final or running) or claude's. */
export async function sessionDecoder(
  workspace: Workspace,
  sessionId: string,
): Promise<StreamDecoder> {
  const record = await readRecord(workspace, sessionId).catch(() => undefined);
  return decoderOf(record?.cli)();
}

/** Reads an archived session record. */
export async function readRecord(workspace: Workspace, sessionId: string): Promise<SessionRecord> {
  const file = sessionFiles(workspace.paths.sessions, sessionId).record;
  const text = await readIfExists(file);
  const record = text === undefined ? undefined : SessionRecordSchema.safeParse(JSON.parse(text));
  if (record?.success) return record.data;
  const live = (await readRunning(workspace)).find((r) => r.sessionId === sessionId);
  if (live !== undefined) return live;
  throw new InputError(`${file}: no readable session record`);
}

/** What a session list may be filtered by: a session status or an outcome. */
export function checkSessionStatus(status: string, name = '--status'): string {
  const known: readonly string[] = [...SESSION_STATUSES, ...OUTCOME_KINDS, 'runner_died'];
  if (!known.includes(status))
    throw new InputError(
      `${name}: no status or outcome ${JSON.stringify(status)} (statuses: ${SESSION_STATUSES.join(', ')}; outcomes: ${OUTCOME_KINDS.join(', ')})`,
      name,
    );
  return status;
}

/** Reads `--since` (or the field `name`): a duration back from now (`24h`, `7d`) or a time. */
export function parseSince(text: string, now: number, name = '--since'): number {
  const seconds = parseDuration(text);
  if (seconds !== undefined) return now - seconds * 1000;
  const time = Date.parse(text);
  if (Number.isNaN(time))
    throw new InputError(
      `${name}: expected a duration (24h, 7d) or a time, got ${JSON.stringify(text)}`,
      name,
    );
  return time;
}

/** The index's entries followed by the running sessions' (newest of all: they have not ended). */
export async function withRunning(
  workspace: Workspace,
  entries: readonly IndexEntry[],
): Promise<IndexEntry[]> {
  const running = await readRunning(workspace);
  const archived = new Set(running.length === 0 ? [] : entries.map((e) => e.sessionId));
  return [...entries, ...running.filter((r) => !archived.has(r.sessionId)).map(indexEntryOf)];
}

/** Entries of the index since a time, newest first. */
export function newestFirst(entries: readonly IndexEntry[], since?: number): IndexEntry[] {
  return entries.filter((e) => since === undefined || Date.parse(e.startedAt) >= since).reverse();
}
