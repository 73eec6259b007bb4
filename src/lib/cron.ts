import type { CronExpressionParser as Parser } from 'cron-parser';
import { lazyRequire } from './lazy-require.js';

/**
 * cron-parser (and luxon under it), required at the first cron expression: most commands, and
 * the pure transitions that import this module, never meet one, and it would cost their start.
 */
const cronModule = lazyRequire<{ CronExpressionParser: typeof Parser }>('cron-parser');
const cronParser = () => cronModule().CronExpressionParser;

/** Checks a cron expression; returns the problem, or undefined when it is valid. */
export function cronProblem(expression: string): string | undefined {
  // cron-parser reads an empty expression as "every minute": never what a person meant.
  if (expression.trim() === '') return 'a cron expression cannot be empty';
  const fields = expression.trim().split(/\s+/).length;
  if (fields < 5 || fields > 6) {
    return `expected 5 fields (minute hour day month weekday), got ${fields} in ${JSON.stringify(expression)}`;
  }
  try {
    cronParser().parse(expression);
    return undefined;
  } catch (error) {
    return `invalid cron expression ${JSON.stringify(expression)}: ${error instanceof Error ? error.message : String(error)}`;
  }
}

/** The first time strictly after `after` that the expression names (always `next()`, never `prev()`). */
export function nextCronTime(expression: string, after: number, timeZone?: string): number {
  const parsed = cronParser().parse(expression, {
    currentDate: new Date(after),
    ...(timeZone === undefined ? {} : { tz: timeZone }),
  });
  const next = parsed.next().getTime();
  return next > after ? next : parsed.next().getTime();
}

/** Whether the minute containing `at` is one the expression names. */
export function cronMatches(expression: string, at: number, timeZone?: string): boolean {
  const minute = Math.floor(at / 60_000) * 60_000;
  return nextCronTime(expression, minute - 1, timeZone) === minute;
}
