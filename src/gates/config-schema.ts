import * as z from '../lib/zod.js';
import { LimitSchema } from '../config/values.js';

/**
 * A quality gate: a command run in the item's work dir after a successful session. An argv
 * array (ralph runs no shell: a user who wants one writes `["sh", "-c", "…"]`), or an object
 * with a name and a timeout.
 */
export const GateSchema = z
  .union(
    [
      z.array(z.string().min(1)).min(1),
      z.strictObject({
        name: z
          .string()
          .min(1)
          .describe('The name it is reported by (default: its command).')
          .optional(),
        command: z
          .array(z.string().min(1))
          .min(1)
          .describe('argv, run without a shell in the work dir.'),
        timeout: LimitSchema.describe('Its time limit (default 600 s).').optional(),
      }),
    ],
    {
      error:
        'a gate is a command (a non-empty array of strings) or { "name"?, "command", "timeout"? }',
    },
  )
  .transform((gate) => {
    const { name, command, timeout } = Array.isArray(gate) ? { command: gate } : gate;
    return { name: name ?? command.join(' '), command, timeout: timeout ?? 600 };
  });

export type Gate = z.output<typeof GateSchema>;
