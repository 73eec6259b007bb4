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
import { foreseenPath } from '../queue/foreseen.js';
import type { ItemStatus } from '../queue/item-status.js';
import type { Item } from '../queue/item.js';
import { stagesOf } from './item-steps.js';

/** One item of a dry run. */
export interface DryRunItem {
  id: string;
  title: string;
  /** Its session as it would be spawned, or why it would be refused. */
  session: PreparedSession | PreparationError;
  /** The statuses its item goes through after a session that succeeds, the last where it rests. */
  through: readonly ItemStatus[];
  /** The items of this dry run it waits for, each until it rests where its dependents may run. */
  after: readonly string[];
}

/** What `ralph run --dry-run` shows: the runnable items in order, and those that never will be. */
export interface DryRun {
  items: DryRunItem[];
  unrunnable: { id: string; reason: string }[];
  /** Fallback CLIs that could not take over: the run would not start (`refuse`), or a warning. */
  fallbackProblems: { refuse: boolean; problem: string }[];
}

/**
 * The sessions a run would start, in the order it would start them, prepared exactly as the
 * runner prepares them; nothing is spawned or written.
 */
export async function planRun(
  workspace: Workspace,
  env: Readonly<Record<string, string | undefined>>,
  now: number,
): Promise<DryRun> {
  const items = await withQueueReader(workspace, env, (queue) => queue.list());
  const simulated = items.map((item) => ({ ...item }));
  const files = new FileCache();
  let iteration = (await readBudget(workspace.paths.budget)).iterations + 1;
  const planned: DryRunItem[] = [];
  // Each item once (a scheduled one rests runnable again, at its next time).
  const once = (item: Item) => planned.some((p) => p.id === item.id);
  for (
    let next = selectNext(simulated, now, once);
    next !== undefined;
    next = selectNext(simulated, now, once)
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
    // Every step assumed to go well, through the table's own events: a dependent waits for
    // what its dependency goes through after its session (its review, its landing).
    const path =
      'reason' in session
        ? { item: { ...next, status: 'failed' as const }, through: ['failed' as const] }
        : foreseenPath(next, stagesOf(session), sessionId, now);
    const inRun = new Set(planned.map((p) => p.id));
    planned.push({
      id: next.id,
      title: next.title,
      session,
      through: path.through,
      after: next.dependsOn.filter((id) => inRun.has(id)),
    });
    simulated[simulated.indexOf(next)] = path.item;
  }
  const fallbackProblems = [];
  for (const fallback of await fallbackClisInUse(workspace, items, files)) {
    const found = fallbackProblem(workspace, fallback, env);
    if (found !== undefined) fallbackProblems.push(found);
  }
  return { items: planned, unrunnable: unrunnableItems(items), fallbackProblems };
}
