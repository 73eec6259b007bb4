import os from 'node:os';
import { archiveSession, type PreservedContext } from '../archive/finish.js';
import { indexEntryOf } from '../archive/index.js';
import type { SessionFiles } from '../archive/paths.js';
import type { SessionRecord } from '../archive/record.js';
import type { RunnerContext } from './context.js';
import type { StopControl } from './stop-control.js';
import { persistently } from './persist.js';

/**
 * Archives a finished session and, in a fleet, adds it to the fleet's index with this machine
 * and the archive's path, so that every machine's `ralph sessions` and `ralph report` show it.
 */
export async function archive(
  ctx: RunnerContext,
  control: StopControl,
  files: SessionFiles,
  record: SessionRecord,
  extras: { lastText?: string; context?: PreservedContext } = {},
): Promise<void> {
  const { sessionId } = record;
  await persistently(ctx, control, `archiving session ${sessionId}`, () =>
    archiveSession(files, ctx.workspace.paths.sessions, record, ctx.redactor, extras),
  );
  const { fleet } = ctx.queue;
  if (fleet === undefined) return;
  const entry = ctx.redactor.redactValue(indexEntryOf(record));
  await persistently(ctx, control, `indexing session ${sessionId} for the fleet`, () =>
    fleet.recordSession({ ...entry, host: os.hostname(), archive: files.stdout }),
  );
}
