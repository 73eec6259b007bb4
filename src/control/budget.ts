import { addUsd } from '../lib/usd.js';
import type * as z from 'zod';
import { recordDigest, wroteItself } from '../lib/digest.js';
import { CorruptStateError, InputError } from '../lib/errors.js';
import { parseJsonText, readIfExists, refuseSymlink, writeFileAtomically } from '../lib/fs.js';
import { schemaOf } from '../lib/state-schema.js';
import { formatIssues } from '../lib/validation.js';
import type { BudgetSchema } from './budget-schema.js';

export type Budget = z.output<typeof BudgetSchema>;

/** The schema of `state/budget.json` (files of releases before it have none: 1). */
export const BUDGET_SCHEMA = 1;

/** The budget of a workspace that has spent nothing yet. */
export const NOTHING_SPENT: Budget = { totalCostUsd: 0, iterations: 0, outcomes: {} };

/**
 * Reads the budget file (absent means nothing spent yet). A file that is not a budget is
 * corrupt state (exit 4): it is left as it is, never taken as empty and overwritten.
 */
export async function readBudget(file: string): Promise<Budget> {
  // Never read through a planted link either: its target's text would end up in messages.
  await refuseSymlink(file);
  const text = await readIfExists(file);
  if (text === undefined) return NOTHING_SPENT;
  const advice =
    '\nThe file was left as it is; repair it, or remove it to start the totals from zero.';
  let raw: unknown;
  try {
    raw = parseJsonText(text, file);
    if (await wroteItself(file, text)) return raw as Budget;
    schemaOf(file, raw, BUDGET_SCHEMA);
  } catch (error) {
    if (error instanceof InputError) throw new CorruptStateError(`${error.message}${advice}`, file);
    throw error;
  }
  const { BudgetSchema } = await import('./budget-schema.js');
  const parsed = BudgetSchema.safeParse(raw);
  if (!parsed.success)
    throw new CorruptStateError(`${formatIssues(file, parsed.error)}${advice}`, file);
  return parsed.data;
}

async function writeBudget(file: string, budget: Budget): Promise<void> {
  const text = `${JSON.stringify({ ...budget, schema: BUDGET_SCHEMA }, null, 2)}\n`;
  await writeFileAtomically(file, text);
  await recordDigest(file, text);
}

/** The changes of each budget file under way in this process, chained one after another. */
const changing = new Map<string, Promise<unknown>>();

/**
 * Runs `change` of `file` after the ones before it: the runner owns the file (its lock), but its
 * sessions end side by side (a worker's and a reviewer's), and two read-modify-writes at once
 * would lose one session's spend.
 */
function inTurn<T>(file: string, change: () => Promise<T>): Promise<T> {
  const next = (changing.get(file) ?? Promise.resolve()).catch(() => undefined).then(change);
  changing.set(file, next);
  const forget = () => {
    if (changing.get(file) === next) changing.delete(file);
  };
  next.then(forget, forget);
  return next;
}

/** Adds one finished session to the totals and writes the file. */
export function recordSpend(
  file: string,
  spend: { costUsd: number; outcome: string; now: number },
): Promise<Budget> {
  return inTurn(file, async () => {
    const budget = await readBudget(file);
    const next: Budget = {
      ...budget,
      totalCostUsd: addUsd(budget.totalCostUsd, spend.costUsd),
      iterations: budget.iterations + 1,
      outcomes: {
        ...budget.outcomes,
        [spend.outcome]: (budget.outcomes[spend.outcome] ?? 0) + 1,
      },
      run:
        budget.run === undefined
          ? undefined
          : {
              ...budget.run,
              costUsd: addUsd(budget.run.costUsd, spend.costUsd),
              iterations: budget.run.iterations + 1,
            },
      updatedAt: new Date(spend.now).toISOString(),
    };
    await writeBudget(file, next);
    return next;
  });
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
  await writeBudget(file, next);
  return next;
}
