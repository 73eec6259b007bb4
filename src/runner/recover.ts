import fsp from 'node:fs/promises';
import path from 'node:path';
import { isSameProcessAlive, signalQuietly } from '../agent/procfs.js';
import { reapSession } from '../agent/process.js';
import { sessionFiles } from '../archive/paths.js';
import { archiveSession } from '../archive/finish.js';
import { SessionRecordSchema, type SessionRecord } from '../archive/record.js';
import { isErrnoException } from '../lib/errors.js';
import { appendPrivate, ATOMIC_TEMP_FILE, readIfExists } from '../lib/fs.js';
import { readArchivedStream } from '../stream/archive-file.js';
import { reclaim } from '../queue/transitions.js';
import type { RunnerContext } from './context.js';
import type { StopControl } from './control.js';
import { persistently } from './persist.js';

/** Whether a process with this pid exists (EPERM: it does, as another user's). */
function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return isErrnoException(error) && error.code === 'EPERM';
  }
}

/**
 * Removes the temp files of atomic writes cut short by a kill. A temp file whose writer is
 * alive is left alone: a `ralph add` or `ralph pause` may be writing it right now.
 */
async function removeDeadWritersTempFiles(dir: string): Promise<void> {
  for (const name of await fsp.readdir(dir).catch(() => [] as string[])) {
    const writer = ATOMIC_TEMP_FILE.exec(name)?.[1];
    if (writer === undefined) continue;
    const pid = Number(writer);
    // Our own pid may be writing too (a command run in the same process): never ours either.
    if (!processExists(pid)) await fsp.rm(path.join(dir, name), { force: true });
  }
}

/**
 * Runs once at start, with the workspace lock held: whatever a dead runner left behind is
 * settled. Its agent (pid and start time both matching) and the session's stray processes are
 * killed, its session is archived as `killed`, and items still `running` are requeued with their
 * attempt counted (at-least-once delivery). Temp files of atomic writes whose writer is gone
 * are removed.
 */
export async function recoverAfterCrash(ctx: RunnerContext, control: StopControl): Promise<void> {
  const { paths } = ctx.workspace;
  const now = ctx.clock.now();
  for (const dir of [paths.state, paths.sessions]) await removeDeadWritersTempFiles(dir);

  const text = await readIfExists(paths.currentSession);
  let orphanSession: string | undefined;
  if (text !== undefined) {
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch {
      raw = undefined;
    }
    const parsed = SessionRecordSchema.safeParse(raw);
    if (parsed.success) {
      const record = parsed.data;
      orphanSession = record.sessionId;
      // Never signal a pid that now belongs to another process: the start time must match.
      if (
        record.pid !== undefined &&
        (await isSameProcessAlive(record.pid, record.processStartTime))
      ) {
        signalQuietly(-record.pid, 'SIGKILL');
      }
      const killed = await reapSession(
        record.pid,
        record.sessionId,
        ctx.workspace.config.run.killGrace * 1000,
      );
      const files = sessionFiles(paths.sessions, record.sessionId);
      // The agent may have died mid-line: the fragment is flagged (`truncated`) and ended with
      // a newline, so the archive is whole lines again.
      const stream = await readArchivedStream(files.stdout, now);
      if (!stream.endsWithNewline) await appendPrivate(files.stdout, '\n');
      const archived: SessionRecord = {
        ...record,
        status: 'killed',
        statusReason: 'the runner died while the session ran',
        endedAt: new Date(now).toISOString(),
        outcome: {
          kind: 'runner_died',
          message: 'the runner died while the session ran',
          retryable: true,
        },
        killedProcesses: killed,
        claudeSessionId: record.claudeSessionId ?? stream.summary.claudeSessionId,
        streamIssues: stream.summary.issues,
        heartbeat: {
          ...record.heartbeat,
          events: stream.summary.events,
          assistantMessages: stream.summary.assistantMessages,
          toolCalls: stream.summary.toolCalls,
          stdoutBytes: stream.bytes,
        },
      };
      await persistently(ctx, control, `archiving session ${record.sessionId}`, () =>
        archiveSession(files, paths.sessions, archived, ctx.redactor),
      );
      ctx.log.warn('orphan_session_recovered', {
        session: record.sessionId,
        item: record.itemId,
        pid: record.pid,
        killedProcesses: killed.length,
      });
    } else {
      ctx.log.warn('orphan_session_unreadable', { file: paths.currentSession });
    }
    await fsp.rm(paths.currentSession, { force: true });
  }

  const defaultMax = ctx.workspace.config.defaults.maxAttempts;
  const requeued = await persistently(ctx, control, 'requeuing the items of a dead runner', () =>
    ctx.queue.update((items) => {
      const ids: string[] = [];
      const next = items.map((item) => {
        if (item.status !== 'running') return item;
        ids.push(item.id);
        return reclaim(
          item,
          'the runner died while the item ran',
          item.maxAttempts ?? defaultMax,
          now,
        );
      });
      return ids.length > 0 ? { items: next, value: ids } : { value: ids };
    }),
  );
  if (requeued.length > 0) {
    ctx.log.warn('items_requeued_after_crash', { items: requeued, session: orphanSession });
  }
}
