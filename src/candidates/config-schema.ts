import * as z from '../lib/zod.js';
import { CLI_NAMES } from '../config/cli-names.js';
import { LimitSchema } from '../config/values.js';
import { CANDIDATE_WHENS } from '../config/candidate-whens.js';

/** Most candidates an item may have: each is a full attempt, paid for. */
export const MAX_CANDIDATES = 6;

/** One candidate: the CLI that tries the item, and its model. */
export const CandidateCliSchema = z.strictObject({
  cli: z.enum(CLI_NAMES).describe('The agent CLI that writes this candidate.'),
  model: z.string().min(1).optional().describe("Its model (default: the CLI's own)."),
});

export type CandidateCli = z.output<typeof CandidateCliSchema>;

const MaxCostSchema = z
  .number()
  .positive()
  .describe(
    "What the item's candidates and their judge may spend together, in USD: each candidate is held to its share (an even part, the judge's one of them), and the judge to what is left. Unset: each candidate is held to the item's `maxBudgetUsd` alone.",
  );

const ClisSchema = z
  .array(CandidateCliSchema)
  .min(2, 'candidates are at least two (one CLI is an ordinary attempt)')
  .max(MAX_CANDIDATES, `at most ${MAX_CANDIDATES} candidates`);

/**
 * An item's, or a persona's, candidates: several CLIs try the item, each a full attempt of its
 * own, and the gates and a judge pick the change that goes on.
 */
export const CandidateChoiceSchema = z.strictObject({
  clis: ClisSchema.optional().describe(
    'The CLIs that try the item, each with an optional model; the same CLI may appear twice.',
  ),
  when: z
    .enum(CANDIDATE_WHENS)
    .optional()
    .describe(
      "`always`: every candidate runs from the start; `after_failure`: the item's own CLI first, the others only when its attempt fails. Default: `always` for an item's own candidates, else `after_failure`.",
    ),
  maxCostUsd: MaxCostSchema.optional(),
});

export type CandidateChoice = z.output<typeof CandidateChoiceSchema>;

/** The workspace's candidates: every item's, unless its own or its persona's say otherwise. */
export const CandidatesSchema = z.strictObject({
  clis: ClisSchema.optional().describe(
    'The CLIs that try every item of git mode after its own attempt fails (`when`), each with an optional model.',
  ),
  when: z
    .enum(CANDIDATE_WHENS)
    .default('after_failure')
    .describe(
      "When the workspace's candidates run: `after_failure` (the thrifty default) or `always`.",
    ),
  maxCostUsd: MaxCostSchema.optional(),
  judge: z
    .strictObject({
      cli: z.enum(CLI_NAMES).describe("The judge's CLI."),
      model: z.string().min(1).optional().describe("The judge's model."),
    })
    .optional()
    .describe(
      "The judge of the passing candidates. Default: the first found of the reviewer's CLI (`review.cli`), the item's fallback CLIs and its own CLI that wrote none of them; else the reviewer's, else the item's own.",
    ),
  timeout: LimitSchema.default(900).describe("The judge's session's wall-clock limit."),
  maxDiffChars: z
    .int()
    .min(2_000)
    .max(400_000)
    .default(60_000)
    .describe("What the judge is given of all the candidates' diffs together, at most."),
});

export type CandidatesConfig = z.output<typeof CandidatesSchema>;
