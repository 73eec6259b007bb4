import * as z from '../lib/zod.js';

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

/** What `state/plan.json` keeps of the plan a run started with, to hold the night to it. */
export const PlanFileSchema = z.object({
  madeAt: z.string(),
  workers: z.number(),
  reserve: z.number(),
  /** The items the plan expected the night to run, in the order it expected to start them. */
  planned: z.array(z.string()),
  summary: PlanSummarySchema,
});

export type PlanFile = z.output<typeof PlanFileSchema>;
