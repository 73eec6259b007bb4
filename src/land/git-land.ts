import fsp from 'node:fs/promises';
import path from 'node:path';
import { git, gitSucceeds, GitError } from '../git/git.js';
import { addWorktree, pruneWorktrees } from '../git/worktree-records.js';

// The git of a landing: the target branch, the worktree ralph keeps of it, a merge by the
// chosen method, and the compare-and-swap that moves the target. Nothing here knows the queue.

/** The trailer that names the session whose work a landed commit holds. */
export const SESSION_TRAILER = 'Ralph-Session';

const refOf = (branch: string) => `refs/heads/${branch}`;

/** The target's commit, made from `start` (the repository's HEAD) at the first landing. */
export async function targetCommit(repo: string, target: string, start = 'HEAD'): Promise<string> {
  const ref = refOf(target);
  const current = await git(repo, ['rev-parse', '--verify', '--quiet', `${ref}^{commit}`]).catch(
    () => '',
  );
  if (current.trim() !== '') return current.trim();
  const head = (await git(repo, ['rev-parse', '--verify', `${start}^{commit}`])).trim();
  // Created only if it still does not exist (an empty old value): never over another's, which
  // is read when this one lost the race.
  if (await gitSucceeds(repo, ['update-ref', '-m', 'ralph: the landing target', ref, head, '']))
    return head;
  return (await git(repo, ['rev-parse', '--verify', `${ref}^{commit}`])).trim();
}

/** What a merge, rebase or cherry-pick under way leaves in the git dir, and its command. */
const IN_PROGRESS = [
  ['MERGE_HEAD', 'merge'],
  ['rebase-merge', 'rebase'],
  ['rebase-apply', 'rebase'],
  ['CHERRY_PICK_HEAD', 'cherry-pick'],
  ['REVERT_HEAD', 'revert'],
  ['sequencer', 'revert'],
] as const;

const pathIsThere = (p: string) =>
  fsp.access(p).then(
    () => true,
    () => false,
  );

/** The git dir of a linked worktree, read from its `.git` file; undefined when there is none. */
async function worktreeGitDir(dir: string): Promise<string | undefined> {
  const link = await fsp.readFile(path.join(dir, '.git'), 'utf8').catch(() => undefined);
  const gitDir = /^gitdir: (.+)$/m.exec(link ?? '')?.[1]?.trim();
  return gitDir === undefined ? undefined : path.resolve(dir, gitDir);
}

/**
 * The worktree ralph keeps for landing onto a target, detached at `commit`, clean: a landing a
 * crash cut short (a merge or rebase in progress, files half written) is undone first, and one
 * git no longer knows is made anew. Never the person's own checkout.
 */
export async function landingWorktree(repo: string, dir: string, commit: string): Promise<void> {
  const gitDir = await worktreeGitDir(dir);
  if (gitDir !== undefined && (await pathIsThere(gitDir))) {
    // Only what a crash left under way is undone: a clean worktree costs no git for it.
    for (const [marker, command] of IN_PROGRESS)
      if (await pathIsThere(path.join(gitDir, marker)))
        await git(dir, [command, '--abort']).catch(() => undefined);
    await fsp.rm(path.join(gitDir, 'index.lock'), { force: true });
    try {
      // A forced checkout puts back every tracked file and the index; clean removes new files
      // (ignored ones, such as a land gate's build output, stay for the next landing).
      await git(dir, ['checkout', '--quiet', '--force', '--detach', commit]);
      await git(dir, ['clean', '-ffdq']);
      return;
    } catch {
      // Beyond repair in place: made anew below.
    }
  }
  await fsp.mkdir(path.dirname(dir), { recursive: true });
  // A first landing through it: nothing to clear away unless git still knows the path.
  if (
    !(await pathIsThere(dir)) &&
    (await addWorktree(repo, worktreeAdd(dir, commit)).then(
      () => true,
      () => false,
    ))
  )
    return;
  await git(repo, ['worktree', 'remove', '--force', '--force', '--', dir]).catch(() => undefined);
  await fsp.rm(dir, { recursive: true, force: true });
  await git(repo, ['worktree', 'unlock', '--', dir]).catch(() => undefined);
  await pruneWorktrees(repo);
  await addWorktree(repo, worktreeAdd(dir, commit));
}

const worktreeAdd = (dir: string, commit: string) => ['--quiet', '--detach', '--', dir, commit];

/**
 * The commit of the target, since `base`, that holds the work of `session` (its trailer), if
 * it landed: how a landing cut short after the target moved is found finished.
 */
