import { makeRepo } from './git.js';
import { FAKE_CLAUDE, makeWorkspace, ralph, readQueue } from './workspace.js';

/** The default landing target. */
export const TARGET = 'ralph/landed';

/**
 * A workspace in git mode over a new repository, its items run by the fake agent, landing on
 * unless `land` says otherwise; `config` over the rest.
 */
export async function landingWorkspace(land: Record<string, unknown> = {}, config = {}) {
  const repo = await makeRepo();
  const root = await makeWorkspace({
    clis: { claude: { command: [FAKE_CLAUDE] } },
    defaults: { workDir: repo },
    git: { enabled: true },
    land: { enabled: true, ...land },
    run: { failureBackoffCap: 0, maxConsecutiveFailures: 0, pollInterval: 0.2 },
    ...config,
  });
  return { repo, root };
}

/** An item as the workspace's queue file has it now. */
export const item = (root: string, id: string) =>
  readQueue(root).items.find((i) => i.id === id) as Record<string, unknown>;

/** Queues an item for each id, from main, whose agent writes a file of its own (`<id>.txt`). */
export async function addFileItems(
  root: string,
  ids: readonly string[],
  title = (id: string) => `Item ${id}`,
): Promise<void> {
  for (const id of ids)
    await ralph(root, [
      'add',
      title(id),
      '--id',
      id,
      '--base',
      'main',
      '--body',
      `#behave: land file=${id}.txt`,
    ]);
}

/** Queues an item with one criterion, its agent's (`#behave:`) and reviewer's (`#review:`) part in `body`. */
export const addWithCriterion = (root: string, id: string, body: string, ...flags: string[]) =>
  ralph(root, [
    'add',
    `Item ${id}`,
    '--id',
    id,
    '--body',
    body,
    '--criterion',
    'it writes its file',
    ...flags,
  ]);
