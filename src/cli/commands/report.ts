import { readIndex, type IndexEntry } from '../../archive/index.js';
import { formatDuration } from '../../lib/duration.js';
import { ExitCode } from '../../lib/exit-codes.js';
import { openWorkspace } from '../open-workspace.js';
import type { Output } from '../output.js';
import { renderTable } from '../table.js';
import { newestFirst, parseSince } from '../session-lookup.js';

/** Sums of a group of sessions. */
export interface ReportGroup {
  key: string;
  sessions: number;
  done: number;
  failed: number;
  interrupted: number;
  costUsd: number;
  seconds: number;
  failures: { sessionId: string; itemId: string; outcome: string; message?: string }[];
}

const SUCCESS = new Set(['success']);
const INTERRUPTED = new Set(['interrupted', 'stopped', 'rate_limited', 'resume_failed']);

function group(entries: readonly IndexEntry[], keyOf: (e: IndexEntry) => string): ReportGroup[] {
  const groups = new Map<string, ReportGroup>();
  for (const e of entries) {
    const key = keyOf(e);
    let g = groups.get(key);
    if (g === undefined) {
      g = {
        key,
        sessions: 0,
        done: 0,
        failed: 0,
        interrupted: 0,
        costUsd: 0,
        seconds: 0,
        failures: [],
      };
      groups.set(key, g);
    }
    g.sessions++;
    g.costUsd += e.costUsd;
    g.seconds += (e.durationMs ?? 0) / 1000;
    if (SUCCESS.has(e.outcome)) g.done++;
    else if (INTERRUPTED.has(e.outcome)) g.interrupted++;
    else {
      g.failed++;
      g.failures.push({
        sessionId: e.sessionId,
        itemId: e.itemId,
        outcome: e.outcome,
        message: e.message,
      });
    }
  }
  return [...groups.values()].sort((a, b) => a.key.localeCompare(b.key));
}

/** `ralph report`: outcomes, cost and time per day and per item. */
export async function reportCommand(
  root: string,
  options: { since?: string; json?: boolean },
  output: Output,
): Promise<number> {
  const workspace = await openWorkspace(root);
  const since = options.since === undefined ? undefined : parseSince(options.since, Date.now());
  const entries = newestFirst((await readIndex(workspace.paths.sessions)).entries, since).reverse();
  const byDay = group(entries, (e) => e.startedAt.slice(0, 10));
  const byItem = group(entries, (e) => e.itemId);
  if (options.json) {
    output.out(
      JSON.stringify(
        { since: since === undefined ? undefined : new Date(since).toISOString(), byDay, byItem },
        null,
        2,
      ),
    );
    return ExitCode.ok;
  }
  if (entries.length === 0) {
    output.out('No sessions to report.');
    return ExitCode.ok;
  }
  const table = (title: string, groups: ReportGroup[]) => {
    const rows = groups.map((g) => [
      g.key,
      String(g.sessions),
      String(g.done),
      String(g.failed),
      String(g.interrupted),
      `$${g.costUsd.toFixed(4)}`,
      formatDuration(g.seconds),
    ]);
    return renderTable(
      [title, 'SESSIONS', 'DONE', 'FAILED', 'INTERRUPTED', 'COST', 'TIME'],
      rows,
    ).split('\n');
  };
  const failures = byItem.flatMap((g) => g.failures);
  output.out(
    [
      ...table('DAY', byDay),
      '',
      ...table('ITEM', byItem),
      ...(failures.length === 0
        ? []
        : [
            '',
            'Failures:',
            ...failures.map(
              (f) =>
                `  ${f.itemId} ${f.sessionId}: ${f.outcome}${f.message ? ` — ${f.message}` : ''}`,
            ),
          ]),
    ].join('\n'),
  );
  return ExitCode.ok;
}