export async function landedCommit(
  repo: string,
  target: string,
  base: string,
  session: string,
): Promise<string | undefined> {
  const out = await git(repo, [
    'log',
    '--format=%H',
    '-n1',
    '--fixed-strings',
    `--grep=${SESSION_TRAILER}: ${session}`,
    `${base}..${refOf(target)}`,
    '--',
  ]).catch(() => '');
  return out.trim() || undefined;
}

/** How a merge went: the new commit, or the files in conflict (the worktree left clean). */
export type MergeResult =
  { kind: 'merged'; commit: string } | { kind: 'conflict'; files: string[] };

/** What to merge, how, and what the landed commit says. */
export interface Merge {
  method: 'merge' | 'rebase' | 'squash';
  branch: string;
  /** The target's commit the worktree is at. */
  onto: string;
  /** The subject and body of a merge or squash commit. */
  message: string;
  session: string;
  /** The committer's identity when the repository has none configured (`identityEnv`). */
  identity: Readonly<Record<string, string>>;
}

/**
 * git's automatic maintenance, which every merge and commit would start: run once when the
 * lander has nothing left to land (`maintainRepository`), not after every landing.
 */
const NO_AUTO_MAINTENANCE = ['-c', 'maintenance.auto=false'];

/** The repository's automatic maintenance, as a merge or commit would have run it. */
export async function maintainRepository(repo: string): Promise<void> {
  await git(repo, ['maintenance', 'run', '--auto', '--quiet']).catch(() => undefined);
}

/** Merges the item's branch in the landing worktree (at `onto`) by the method. */
export async function mergeBranch(dir: string, merge: Merge): Promise<MergeResult> {
  const env = { ...process.env, ...merge.identity };
  const trailer = `${SESSION_TRAILER}: ${merge.session}`;
  const message = `${merge.message}\n\n${trailer}`;
  // A merge's or a commit's git, without the maintenance it would start (see above).
  const making = (args: string[]) => git(dir, [...NO_AUTO_MAINTENANCE, ...args], env);
  const commit = () => making(['commit', '--no-verify', '--quiet', '--allow-empty', '-m', message]);
  try {
    switch (merge.method) {
      case 'merge':
        await making([
          'merge',
          '--no-ff',
          '--no-verify',
          '--quiet',
          '-m',
          message,
          '--',
          merge.branch,
        ]);
        break;
      case 'squash':
        await making(['merge', '--squash', '--quiet', '--', merge.branch]);
        await commit();
        break;
      case 'rebase': {
        // The branch's commits replayed onto the target; its tip names the session.
        await git(dir, ['checkout', '--quiet', '--detach', merge.branch]);
        await making(['rebase', '--quiet', merge.onto]);
        if ((await git(dir, ['rev-parse', 'HEAD'])).trim() === merge.onto) await commit();
        else
          await making([
            'commit',
            '--amend',
            '--no-verify',
            '--quiet',
            '--no-edit',
            `--trailer=${trailer}`,
          ]);
        break;
      }
    }
  } catch (error) {
    if (!(error instanceof GitError)) throw error;
    const files = await conflicted(dir);
    if (files.length === 0) throw error;
    return { kind: 'conflict', files };
  }
  return { kind: 'merged', commit: await detachedHead(dir) };
}

/**
 * The commit a detached worktree is at: read from its HEAD file (a landing's every git call
 * counts), or asked of git when the file holds no object name (another ref storage).
 */
async function detachedHead(dir: string): Promise<string> {
  const gitDir = await worktreeGitDir(dir);
  const head =
    gitDir === undefined
      ? ''
      : (await fsp.readFile(path.join(gitDir, 'HEAD'), 'utf8').catch(() => '')).trim();
  return OBJECT_NAME.test(head) ? head : (await git(dir, ['rev-parse', 'HEAD'])).trim();
}

const OBJECT_NAME = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;

/**
 * The commit a branch of the repository is at (undefined: no such branch): read from its ref
 * file where it has one (a landing's every git call counts), else asked of git (a packed ref,
 * another ref storage).
 */
export async function branchCommit(repo: string, branch: string): Promise<string | undefined> {
  const loose = (
    await fsp.readFile(path.join(repo, '.git', 'refs', 'heads', branch), 'utf8').catch(() => '')
  ).trim();
  if (OBJECT_NAME.test(loose)) return loose;
  const asked = await git(repo, [
    'rev-parse',
    '--verify',
    '--quiet',
    `${refOf(branch)}^{commit}`,
  ]).catch(() => '');
  return asked.trim() === '' ? undefined : asked.trim();
}

/**
 * Whether a worktree holds nothing but its commit: no tracked file changed, no new file (files
 * its `.gitignore` ignores, such as a gate's build output, may stay).
 */
