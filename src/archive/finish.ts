import { writeFileAtomically, writeJsonAtomically } from '../lib/fs.js';
import type { Redactor } from '../lib/redact.js';
import { appendIndex } from './index.js';
import type { SessionFiles } from './paths.js';
import type { SessionRecord } from './record.js';
import { sessionSummaryMarkdown } from './summary-md.js';

/** What an interrupted or stopped session leaves for its resumption (`<id>-context.json`). */
export interface PreservedContext {
  sessionId: string;
  itemId: string;
  attempt: number;
  reason: string;
  interruptedAt?: string;
  resumeWith?: string;
  workDir: string;
  assistantMessages: number;
  toolCalls: number;
  lastTool?: string;
  lastText?: string;
  costUsd: number;
}

/**
 * Archives a finished session, secrets masked: the preserved context (if any), the summary,
 * then the final record, written last so that its presence means the session is complete,
 * then its line in the index.
 */
export async function archiveSession(
  files: SessionFiles,
  sessionsDir: string,
  record: SessionRecord,
  redactor: Redactor,
  extras: { lastText?: string; context?: PreservedContext } = {},
): Promise<void> {
  const redacted = redactor.redactValue(record);
  if (extras.context !== undefined)
    await writeJsonAtomically(files.context, redactor.redactValue(extras.context));
  await writeFileAtomically(
    files.summary,
    redactor.redact(sessionSummaryMarkdown(redacted, extras.lastText)),
  );
  await writeJsonAtomically(files.record, redacted);
  await appendIndex(sessionsDir, redacted);
}
