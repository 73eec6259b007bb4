import os from 'node:os';
import { formatCost } from '../../lib/usd.js';
import { formatDuration } from '../../lib/duration.js';
import { ExitCode } from '../../lib/exit-codes.js';
import { openWorkspace } from '../open-workspace.js';
import type { Output } from '../output.js';
import { renderTable } from '../table.js';
import {
  checkSessionStatus,
  newestFirst,
  parseSince,
  sessionIndex,
  withRunning,
} from '../../workspace/sessions.js';

/** `ralph sessions`: one line per session, newest first, from the index. */
export async function sessionsCommand(
  root: string,
  options: { item?: string; status?: string; since?: string; json?: boolean },
  output: Output,
  env: Readonly<Record<string, string | undefined>>,
): Promise<number> {
  if (options.status !== undefined) checkSessionStatus(options.status);
  const workspace = await openWorkspace(root);
  const since = options.since === undefined ? undefined : parseSince(options.since, Date.now());
  const { entries, skipped } = await sessionIndex(workspace, env);
  const shown = newestFirst(await withRunning(workspace, entries), since).filter(
    (e) =>
      (options.item === undefined || e.itemId === options.item) &&
      (options.status === undefined || e.status === options.status || e.outcome === options.status),
  );
  if (options.json) {
    output.out(JSON.stringify(shown, null, 2));
    return ExitCode.ok;
  }
  if (skipped > 0)
    output.err(`ralph: ${skipped} unreadable line(s) of the session index were skipped`);
  if (shown.length === 0) {
    output.out('No sessions.');
    return ExitCode.ok;
  }
  // A fleet's index: each session's machine.
  const fleet = workspace.config.queue.backend !== 'file';
  const rows = shown.map((e) => [
    e.sessionId,
    e.startedAt.slice(0, 19).replace('T', ' '),
    e.itemId,
    e.outcome,
    e.durationMs === undefined ? '-' : formatDuration(e.durationMs / 1000),
    e.turns === undefined ? '-' : String(e.turns),
    String(e.toolCalls),
    formatCost(e.costUsd, e.costEstimated),
    // An asked session (a reviewer's, a judge's) is told from its author's by its CLI column.
    e.role === undefined ? e.cli : `${e.cli} (${e.role})`,
    ...(fleet ? [e.host ?? os.hostname()] : []),
  ]);
  output.out(
    renderTable(
      [
        ...['SESSION', 'STARTED', 'ITEM', 'OUTCOME', 'TIME', 'TURNS', 'TOOLS', 'COST', 'CLI'],
        ...(fleet ? ['HOST'] : []),
      ],
      rows,
    ),
  );
  return ExitCode.ok;
}
