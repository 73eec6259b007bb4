import path from 'node:path';
import { itemWorktree, type Workspace } from '../config/workspace.js';
import { ControlFiles } from '../control/files.js';
import {
  deleteBranch,
  repositoryOfWorktree,
  retireWorktree,
  repositoryRoot,
} from '../git/worktree.js';
import { NotFoundError, RalphError } from '../lib/errors.js';
import { pathExists } from '../lib/fs.js';
import type { Item } from '../queue/item.js';
import { withQueueReader } from '../queue/open.js';

/** The repository an item works in: its worktree's, or its work dir's. */
async function repositoryOf(workspace: Workspace, item: Item): Promise<string | undefined> {
  const worktree = itemWorktree(workspace.paths, item.id);
  if (await pathExists(worktree)) {
    const repo = await repositoryOfWorktree(worktree);
    if (repo !== undefined) return repo;
  }
  const workDir = item.workDir ?? workspace.config.defaults.workDir ?? '.';
  return repositoryRoot(path.resolve(workspace.root, workDir));
}

/**
 * Removes the worktrees of items just cancelled or removed by hand. One whose session still
 * runs keeps it: the runner removes it when the session ends.
 */
export async function dropWorktrees(
  workspace: Workspace,
  ids: readonly string[],
  why: 'cancelled' | 'removed',
): Promise<void> {
  const { records } = await new ControlFiles(workspace.paths).readRunningSessions();
  for (const id of ids) {
    const dir = itemWorktree(workspace.paths, id);
    if (records.some((r) => r.itemId === id) || !(await pathExists(dir))) continue;
    const repo = await repositoryOfWorktree(dir);
    if (repo !== undefined) await retireWorktree(repo, dir, id, why);
  }
}

/** Deletes the branches of items (`ralph rm --branch`); returns the branches deleted. */
export async function deleteBranches(
  workspace: Workspace,
  items: readonly Item[],
): Promise<string[]> {
  const deleted: string[] = [];
  for (const item of items) {
    if (item.branch === undefined) continue;
    const repo = await repositoryOf(workspace, item);
    if (repo !== undefined && (await deleteBranch(repo, item.branch))) deleted.push(item.branch);
  }
  return deleted;
}

/** An item's branch as `ralph diff` compares it. */
export interface ItemBranch {
  repo: string;
  branch: string;
  base: string;
  /** What is compared with the base: the branch, or the commit it landed as. */
  tip: string;
  /** The item landed: `base..tip` is what its landing brought onto the target. */
  landed: boolean;
}

/** The branch of an item in the queue, with its base and repository. */
export async function itemBranch(
  workspace: Workspace,
  id: string,
  env: Readonly<Record<string, string | undefined>>,
): Promise<ItemBranch> {
  const items = await withQueueReader(workspace, env, (queue) => queue.list());
  const item = items.find((i) => i.id === id);
  if (item === undefined) throw new NotFoundError(`no item ${JSON.stringify(id)} in the queue`);
  return branchOfItem(workspace, item);
}

/** An item's branch, with its base and repository; refused when it has not run in git mode. */
export async function branchOfItem(workspace: Workspace, item: Item): Promise<ItemBranch> {
  const { id } = item;
  if (item.branch === undefined || item.baseCommit === undefined)
    throw new RalphError(`${id} has no branch: it has not run in git mode`);
  const repo = await repositoryOf(workspace, item);
  if (repo === undefined)
    throw new RalphError(`${id}: its work dir is no longer in a git repository`);
  // A landed item: what its landing brought onto the target.
  if (item.landedCommit !== undefined && item.landedOnto !== undefined)
    return {
      repo,
      branch: item.branch,
      base: item.landedOnto,
      tip: item.landedCommit,
      landed: true,
    };
  return { repo, branch: item.branch, base: item.baseCommit, tip: item.branch, landed: false };
}
