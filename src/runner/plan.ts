import { sessionFiles } from '../archive/paths.js';
import { randomUUID } from 'node:crypto';
import type { Workspace } from '../config/workspace.js';
import { FileCache } from '../lib/file-cache.js';
import { unrunnableItems } from '../queue/dependencies.js';
import { selectNext } from '../queue/select.js';
import { withQueueReader } from '../queue/open.js';
import { readBudget } from '../control/budget.js';
import { fallbackClisInUse, fallbackProblem } from '../session/fallback-clis.js';
import type { PreparationError } from '../session/preparation-error.js';
import { prepareSession, type PreparedSession } from '../session/prepare.js';

/** One item of a planned run. */
export interface PlannedItem {
  id: string;
  title: string;
  /** Its session as it would be spawned, or why it would be refused. */
  session: PreparedSession | PreparationError;
}

/** What `ralph run --dry-run` shows: the runnable items in order, and those that never will be. */
export interface Plan {
  items: PlannedItem[];
  unrunnable: { id: string; reason: string }[];
  /** Fallback CLIs that could not take over: the run would not start (`refuse`), or a warning. */
  fallbackProblems: { refuse: boolean; problem: string }[];
}

/**
 * The sessions a run would start now, in the order it would start them, prepared exactly as
 * the runner prepares them; nothing is spawned or written.
 */
export async function planRun(
  workspace: Workspace,
  env: Readonly<Record<string, string | undefined>>,
  now: number,
): Promise<Plan> {
  const items = await withQueueReader(workspace, env, (queue) => queue.list());
  const simulated = items.map((item) => ({ ...item }));
  const files = new FileCache();
  let iteration = (await readBudget(workspace.paths.budget)).iterations + 1;
  const planned: PlannedItem[] = [];
  for (
    let next = selectNext(simulated, now);
    next !== undefined;
    next = selectNext(simulated, now)
  ) {
    const sessionId = randomUUID();
    const session = await prepareSession({
      workspace,
      item: { ...next, attempts: next.attempts + 1 },
      identity: {
        sessionId,
        iteration: iteration++,
        files: sessionFiles(workspace.paths.sessions, sessionId),
      },
      parentEnv: env,
      cache: files,
      mode: 'plan',
    });
    planned.push({ id: next.id, title: next.title, session });
    next.status = 'done';
  }
  const fallbackProblems = [];
  for (const fallback of await fallbackClisInUse(workspace, items, files)) {
    const found = fallbackProblem(workspace, fallback, env);
    if (found !== undefined) fallbackProblems.push(found);
  }
  return { items: planned, unrunnable: unrunnableItems(items), fallbackProblems };
}
