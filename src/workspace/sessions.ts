import os from 'node:os';
import { IndexEntrySchema, type IndexEntry } from '../archive/index-entry.js';
import { indexEntryOf, readIndex } from '../archive/index.js';
import { sessionFiles } from '../archive/paths.js';
import { SESSION_STATUSES, SessionRecordSchema, type SessionRecord } from '../archive/record.js';
import { decoderOf } from '../agent/clis/index.js';
import { isSameProcessAlive } from '../lib/procfs.js';
import { OUTCOME_KINDS } from '../agent/outcome.js';
import type { StreamDecoder } from '../stream/decoder.js';
import type { Workspace } from '../config/workspace.js';
import { parseDuration } from '../lib/duration.js';
import { InputError } from '../lib/errors.js';
import { pathExists, readIfExists } from '../lib/fs.js';
import { ControlFiles } from '../control/files.js';
import { withQueue, withQueueReader } from '../queue/open.js';
import type { Queue } from '../queue/queue.js';

/**
 * Whether a session's stream can still grow: its final record is not written yet, and its
 * runner or its agent (pid and start time both matching) is alive. A session a killed runner
 * left is complete as it stands until the next run settles it.
 */
export async function sessionMayGrow(workspace: Workspace, sessionId: string): Promise<boolean> {
  if (await pathExists(sessionFiles(workspace.paths.sessions, sessionId).record)) return false;
  const record = (await readRunning(workspace)).find((r) => r.sessionId === sessionId);
  if (record === undefined) return false;
  if (await isSameProcessAlive(record.runner.pid, record.runner.startTime)) return true;
  return record.pid !== undefined && isSameProcessAlive(record.pid, record.processStartTime);
}

/** A session found by id, id prefix or item id. */
export interface FoundSession {
  sessionId: string;
  /** Running now (`state/running/`). */
  live: boolean;
}

/**
 * The sessions index: this workspace's, or with a shared queue the fleet's (every machine's
 * sessions, each with its host and archive path). Oldest first; unreadable lines counted.
 */
export async function sessionIndex(
  workspace: Workspace,
  env: Readonly<Record<string, string | undefined>>,
): Promise<{ entries: IndexEntry[]; skipped: number }> {
  if (workspace.config.queue.backend === 'file') return readIndex(workspace.paths.sessions);
  return withQueue(workspace, env, (queue) => fleetIndex(queue));
}

/** The fleet's index entries of a shared queue (the local index for a file queue's). */
export async function fleetIndex(
  queue: Queue,
): Promise<{ entries: IndexEntry[]; skipped: number }> {
  if (queue.fleet === undefined) throw new Error('fleetIndex: the queue has no fleet');
  const entries: IndexEntry[] = [];
  let skipped = 0;
  for (const line of await queue.fleet.sessions()) {
    const parsed = IndexEntrySchema.safeParse(line);
    if (parsed.success) entries.push(parsed.data);
    else skipped++;
  }
  return { entries, skipped };
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
  if (workspace.config.queue.backend !== 'file') {
    // The fleet's latest may have run elsewhere: its archive stays on that machine.
    const found = resolveSession((await sessionIndex(workspace, env)).entries, ref);
    if (found !== undefined && !entries.some((e) => e.sessionId === found.sessionId))
      throw new InputError(
        `session ${found.sessionId} ran on ${found.host ?? 'another machine'}${found.host === os.hostname() ? ', in another workspace' : ''}: its archive is there, ${found.archive ?? 'in that workspace'}; run "ralph logs ${found.sessionId}" in that workspace`,
      );
  }
  if (/^[0-9a-f-]{36}$/.test(ref) && !entries.some((e) => e.sessionId === ref)) {
    if (await pathExists(sessionFiles(workspace.paths.sessions, ref).record))
      return { sessionId: ref, live: false };
  }
  const found = resolveSession(entries, ref);
  if (found !== undefined) return { sessionId: found.sessionId, live: false };
  const items = await withQueueReader(workspace, env, (queue) => queue.list());
  const item = items.find((i) => i.id === ref);
  if (item !== undefined) {
    const failed = item.environment?.failure;
    throw new InputError(
      `item ${JSON.stringify(ref)} has no session yet (it is ${item.status})${failed === undefined ? '' : `: its environment failed (log ${item.environment?.log ?? 'none'}):\n${failed}`}`,
    );
  }
  if (ref.length < 4 && entries.some((e) => e.sessionId.startsWith(ref)))
    throw new InputError(
      `${JSON.stringify(ref)} is too short to name a session: a prefix of a session id needs at least 4 characters (see "ralph sessions")`,
    );
  throw new InputError(`no session or item matches ${JSON.stringify(ref)} (see "ralph sessions")`);
}

/**
 * The entry a reference names: a full session id, an item id (its author's latest session) or a unique
 * prefix of at least 4 characters of a session id.
 */
function resolveSession(entries: readonly IndexEntry[], ref: string): IndexEntry | undefined {
  const exact = entries.find((e) => e.sessionId === ref);
  if (exact !== undefined) return exact;
  // An item's latest session of its author's: a reviewer's is shown from the author's page.
  const ofItem = entries.filter((e) => e.itemId === ref);
  const latest = ofItem.filter((e) => e.role === undefined).at(-1) ?? ofItem.at(-1);
  if (latest !== undefined) return latest;
  if (ref.length < 4) return undefined;
  const matches = [...new Set(entries.filter((e) => e.sessionId.startsWith(ref)))];
  const ids = new Set(matches.map((e) => e.sessionId));
  if (ids.size > 1)
    throw new InputError(`"${ref}" matches ${ids.size} sessions; give more of the id`);
  return matches[0];
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
      `${name}: no status or outcome ${JSON.stringify(status)} (statuses: ${SESSION_STATUSES.join(', ')}; outcomes: ${[...OUTCOME_KINDS, 'runner_died'].join(', ')})`,
      name,
    );
  return status;
}

/** How far back `--since` may look: further is a typo, not a question. */
const MAX_SINCE_SECONDS = 100 * 365 * 24 * 3600;

/** Reads `--since` (or the field `name`): a duration back from now (`24h`, `7d`) or a time. */
export function parseSince(text: string, now: number, name = '--since'): number {
  const seconds = parseDuration(text);
  if (seconds !== undefined && seconds <= MAX_SINCE_SECONDS) return now - seconds * 1000;
  if (seconds !== undefined)
    throw new InputError(`${name}: at most 100 years back, got ${JSON.stringify(text)}`, name);
  const time = Date.parse(text);
  // Beyond the dates a Date can show, every later step would fail.
  if (Number.isNaN(time) || Number.isNaN(new Date(time).getTime()))
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

/**
 * The log of the setup (or maintenance) that made the item's worktree ready before the session,
 * if one ran: it is kept beside the files of the session before it (the item's first setup,
 * beside none, under the item's id).
 */
export async function setupLogBefore(
  workspace: Workspace,
  env: Readonly<Record<string, string | undefined>>,
  record: { sessionId: string; itemId: string },
): Promise<string | undefined> {
  const items = await withQueueReader(workspace, env, (queue) => queue.list()).catch(() => []);
  const sessions = items.find((i) => i.id === record.itemId)?.sessions ?? [];
  const at = sessions.indexOf(record.sessionId);
  const before = at > 0 ? sessions[at - 1] : record.itemId;
  const file = sessionFiles(workspace.paths.sessions, before ?? record.itemId).setup;
  return (await pathExists(file)) ? file : undefined;
}
