import { git, GitError } from '../git/git.js';
import { runLandGates, type LandJob } from './landing.js';
import {
  conflicted,
  landingWorktree,
  moveTarget,
  pushTarget,
  syncTarget,
  targetCommit,
} from './git-land.js';

/** The trailer that names the decision a revert commit carries out: a revert is found by it. */
export const REVERT_TRAILER = 'Ralph-Revert';

/** A rejected item's landing taken off its target: the landing job's parts, and the decision. */
export interface RevertJob extends Omit<LandJob, 'inLine' | 'train' | 'targetAt' | 'worktreeAt'> {
  decision: { id: string; note?: string; by: string };
}

/** How taking a landing off its target went. */
export type Revert =
  /** The target holds the revert at `commit` (`already`: made before a crash cut its record short). */
  | { kind: 'reverted'; commit: string; already: boolean }
  /** Nothing of the landing is left on the target to take off. */
  | { kind: 'nothing' }
  /** The target is as it was: the revert conflicts with what landed since, or breaks a land gate. */
  | { kind: 'refused'; failure: string }
  /** The target moved meanwhile: made again on top. */
  | { kind: 'moved' }
  | { kind: 'stopped' };

/**
 * Takes an item's landing off its target as a landing goes: the revert made in the kept
 * worktree at the target (a merge commit reverted against its first parent, the commits a
 * squash or rebase landed reverted newest first, in one commit), the land gates run on the
 * reverted tree, and only then the target moved by a compare-and-swap (pushed first when the
 * landing pushes). Never a force push; a revert found on the target (its trailer) is done.
 */
export async function revertLanding(job: RevertJob): Promise<Revert> {
  const { item, repo, land, decision } = job;
  const landed = item.landedCommit;
  if (landed === undefined) return { kind: 'nothing' };
  const target = item.landedOn ?? land.target;
  const onto =
    land.push === undefined
      ? await targetCommit(repo, target)
      : (await syncTarget(repo, land.push, target)).onto;
  const found = (
    await git(repo, ['log', '--format=%H', '-F', `--grep=${REVERT_TRAILER}: ${decision.id}`, onto])
  )
    .split('\n')
    .find((line) => line !== '');
  if (found !== undefined) return { kind: 'reverted', commit: found, already: true };
  await landingWorktree(repo, job.worktree, onto);
  const env = { ...process.env, ...job.identity };
  const parents = (await git(repo, ['rev-list', '--parents', '-n', '1', landed])).trim().split(' ');
  const reverting =
    parents.length > 2 ? ['-m', '1', landed] : [`${item.landedOnto ?? `${landed}^`}..${landed}`];
  try {
    await git(job.worktree, ['revert', '--no-commit', '--no-edit', ...reverting], env);
  } catch (error) {
    if (!(error instanceof GitError)) throw error;
    const files = await conflicted(job.worktree);
    if (files.length === 0) throw error;
    return {
      kind: 'refused',
      failure: `reverting it on ${target} conflicts in ${files.join(', ')}: what landed since changed the same lines. ${target} was left as it was; revert it by hand.`,
    };
  }
  if ((await git(job.worktree, ['diff', '--cached', '--name-only'])).trim() === '') {
    await git(job.worktree, ['revert', '--quit']).catch(() => undefined);
    return { kind: 'nothing' };
  }
  const message = [
    `ralph: revert ${item.title} (${item.id})`,
    `A person (${decision.by}) rejected it${decision.note === undefined ? '.' : `: ${decision.note}`}`,
    `${REVERT_TRAILER}: ${decision.id}`,
  ].join('\n\n');
  await git(job.worktree, ['commit', '--no-verify', '--quiet', '-m', message], env);
  await git(job.worktree, ['revert', '--quit']).catch(() => undefined);
  const commit = (await git(job.worktree, ['rev-parse', 'HEAD'])).trim();
  const gated = await runLandGates(job);
  if (gated.stopped) return { kind: 'stopped' };
  if (gated.failure !== undefined)
    return {
      kind: 'refused',
      failure: `the revert breaks a land gate on ${target}, which was left as it was: ${gated.failure}`,
    };
  if (land.push !== undefined && (await pushTarget(repo, land.push, target, commit)) === 'rejected')
    return { kind: 'moved' };
  return (await moveTarget(repo, target, commit, onto, `ralph: revert ${item.id}`))
    ? { kind: 'reverted', commit, already: false }
    : { kind: 'moved' };
}
