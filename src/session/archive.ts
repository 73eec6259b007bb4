import os from 'node:os';
import { archiveSession, type PreservedContext } from '../archive/finish.js';
import { indexEntryOf } from '../archive/index.js';
import type { SessionFiles } from '../archive/paths.js';
import type { SessionRecord } from '../archive/record.js';
import type { SessionHostContext } from './host.js';

/**
 * Archives a finished session and, in a fleet, adds it to the fleet's index with this machine
 * and the archive's path, so that every machine's `ralph sessions` and `ralph report` show it.
 */
export async function archive(
  ctx: Pick<SessionHostContext, 'workspace' | 'queue' | 'redactor' | 'persistently'>,
  files: SessionFiles,
  record: SessionRecord,
  extras: { lastText?: string; context?: PreservedContext } = {},
): Promise<void> {
  const { sessionId } = record;
  await ctx.persistently(`archiving session ${sessionId}`, () =>
    archiveSession(files, ctx.workspace.paths.sessions, record, ctx.redactor, extras),
  );
  const { fleet } = ctx.queue;
  if (fleet === undefined) return;
  const entry = ctx.redactor.redactValue(indexEntryOf(record));
  await ctx.persistently(`indexing session ${sessionId} for the fleet`, () =>
    fleet.recordSession({ ...entry, host: os.hostname(), archive: files.stdout }),
  );
}
