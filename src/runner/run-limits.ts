import { cronMatches, nextCronTime } from '../lib/cron.js';

/** The limits of one run that decide whether a new item may start. */
export interface RunLimits {
  /** No new item at or after this time (epoch ms). */
  deadline?: number;
  /** Cron expressions naming the minutes when items may start; empty means always. */
  windows: readonly string[];
  timeZone?: string;
  /** What the run may spend, in USD. */
  maxCostUsd?: number;
}

/** Whether the loop may claim an item now. */
export type LimitCheck =
  /** Go on; `budgetLeftUsd` caps the next session's --max-budget-usd. */
  | { kind: 'open'; budgetLeftUsd?: number }
  | { kind: 'wait'; until: number; reason: string }
  /** `cost`: the budget is spent (a person is told of it apart from a deadline). */
  | { kind: 'stop'; reason: string; cost?: boolean };

/** Decides, before each claim, whether the run's deadline, windows and budget allow an item. */
export function checkRunLimits(limits: RunLimits, now: number, spentUsd: number): LimitCheck {
  if (limits.deadline !== undefined && now >= limits.deadline) {
    return {
      kind: 'stop',
      reason: `the deadline ${new Date(limits.deadline).toISOString()} has passed`,
    };
  }
  if (limits.maxCostUsd !== undefined && spentUsd >= limits.maxCostUsd) {
    return {
      kind: 'stop',
      reason: `the run has spent $${spentUsd.toFixed(4)} of its $${limits.maxCostUsd} limit`,
      cost: true,
    };
  }
  if (
    limits.windows.length > 0 &&
    !limits.windows.some((w) => cronMatches(w, now, limits.timeZone))
  ) {
    const opens = Math.min(...limits.windows.map((w) => nextCronTime(w, now, limits.timeZone)));
    if (limits.deadline !== undefined && opens >= limits.deadline) {
      return { kind: 'stop', reason: 'no run window opens before the deadline' };
    }
    return { kind: 'wait', until: opens, reason: 'outside the run windows' };
  }
  return {
    kind: 'open',
    budgetLeftUsd: limits.maxCostUsd === undefined ? undefined : limits.maxCostUsd - spentUsd,
  };
}

/**
 * Reads `--until`: `HH:MM` is the next such local time after `now` (tomorrow if it has passed
 * today); an ISO 8601 time is taken as it is. Undefined when the text is neither.
 */
export function parseDeadline(text: string, now: number): number | undefined {
  const clock = /^(\d{1,2}):(\d{2})$/.exec(text.trim());
  if (clock) {
    const [hours, minutes] = [Number(clock[1]), Number(clock[2])];
    if (hours > 23 || minutes > 59) return undefined;
    const at = new Date(now);
    at.setHours(hours, minutes, 0, 0);
    if (at.getTime() <= now) at.setDate(at.getDate() + 1);
    return at.getTime();
  }
  const time = Date.parse(text);
  return Number.isNaN(time) ? undefined : time;
}
