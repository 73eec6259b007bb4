import * as z from '../lib/zod.js';

/**
 * `state/budget.json` as ralph writes it. The totals are required: a file without them is not
 * a budget, and taking it as empty would overwrite the all-time figures.
 */
export const BudgetSchema = z.looseObject({
  /** Checked before (`schemaOf`): a newer one is refused. */
  schema: z.int().positive().optional(),
  totalCostUsd: z.number().nonnegative(),
  iterations: z.int().nonnegative(),
  outcomes: z.record(z.string(), z.int().nonnegative()).default({}),
  run: z
    .object({
      startedAt: z.string(),
      costUsd: z.number().nonnegative(),
      iterations: z.int().nonnegative(),
      maxCostUsd: z.number().positive().optional(),
      maxIterations: z.int().positive().optional(),
    })
    .optional(),
  updatedAt: z.string().optional(),
});
