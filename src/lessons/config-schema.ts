import * as z from '../lib/zod.js';
import { CLI_NAMES } from '../config/cli-names.js';
import { LimitSchema } from '../config/values.js';

/** Where an accepted rule lives. */
export const RULE_HOMES = ['workspace', 'repository'] as const;
export type RuleHome = (typeof RULE_HOMES)[number];

/** The longest a rule's text may be: a rule is a line, not an essay. */
export const MAX_RULE_CHARS = 200;

/**
 * Lessons: what a person's decisions (and the night's repeated failures) teach, proposed as
 * rules by a read-only session; a rule takes effect only once a person accepts it.
 */
export const LessonsSchema = z.strictObject({
  enabled: z
    .boolean()
    .default(true)
    .describe(
      'Gather lessons and propose rules after a night (`ralph lessons propose` asks at any time).',
    ),
  minEvidence: z
    .int()
    .positive()
    .max(100)
    .default(3)
    .describe(
      'New lessons that must have gathered before a night ends with a proposal (at most one a day, UTC).',
    ),
  into: z
    .enum(RULE_HOMES)
    .default('workspace')
    .describe(
      "Where an accepted rule lives: `workspace` (ralph's `rules.md` beside the standing instructions), or `repository` (the project's `AGENTS.md`, or its `CLAUDE.md` when it has only that, changed on a branch that lands through the land gates).",
    ),
  cli: z
    .enum(CLI_NAMES)
    .optional()
    .describe("The proposer's CLI (default: the reviewer's, `review.cli`, else the workspace's)."),
  model: z.string().min(1).optional().describe("The proposer's model, with `cli`."),
  timeout: LimitSchema.default(900).describe("Wall-clock limit of the proposer's session."),
  maxCostUsd: z.number().positive().default(2).describe('What one proposal may spend, in USD.'),
});

export type LessonsSettings = z.output<typeof LessonsSchema>;
