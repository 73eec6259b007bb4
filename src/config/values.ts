import * as z from '../lib/zod.js';
import { cronProblem } from '../lib/cron.js';
import { parseDuration } from '../lib/duration.js';

// The kinds of value settings are written in, shared by every room's settings.

/** A duration as written by people (`90s`, `15m`, `2h`, seconds), read as seconds. */
export const DurationSchema = z.union([z.number(), z.string()]).transform((value, ctx) => {
  const seconds = parseDuration(value);
  if (seconds === undefined) {
    ctx.addIssue({
      code: 'custom',
      message: `expected a duration such as "90s", "15m", "2h" or a number of seconds, got ${JSON.stringify(value)}`,
    });
    return z.NEVER;
  }
  return seconds;
});

/** A session limit: 0 would stop every session at once, so it is refused. */
export const LimitSchema = DurationSchema.refine((seconds) => seconds > 0, {
  message: 'must be more than 0: every session needs a limit (give a long one, such as "24h")',
});

/** Whether the runtime knows an IANA time zone name. */
export function isTimeZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

/** A 5-field cron expression, checked (an empty one is refused: cron-parser reads it as "always"). */
export const CronSchema = z.string().superRefine((expression, ctx) => {
  const problem = cronProblem(expression);
  if (problem !== undefined) ctx.addIssue({ code: 'custom', message: problem });
});

/** A tool rule list: claude's `Bash(git *)`, `Read`, …; never empty strings. */
export const ToolListSchema = z.array(z.string().trim().min(1, 'a tool rule cannot be empty'));

/** A branch name git takes (`git check-ref-format --branch`), in the safe part of its syntax. */
export const BranchName = z
  .string()
  .regex(
    /^(?![-/.])(?!.*(?:\.\.|\/\/|@\{|\/\.|\.lock$|\.$|\/$))[A-Za-z0-9._/-]{1,200}$/,
    'a branch name: ASCII letters, digits, ".", "_", "-" and "/" (no "..", no leading "-" or "/", no trailing "/", "." or ".lock")',
  );

/**
 * A remote of the repository, by its name: credentials stay in git's own configuration, never
 * in ralph's files or log.
 */
export const RemoteName = z
  .string()
  .regex(
    /^(?![-.])[A-Za-z0-9._-]{1,100}$/,
    'the name of a git remote (such as "origin"), not a URL',
  );

/** The name of an environment variable (never its value). */
export const EnvName = z
  .string()
  .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'the name of an environment variable, not its value');

/** Names usable as template placeholders. */
export const VAR_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