export async function worktreeClean(dir: string): Promise<boolean> {
  return (await git(dir, ['status', '--porcelain']).catch(() => 'unknown')).trim() === '';
}

/** The files a merge or rebase left in conflict. */
export async function conflicted(dir: string): Promise<string[]> {
  const out = await git(dir, ['diff', '--name-only', '--diff-filter=U']).catch(() => '');
  return out.split('\n').filter((file) => file !== '');
}

/**
 * Moves the target from `from` to `to` only if it is still at `from` (another lander that got
 * there first makes this fail: the landing is redone on top).
 */
export async function moveTarget(
  repo: string,
  target: string,
  to: string,
  from: string,
  why: string,
): Promise<boolean> {
  return gitSucceeds(repo, ['update-ref', '-m', why, refOf(target), to, from]);
}

/** The target as the remote has it (fetched), or undefined when the remote has no such branch. */
export async function fetchTarget(
  repo: string,
  remote: string,
  target: string,
): Promise<string | undefined> {
  const tracking = `refs/remotes/${remote}/${target}`;
  try {
    await git(repo, [
      'fetch',
      '--quiet',
      '--no-tags',
      '--',
      remote,
      `+${refOf(target)}:${tracking}`,
    ]);
  } catch (error) {
    // A remote without the branch yet (the first landing pushes it) answers with nothing here.
    const heads = await git(repo, ['ls-remote', '--heads', '--', remote, refOf(target)]).catch(
      () => undefined,
    );
    if (heads === '') return undefined;
    throw error;
  }
  return (await git(repo, ['rev-parse', '--verify', `${tracking}^{commit}`])).trim();
}

/** The target a landing starts from when it is pushed: the local one brought up to the remote's. */
export interface SyncedTarget {
  onto: string;
  /** The remote's target, if it has one. */
  remote: string | undefined;
}

/**
 * Brings the local target up to the remote's before a landing: fast-forwarded when the remote
 * moved on; kept when it holds landings the remote lacks (the next push carries them). Targets
 * that have diverged are a person's to bring together: ralph never force-pushes.
 */
export async function syncTarget(
  repo: string,
  remote: string,
  target: string,
): Promise<SyncedTarget> {
  const remoteTip = await fetchTarget(repo, remote, target);
  const local = await targetCommit(repo, target, remoteTip ?? 'HEAD');
  if (remoteTip === undefined || remoteTip === local || (await containedIn(repo, remoteTip, local)))
    return { onto: local, remote: remoteTip };
  if (!(await containedIn(repo, local, remoteTip)))
    throw new Error(
      `${target} here and on ${remote} have diverged; ralph never force-pushes: merge them by hand and the landing goes on`,
    );
  if (!(await moveTarget(repo, target, remoteTip, local, `ralph: ${target} from ${remote}`)))
    throw new Error(`${target} moved while it was brought up to ${remote}'s`);
  return { onto: remoteTip, remote: remoteTip };
}

/**
 * Pushes `commit` to the remote's target, never by force: `rejected` when the remote moved on
 * meanwhile (the landing is made again on top of it).
 */
export async function pushTarget(
  repo: string,
  remote: string,
  target: string,
  commit: string,
): Promise<'pushed' | 'rejected'> {
  try {
    await git(repo, ['push', '--quiet', '--', remote, `${commit}:${refOf(target)}`]);
    return 'pushed';
  } catch (error) {
    // Told by what the remote now holds, not by git's words (they vary with its version).
    const remoteTip = await fetchTarget(repo, remote, target).catch(() => undefined);
    if (remoteTip !== undefined && !(await containedIn(repo, remoteTip, commit))) return 'rejected';
    throw error;
  }
}

/** Whether `commit` has every commit of `ref` already. */
export async function containedIn(repo: string, ref: string, commit: string): Promise<boolean> {
  return gitSucceeds(repo, ['merge-base', '--is-ancestor', ref, commit]);
}

/** A commit's first parent: the target before a merge or squash commit landed on it. */
export async function firstParent(repo: string, commit: string): Promise<string> {
  return (await git(repo, ['rev-parse', '--verify', `${commit}^1`])).trim();
}

/** The target's commits since the item's base, newest first (at most `max`). */
export async function commitsSinceBase(
  repo: string,
  base: string,
  commit: string,
  max = 30,
): Promise<string[]> {
  const out = await git(repo, ['log', '--oneline', `-n${max}`, `${base}..${commit}`, '--']).catch(
    () => '',
  );
  return out.split('\n').filter((line) => line !== '');
}
