import { z } from 'zod';
import { parseJsonText, readIfExists, writeJsonAtomically } from '../lib/fs.js';
import { CorruptStateError } from '../lib/errors.js';
import { formatIssues } from '../lib/validation.js';

/** `state/budget.json`: what the workspace has spent, in all and in the current run. */
export const BudgetSchema = z.looseObject({
  totalCostUsd: z.number().nonnegative().default(0),
  iterations: z.int().nonnegative().default(0),
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

export type Budget = z.output<typeof BudgetSchema>;

/** Reads the budget file (absent means nothing spent yet). */
export async function readBudget(file: string): Promise<Budget> {
  const text = await readIfExists(file);
  const parsed = BudgetSchema.safeParse(text === undefined ? {} : parseJsonText(text, file));
  if (!parsed.success) throw new CorruptStateError(formatIssues(file, parsed.error));
  return parsed.data;
}

/** Adds one finished session to the totals and writes the file. */
export async function recordSpend(
  file: string,
  spend: { costUsd: number; outcome: string; now: number },
): Promise<Budget> {
  const budget = await readBudget(file);
  const next: Budget = {
    ...budget,
    totalCostUsd: budget.totalCostUsd + spend.costUsd,
    iterations: budget.iterations + 1,
    outcomes: { ...budget.outcomes, [spend.outcome]: (budget.outcomes[spend.outcome] ?? 0) + 1 },
    run:
      budget.run === undefined
        ? undefined
        : {
            ...budget.run,
            costUsd: budget.run.costUsd + spend.costUsd,
            iterations: budget.run.iterations + 1,
          },
    updatedAt: new Date(spend.now).toISOString(),
  };
  await writeJsonAtomically(file, next);
  return next;
}

/** Starts the current run's account with its limits. */
export async function startRun(
  file: string,
  run: { now: number; maxCostUsd?: number; maxIterations?: number },
): Promise<Budget> {
  const budget = await readBudget(file);
  const next: Budget = {
    ...budget,
    run: {
      startedAt: new Date(run.now).toISOString(),
      costUsd: 0,
      iterations: 0,
      maxCostUsd: run.maxCostUsd,
      maxIterations: run.maxIterations,
    },
    updatedAt: new Date(run.now).toISOString(),
  };
  await writeJsonAtomically(file, next);
  return next;
}
