import * as z from '../lib/zod.js';
import { BranchName, RemoteName } from '../config/values.js';
import { GateSchema } from '../gates/config-schema.js';

/** How a landing merges an item's branch onto the target. */
export const LAND_METHODS = ['merge', 'rebase', 'squash'] as const;

/** Landing as an item or a persona may set it: each key overrides the workspace's. */
export const LandChoiceSchema = z.strictObject({
  /** Land the item's branch once its gates pass (`ralph add --land`, `--no-land`). */
  enabled: z.boolean().optional(),
  /** The branch the night's work lands on. */
  target: BranchName.optional(),
  method: z.enum(LAND_METHODS).optional(),
  /** Run on the merged tree before the target moves (default: the item's gates). */
  gates: z.array(GateSchema).optional(),
  /** Landings that fail (a conflict, a land gate) before the item is failed. */
  maxRounds: z.int().positive().max(20).optional(),
  /** A remote the target is pushed to after each landing (never by force). */
  push: RemoteName.optional(),
});

export type LandChoice = z.output<typeof LandChoiceSchema>;

/** Landing: git mode's branches merged onto one target, re-checked after every merge. */
export const LandSchema = z.strictObject({
  enabled: z.boolean().default(false),
  target: BranchName.default('ralph/landed'),
  method: z.enum(LAND_METHODS).default('merge'),
  gates: z.array(GateSchema).optional(),
  maxRounds: z.int().positive().max(20).default(2),
  push: RemoteName.optional(),
});
