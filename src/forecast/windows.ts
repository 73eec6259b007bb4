import type { IndexEntry } from '../archive/index-entry.js';

/** A CLI's usage window as the archive last saw it, and what a dollar of work uses of it. */
export interface WindowReport {
  cli: string;
  /** `five_hour`, `seven_day`, … as the CLI names it. */
  kind: string;
  /** The share used (0–1) now: 0 when the window reported has reset since. */
  utilization: number;
  /** When it resets (epoch ms); unknown once the window reported has reset. */
  resetsAt?: number;
  /** When it was last reported (epoch ms). */
  reportedAt: number;
  /**
   * Dollars of sessions per whole window (utilization 0 → 1), from how it grew between
   * reports of the same window; absent until two reports of one window are archived.
   */
  usdPerWindow?: number;
}

/** Each CLI's windows from the sessions that reported them, as of `now`. */
export function windowsOf(entries: readonly IndexEntry[], now: number): WindowReport[] {
  const reports = new Map<string, { cli: string; kind: string; entries: IndexEntry[] }>();
  for (const entry of entries) {
    if (entry.windows === undefined || entry.endedAt === undefined) continue;
    for (const kind of Object.keys(entry.windows)) {
      const key = `${entry.cli}\n${kind}`;
      const found = reports.get(key) ?? { cli: entry.cli, kind, entries: [] };
      found.entries.push(entry);
      reports.set(key, found);
    }
  }
  return [...reports.values()].map(({ cli, kind, entries: reported }) => {
    const inOrder = [...reported].sort(
      (a, b) => Date.parse(a.endedAt ?? '') - Date.parse(b.endedAt ?? ''),
    );
    const last = inOrder[inOrder.length - 1] as IndexEntry;
    const window = last.windows?.[kind] as { utilization: number; resetsAt?: number };
    const resetsAt = window.resetsAt === undefined ? undefined : window.resetsAt * 1000;
    const reset = resetsAt !== undefined && resetsAt <= now;
    return {
      cli,
      kind,
      utilization: reset ? 0 : Math.min(1, window.utilization),
      resetsAt: reset ? undefined : resetsAt,
      reportedAt: Date.parse(last.endedAt ?? ''),
      usdPerWindow: usdPerWindow(inOrder, kind),
    };
  });
}

/**
 * What a whole window costs in sessions: each session's cost over what the window grew by
 * since the report before it (of the same window, not across a reset). The person's own use
 * of the subscription meanwhile makes it smaller: the plan errs on the side of the reserve.
 */
function usdPerWindow(inOrder: readonly IndexEntry[], kind: string): number | undefined {
  let grown = 0;
  let spent = 0;
  for (let i = 1; i < inOrder.length; i++) {
    const before = inOrder[i - 1]?.windows?.[kind];
    const after = inOrder[i]?.windows?.[kind];
    if (before === undefined || after === undefined) continue;
    if (before.resetsAt !== after.resetsAt || after.utilization < before.utilization) continue;
    grown += after.utilization - before.utilization;
    spent += inOrder[i]?.costUsd ?? 0;
  }
  return grown > 0 && spent > 0 ? toCents(spent / grown) : undefined;
}

/** How long a window lasts, for the next reset of one whose reset is past: by its kind's name. */
export function windowLengthMs(kind: string): number | undefined {
  if (kind === 'five_hour') return 5 * 3600_000;
  if (kind === 'seven_day' || kind.startsWith('seven_day_')) return 7 * 86_400_000;
  return undefined;
}

/**
 * The dollars of work a CLI may still spend in a window before `run.reserve` holds it: the
 * rest of the window but the reserve. Unknown (no limit the plan can apply) without a rate.
 */
export function headroomUsd(window: WindowReport, reserve: number): number | undefined {
  if (window.usdPerWindow === undefined) return undefined;
  return toCents(Math.max(0, 1 - reserve - window.utilization) * window.usdPerWindow);
}

/** Dollars to the hundredth of a cent: shares of a window carry binary fractions' dust. */
function toCents(usd: number): number {
  return Math.round(usd * 10_000) / 10_000;
}
