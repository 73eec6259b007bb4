import path from 'node:path';
import type { Checkout } from '../git/worktree.js';
import { pathExists } from '../lib/fs.js';
import type { EnvironmentKind, Item } from '../queue/item.js';
import { WORKTREE_INCLUDE, type EnvironmentConfig } from '../environment/config-schema.js';
import { staleTrees } from '../environment/tree-keys.js';

/** An item claimed before its worktree is ready: the setup stage is to run `wanted` first. */
export interface EnvironmentWanted {
  wanted: EnvironmentKind;
}

/**
 * What the claimed `item`'s worktree (its work dir `workDir`) needs before its session, if
 * anything: a new worktree (or one never made ready) its setup, when there is one (commands,
 * dependency trees, or a repository's `.worktreeinclude`); a kept one made ready for an earlier
 * attempt its maintenance, when there is one or when its lockfiles changed since its tree was
 * given. The claim counted an attempt: ready for the attempts spent before it is ready now.
 */
export async function environmentWanted(
  item: Item,
  checkout: Checkout,
  workDir: string,
  environment: EnvironmentConfig,
): Promise<EnvironmentKind | undefined> {
  const ready = item.environment?.readyAt !== undefined;
  if (!checkout.reused || !ready) {
    const copies =
      environment.worktreeInclude && (await pathExists(path.join(checkout.repo, WORKTREE_INCLUDE)));
    return environment.setup.length > 0 || environment.dependencies.length > 0 || copies
      ? 'setup'
      : undefined;
  }
  if (item.environment?.readyFor === item.attempts - 1) return undefined;
  if (environment.maintenance.length > 0) return 'maintenance';
  const stale = await staleTrees(environment.dependencies, checkout.worktree, workDir);
  return stale.length > 0 ? 'maintenance' : undefined;
}
