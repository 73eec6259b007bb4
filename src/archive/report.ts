import type { IndexEntry } from './index.js';

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

/** Outcomes, cost and time per day and per item, oldest first (`ralph report --json`). */
export function reportOf(entries: readonly IndexEntry[]): {
  byDay: ReportGroup[];
  byItem: ReportGroup[];
} {
  return {
    byDay: group(entries, (e) => e.startedAt.slice(0, 10)),
    byItem: group(entries, (e) => e.itemId),
  };
}
