import type { IndexEntry } from '../archive/index-entry.js';
import * as z from '../lib/zod.js';
import type { PlanFile } from './plan-schema.js';

/** The last run's plan against what its night did (`ralph report`, the dashboard's night). */
export const PlanOutcomeSchema = z.object({
  madeAt: z.string(),
  planned: z.object({
    items: z.number(),
    costUsd: z.number(),
    endsAt: z.string().optional(),
    left: z.number(),
  }),
  /** What the sessions since the plan did. */
  outcome: z.object({
    /** Items that ran, and those of them the plan had for tonight. */
    items: z.number(),
    plannedRan: z.number(),
    /** Items the plan had for tonight whose last session succeeded. */
    plannedSucceeded: z.number(),
    costUsd: z.number(),
    endedAt: z.string().optional(),
    /** Whether the planned items that ran started in the plan's order. */
    inPlanOrder: z.boolean(),
  }),
});

export type PlanOutcome = z.output<typeof PlanOutcomeSchema>;

/**
 * The plan against the sessions its run started: a reviewer's session is no item's work, but
 * its cost is spent as every other cost counts it.
 */
export function planOutcome(plan: PlanFile, entries: readonly IndexEntry[]): PlanOutcome {
  const since = Date.parse(plan.madeAt);
  const all = entries
    .filter((e) => Date.parse(e.startedAt) >= since)
    .sort((a, b) => Date.parse(a.startedAt) - Date.parse(b.startedAt));
  const ran = all.filter((e) => e.role === undefined);
  const planned = new Set(plan.planned);
  const started: string[] = [];
  const last = new Map<string, IndexEntry>();
  for (const entry of ran) {
    if (!started.includes(entry.itemId)) started.push(entry.itemId);
    last.set(entry.itemId, entry);
  }
  const startedPlanned = started.filter((id) => planned.has(id));
  const ranSet = new Set(started);
  const planOrder = plan.planned.filter((id) => ranSet.has(id));
  const ended = ran.map((e) => e.endedAt).filter((t): t is string => t !== undefined);
  return {
    madeAt: plan.madeAt,
    planned: {
      items: plan.planned.length,
      costUsd: plan.summary.costUsd,
      endsAt: plan.summary.endsAt,
      left: plan.summary.left,
    },
    outcome: {
      items: started.length,
      plannedRan: startedPlanned.length,
      plannedSucceeded: startedPlanned.filter(
        (id) => last.get(id)?.outcome === 'success' && last.get(id)?.asked !== true,
      ).length,
      costUsd: all.reduce((sum, e) => sum + e.costUsd, 0),
      endedAt: ended.sort().at(-1),
      inPlanOrder: startedPlanned.every((id, index) => planOrder[index] === id),
    },
  };
}
