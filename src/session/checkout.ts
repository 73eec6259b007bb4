import { GitError } from '../git/git.js';
import path from 'node:path';
import type { WorkSettings } from './work.js';
import { itemWorktree, type Workspace } from '../config/workspace.js';
import { gitSucceeds } from '../git/git.js';
import {
  branchOf,
  ensureWorktree,
  repositoryRoot,
  resolveCommit,
  type Checkout,
} from '../git/worktree.js';
import type { Item } from '../queue/item.js';
import type { PreparationError } from './preparation-error.js';

/** Git mode's part of a preparation: the worktree and the work dir inside it. */
export type CheckoutStep = { checkout?: Checkout; workDir?: string } | PreparationError;

/**
 * Checks the item out in its worktree on `ralph/<id>`: the work dir moves to the same place
 * inside the worktree. A work dir in no repository runs as it is (the caller says so). The
 * base is the one recorded at the item's first checkout, so a retry continues on its branch.
 */
export async function checkoutFor(
  workspace: Workspace,
  item: Item,
  workDir: string,
  work: WorkSettings,
  /** `plan`: say where the worktree would be, make nothing (`ralph run --dry-run`). */
  mode: 'make' | 'plan',
): Promise<CheckoutStep> {
  const repo = await repositoryRoot(workDir);
  if (repo === undefined) return {};
  const baseCommit = item.baseCommit ?? (await baseCommitOf(repo, work));
  if (typeof baseCommit !== 'string') return baseCommit;
  const dir = itemWorktree(workspace.paths, item.id);
  const branch = branchOf(item.id);
  if (mode === 'plan')
    return { checkout: { repo, worktree: dir, branch, baseCommit, reused: false } };
  for (let tries = 1; ; tries++) {
    try {
      const checkout = await ensureWorktree(repo, dir, branch, baseCommit);
      return { checkout, workDir: path.join(checkout.worktree, path.relative(repo, workDir)) };
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      // Another git of the repository (the lander's merge, a person's) holds a lock a moment:
      // that is no fault of the item's.
      const said = error instanceof GitError ? error.output : message;
      if (tries < LOCKED_TRIES && GIT_LOCKED.test(said)) {
        await new Promise((resolve) => setTimeout(resolve, LOCKED_WAIT_MS * tries));
        continue;
      }
      return { reason: `the worktree of ${item.id} could not be made: ${message}`, scope: 'item' };
    }
  }
}

/**
 * The commit a new branch of the item starts from: the land target's head when it lands from
 * its target, else its base (the repository's HEAD by default).
 */
export async function baseCommitOf(
  repo: string,
  work: WorkSettings,
): Promise<string | PreparationError> {
  const target = work.land?.fromTarget === true ? `refs/heads/${work.land.target}` : undefined;
  const fromTarget =
    target !== undefined && (await gitSucceeds(repo, ['show-ref', '--verify', '--quiet', target]));
  const baseRef = fromTarget ? target : (work.base ?? 'HEAD');
  try {
    return await resolveCommit(repo, baseRef);
  } catch {
    return {
      reason: `git base ${JSON.stringify(baseRef)} is not a commit in ${repo}`,
      scope: 'item',
    };
  }
}

/** What git says when another git of the repository holds one of its lock files. */
const GIT_LOCKED = /\.lock'?:? File exists|Unable to create '[^']*\.lock'|cannot lock ref/i;
const LOCKED_TRIES = 5;
const LOCKED_WAIT_MS = 200;
