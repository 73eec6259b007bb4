import fsp from 'node:fs/promises';
import path from 'node:path';
import { clearStaleLock, repositoryOfWorktree, retireWorktree } from '../git/worktree.js';
import { pruneWorktrees } from '../git/worktree-records.js';
import { pathExists } from '../lib/fs.js';
import type { Item } from '../queue/item.js';
import { statusIs } from '../queue/item-status.js';
import type { WorkHost } from './host.js';

/** What tidying worktrees needs of the runner: the workspace and the log. */
type WorktreeHost = Pick<WorkHost, 'workspace' | 'events'>;
import { itemWorktree } from '../config/workspace.js';

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** Whether an item may still be worked on: its worktree waits for the next attempt. */
function needsWorktree(item: Item | undefined): boolean {
  return item !== undefined && statusIs(item.status, 'keepsWorktree');
}

async function remove(
  ctx: WorktreeHost,
  itemId: string,
  dir: string,
  item: Item | undefined,
): Promise<string | undefined> {
  const repo = await repositoryOfWorktree(dir);
  try {
    if (repo === undefined) await fsp.rm(dir, { recursive: true, force: true });
    else await retireWorktree(repo, dir, itemId, item?.status ?? 'removed');
    ctx.events.info('worktree_removed', { item: itemId, worktree: dir });
  } catch (error) {
    ctx.events.warn('worktree_failed', {
      item: itemId,
      operation: 'removing the worktree',
      error: messageOf(error),
    });
  }
  return repo;
}

/**
 * Removes an item's worktree once the item no longer needs it (done, failed, cancelled or
 * removed); its branch stays, with the work committed on it.
 */
export async function tidyWorktree(
  ctx: WorktreeHost,
  itemId: string,
  item: Item | undefined,
): Promise<void> {
  if (needsWorktree(item)) return;
  const dir = itemWorktree(ctx.workspace.paths, itemId);
  if (await pathExists(dir)) await remove(ctx, itemId, dir, item);
}

/**
 * Crash recovery of git mode: the worktree of every item that no longer needs it is removed,
 * the others lose the index lock a killed git left, and each repository forgets the worktrees
 * whose directories are gone. Runs after the dead runner's items were requeued.
 */
export async function tidyWorktrees(ctx: WorktreeHost, items: readonly Item[]): Promise<void> {
  const root = ctx.workspace.paths.worktrees;
  // A dot name is none of an item's: the shared dependency trees (.dependencies).
  const names = (await fsp.readdir(root).catch(() => [] as string[])).filter(
    (name) => !name.startsWith('.'),
  );
  const byId = new Map(items.map((item) => [item.id, item]));
  const repos = new Set<string>();
  for (const name of names) {
    const dir = path.join(root, name);
    const item = byId.get(name);
    if (!needsWorktree(item)) {
      const repo = await remove(ctx, name, dir, item);
      if (repo !== undefined) repos.add(repo);
      continue;
    }
    const repo = await repositoryOfWorktree(dir);
    if (repo === undefined) continue;
    repos.add(repo);
    if (await clearStaleLock(dir).catch(() => false))
      ctx.events.warn('worktree_failed', {
        item: name,
        operation: 'recovering after a crash',
        error: 'a stale index.lock was removed',
      });
  }
  for (const repo of repos) await pruneWorktrees(repo).catch(() => undefined);
}
