import * as z from '../lib/zod.js';
import { PlanSummarySchema } from '../events/plan-summary.js';

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
