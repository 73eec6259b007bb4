import * as z from '../lib/zod.js';

// The night plan in brief: what a run's `night_planned` event tells, and `state/plan.json` keeps.

/** The plan in brief, as the first lines of `ralph run` say it. */
export const PlanSummarySchema = z.object({
  items: z.number(),
  costUsd: z.number(),
  endsAt: z.string().optional(),
  left: z.number(),
  leftCostUsd: z.number(),
  /** Runnable items past those the plan takes. */
  beyond: z.number().optional(),
  groups: z.array(
    z.object({
      persona: z.string().optional(),
      cli: z.string(),
      model: z.string().optional(),
      items: z.number(),
      costUsd: z.number(),
      seconds: z.number(),
      basis: z.string(),
      sessions: z.number().optional(),
      succeeded: z.number().optional(),
    }),
  ),
  windows: z.array(
    z.object({
      cli: z.string(),
      kind: z.string(),
      utilization: z.number(),
      resetsAt: z.string().optional(),
      runsOutAt: z.string().optional(),
      itemsBefore: z.number(),
      headroomUsd: z.number().optional(),
    }),
  ),
  paced: z.boolean(),
});

export type PlanSummary = z.output<typeof PlanSummarySchema>;
