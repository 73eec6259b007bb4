import fsp from 'node:fs/promises';
import { writeJsonAtomically } from '../lib/fs.js';
import type { IndexEntry } from '../archive/index-entry.js';
import { planSummary, type NightPlan } from './night-plan.js';
import { planOutcome, type PlanOutcome } from './plan-outcome.js';
import { PlanFileSchema, type PlanFile } from './plan-schema.js';

/** The plan as the file keeps it. */
export function planFileOf(plan: NightPlan): PlanFile {
  return {
    madeAt: new Date(plan.madeAt).toISOString(),
    workers: plan.workers,
    reserve: plan.reserve,
    planned: plan.items.filter((p) => p.left === undefined).map((p) => p.id),
    summary: planSummary(plan),
  };
}

export async function writePlanFile(file: string, plan: NightPlan): Promise<void> {
  await writeJsonAtomically(file, planFileOf(plan));
}

/** The last run's plan; undefined when there is none, or it cannot be read. */
export async function readPlanFile(file: string): Promise<PlanFile | undefined> {
  const text = await fsp.readFile(file, 'utf8').catch(() => undefined);
  if (text === undefined) return undefined;
  try {
    const parsed = PlanFileSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The plan in `file` against the sessions given; undefined without a plan, or with one made
 * before `since` (an older run's).
 */
export async function lastPlanOutcome(
  file: string,
  entries: readonly IndexEntry[],
  since?: string,
): Promise<{ plan: PlanFile; outcome: PlanOutcome } | undefined> {
  const plan = await readPlanFile(file);
  if (plan === undefined) return undefined;
  if (since !== undefined && Date.parse(plan.madeAt) < Date.parse(since)) return undefined;
  return { plan, outcome: planOutcome(plan, entries) };
}
