import * as z from '../lib/zod.js';
import { CronSchema, DurationSchema, isTimeZone } from '../config/values.js';

/** How the night runs: its pace, its limits and its guards. */
export const RunSchema = z.strictObject({
  delay: DurationSchema.default(0).describe('Pause between two items.'),
  pollInterval: DurationSchema.default(5).describe(
    'How often an idle runner looks for new items besides watching the queue file.',
  ),
  killGrace: DurationSchema.default(5).describe(
    'Grace between SIGINT, SIGTERM and SIGKILL when an agent is stopped.',
  ),
  afterResultGrace: DurationSchema.default(10).describe(
    'How long an agent may run on after its `result` line (the CLI sometimes does).',
  ),
  maxConsecutiveFailures: z
    .int()
    .nonnegative()
    .default(5)
    .describe('Consecutive failures that pause the night (the circuit breaker); 0 turns it off.'),
  retryBackoffCap: DurationSchema.default(1800).describe(
    "Cap of the wait before a failed item's next attempt (1, 2, 4, … minutes up to this).",
  ),
  failureBackoffCap: DurationSchema.default(300).describe(
    'Cap of the backoff between consecutive failures (2 s, 4 s, 8 s, … up to this).',
  ),
  rateLimitBackoff: DurationSchema.default(60).describe(
    'How long a rate limit that names no reset time holds the night (the other CLIs report a 429 without one); it doubles with each one in a row, up to `maxLimitWait`.',
  ),
  limitMargin: DurationSchema.default(30).describe(
    "Margin added to a usage limit's reset time before the next try.",
  ),
  maxLimitWait: DurationSchema.default(6 * 3600).describe(
    'Longest a `--drain` run waits for a usage limit to reset; past it the run ends (exit 7).',
  ),
  windows: z
    .array(CronSchema)
    .default([])
    .describe('Cron expressions naming the minutes when new items may start; empty means always.'),
  timeZone: z
    .string()
    .refine(isTimeZone, {
      message: 'not a time zone this machine knows (an IANA name such as "Europe/Berlin")',
    })
    .optional()
    .describe("Time zone of `windows` and of `--until` (IANA name); default: the machine's."),
  maxOutputBytes: z
    .int()
    .positive()
    .default(2 * 1024 ** 3)
    .describe('Bytes of output (stdout and stderr) past which an agent is stopped.'),
  minFreeBytes: z
    .int()
    .nonnegative()
    .default(100 * 1024 ** 2)
    .describe(
      'Free bytes the state and archive file systems must keep: below this no item starts, a running agent is stopped and the night pauses, so state changes always have room. 0: off.',
    ),
  watchdog: DurationSchema.default(600).describe(
    'Longest a state or archive operation of the loop may take; past it the runner is wedged (a hung mount, say) and exits 70 rather than hang all night. 0: off.',
  ),
  maxCostUsd: z
    .number()
    .positive()
    .optional()
    .describe('Limit on what one run may spend, in USD (`--max-cost` overrides it).'),
  workers: z
    .int()
    .min(1)
    .max(16)
    .default(1)
    .describe(
      'Items run at once (`--workers`); without git mode only items with different work dirs.',
    ),
  checkLogins: z
    .boolean()
    .default(true)
    .describe(
      "Ask each CLI the queue will run on whether it can log in before the first item, spending no token (an API key shown to its API, else the CLI's own status command): one that cannot is held for the run, and the night is paused when it is some item's only CLI.",
    ),
  keepAwake: z
    .boolean()
    .default(true)
    .describe(
      'Hold a sleep inhibitor (systemd-inhibit) while any session runs, released when none does (idle, paused, waiting for a window): the machine does not suspend under an agent. Where there is none, the run says so at its start.',
    ),
  maxAwaitingReview: z
    .int()
    .positive()
    .optional()
    .describe(
      'Items waiting on a person (done and not yet accepted, a pull request ready to merge, a question, a failure, a rejection that could not be carried out) past which no new item starts: work in progress sized to what a person can review. The run says why it holds. Absent: no limit.',
    ),
  reserve: z
    .number()
    .min(0)
    .max(0.9)
    .default(0)
    .describe(
      "The share of a subscription's usage window the night leaves unspent for the person's morning: once a CLI reports its window used past `1 - reserve`, no item starts on it until the window resets. 0: off.",
    ),
});
