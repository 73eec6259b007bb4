import * as z from '../lib/zod.js';
import { BranchName, RemoteName } from '../config/values.js';
import { GateSchema } from '../gates/config-schema.js';

/** How a landing merges an item's branch onto the target. */
export const LAND_METHODS = ['merge', 'rebase', 'squash'] as const;

/** Landing as an item or a persona may set it: each key overrides the workspace's. */
export const LandChoiceSchema = z.strictObject({
  enabled: z
    .boolean()
    .describe("Land the item's branch once its gates pass (`ralph add --land`, `--no-land`).")
    .optional(),
  target: BranchName.describe(
    "The branch the night's work lands on, made from the repository's HEAD at the first landing.",
  ).optional(),
  method: z
    .enum(LAND_METHODS)
    .describe(
      "`merge` (a merge commit), `squash` (one commit an item) or `rebase` (the branch's commits replayed).",
    )
    .optional(),
  gates: z
    .array(GateSchema)
    .describe("Run on the merged tree before the target moves (default: the item's gates).")
    .optional(),
  maxRounds: z
    .int()
    .positive()
    .max(20)
    .describe(
      'Landings that fail (a conflict, a land gate) before the item is failed; each sends it back to its agent.',
    )
    .optional(),
  push: RemoteName.describe(
    'A remote the target is pushed to after each landing; a rejected push lands again on top, never forcing.',
  ).optional(),
});

export type LandChoice = z.output<typeof LandChoiceSchema>;

const choice = LandChoiceSchema.shape;

/** Landing: git mode's branches merged onto one target, re-checked after every merge. */
export const LandSchema = z.strictObject({
  ...choice,
  enabled: choice.enabled.unwrap().default(false),
  target: choice.target.unwrap().default('ralph/landed'),
  method: choice.method.unwrap().default('merge'),
  maxRounds: choice.maxRounds.unwrap().default(2),
});
