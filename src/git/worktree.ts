import fsp from 'node:fs/promises';
import path from 'node:path';
import { git, gitSucceeds } from './git.js';
import { addWorktree, pruneWorktrees } from './worktree-records.js';

/** The top of the repository `dir` is in, or undefined when it is in none. */
export async function repositoryRoot(dir: string): Promise<string | undefined> {
  try {
    return (await git(dir, ['rev-parse', '--show-toplevel'])).trim();
  } catch {
    return undefined;
  }
}

/** The commit a ref names. */
export async function resolveCommit(repo: string, ref: string): Promise<string> {
  return (await git(repo, ['rev-parse', '--verify', '--end-of-options', `${ref}^{commit}`])).trim();
}

/** The branch of an item. */
export function branchOf(itemId: string): string {
  return `ralph/${itemId}`;
}

/** A worktree checked out for an item. */
export interface Checkout {
  repo: string;
  worktree: string;
  branch: string;
  baseCommit: string;
  /** Whether the worktree was there already (a retry or a resumption). */
  reused: boolean;
}

/**
 * The item's worktree at `dir` on its branch: kept as it is when it exists (a retry or a
 * resumed session goes on where the last left off; switched back to the branch if the agent
 * left it elsewhere), made on the branch when the branch exists, otherwise made with a new
 * branch from `baseCommit`. A worktree's work is never thrown away: one that cannot be switched
 * back is an error for a person to look at.
 */
export async function ensureWorktree(
  repo: string,
  dir: string,
  branch: string,
  baseCommit: string,
): Promise<Checkout> {
  const checkout = { repo, worktree: dir, branch, baseCommit };
  if (await pathIsThere(path.join(dir, '.git'))) {
    if (!(await addCutShort(dir))) {
      if ((await currentBranch(dir)) !== `refs/heads/${branch}`)
        await git(dir, ['switch', '--no-guess', '--', branch]);
      return { ...checkout, reused: true };
    }
    // Reused, its files not yet checked out would be committed as deleted: made anew.
    await git(repo, ['worktree', 'remove', '--force', '--force', '--', dir]).catch(() => undefined);
  }
  // A directory without its `.git` is what a crash left of a `worktree add`: made anew.
  await fsp.rm(dir, { recursive: true, force: true });
  // A `worktree add` killed midway leaves its record locked; prune keeps locked records.
  await git(repo, ['worktree', 'unlock', '--', dir]).catch(() => undefined);
  await pruneWorktrees(repo);
  await fsp.mkdir(path.dirname(dir), { recursive: true });
  if (await gitSucceeds(repo, ['show-ref', '--verify', '--quiet', `refs/heads/${branch}`]))
    await addWorktree(repo, ['--', dir, branch]);
  else await addWorktree(repo, ['-b', branch, '--', dir, baseCommit]);
  return { ...checkout, reused: false };
}

/**
 * Whether the worktree at `dir` is one a `worktree add` never finished: git locks the record
 * while it makes one and unlocks it at the end (ralph never locks a worktree of its own).
 */
async function addCutShort(dir: string): Promise<boolean> {
  const gitDir = await git(dir, ['rev-parse', '--path-format=absolute', '--git-dir']).catch(
    () => undefined,
  );
  return gitDir !== undefined && (await pathIsThere(path.join(gitDir.trim(), 'locked')));
}

async function currentBranch(dir: string): Promise<string | undefined> {
  return (await git(dir, ['symbolic-ref', '--quiet', 'HEAD']).catch(() => '')).trim() || undefined;
}

/** Author and committer for a repository that names none: commits must not fail on it. */
export async function identityEnv(dir: string): Promise<Record<string, string>> {
  if (await gitSucceeds(dir, ['config', 'user.email'])) return {};
  return {
    GIT_AUTHOR_NAME: 'ralph',
    GIT_AUTHOR_EMAIL: 'ralph@localhost',
    GIT_COMMITTER_NAME: 'ralph',
    GIT_COMMITTER_EMAIL: 'ralph@localhost',
  };
}

/** Commits everything left uncommitted in the worktree; returns the new commit, if any. */
export async function commitLeftovers(dir: string, message: string): Promise<string | undefined> {
  if ((await git(dir, ['status', '--porcelain'])).trim() === '') return undefined;
  await git(dir, ['add', '--all']);
  const env = { ...process.env, ...(await identityEnv(dir)) };
  await git(dir, ['commit', '--no-verify', '--quiet', '-m', message], env);
  return (await git(dir, ['rev-parse', 'HEAD'])).trim();
}

/** One commit of a branch. */
export interface CommitSummary {
  sha: string;
  subject: string;
}

/** The commits on `branch` since `base`, oldest first. */
export async function commitsSince(
  dir: string,
  base: string,
  branch: string,
): Promise<CommitSummary[]> {
  const out = await git(dir, ['log', '--reverse', '--format=%H%x09%s', `${base}..${branch}`]);
  return out
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => {
      const tab = line.indexOf('\t');
      return { sha: line.slice(0, tab), subject: line.slice(tab + 1) };
    });
}

/** `git diff --shortstat base...branch`: "3 files changed, 10 insertions(+)", or "". */
export async function diffStat(dir: string, base: string, branch: string): Promise<string> {
  return (await git(dir, ['diff', '--shortstat', `${base}...${branch}`])).trim();
}

/** One file a branch changed: lines added and deleted (none for a binary file). */
export interface FileChange {
  path: string;
  added: number;
  deleted: number;
}

/** The files the branch changed since its base, with their lines (`git diff --numstat`). */
export async function fileChanges(
  dir: string,
  base: string,
  branch: string,
): Promise<FileChange[]> {
  return parseNumstat(
    await git(dir, ['diff', '--numstat', '-z', '--no-renames', `${base}...${branch}`]),
  );
}

/** The files of `git diff --numstat -z` (no renames), in its order. */
export function parseNumstat(out: string): FileChange[] {
  const changes: FileChange[] = [];
  // -z: each entry is "added\tdeleted\tpath\0", paths as they are (no quoting).
  for (const entry of out.split('\0')) {
    const [added, deleted, ...rest] = entry.split('\t');
    if (added === undefined || deleted === undefined || rest.length === 0) continue;
    changes.push({
      path: rest.join('\t'),
      added: Number.parseInt(added, 10) || 0,
      deleted: Number.parseInt(deleted, 10) || 0,
    });
  }
  return changes;
}

/**
 * Removes a worktree whose item is over: what was left uncommitted (a failed or cancelled
 * item's last work) is committed on its branch first, so nothing is lost with the directory.
 */
export async function retireWorktree(
  repo: string,
  dir: string,
  itemId: string,
  why: string,
): Promise<void> {
  await commitLeftovers(dir, `ralph: work left uncommitted by ${itemId} (${why})`).catch(
    () => undefined,
  );
  await removeWorktree(repo, dir);
}

/** Removes a worktree; its branch stays. */
export async function removeWorktree(repo: string, dir: string): Promise<void> {
  await git(repo, ['worktree', 'remove', '--force', '--force', '--', dir]).catch(
    async (error: unknown) => {
      // Not a worktree git knows (a crash cut its making short): the directory alone goes.
      await fsp.rm(dir, { recursive: true, force: true });
      await pruneWorktrees(repo);
      if (await pathIsThere(dir)) throw error;
    },
  );
}

async function pathIsThere(p: string): Promise<boolean> {
  return fsp.access(p).then(
    () => true,
    () => false,
  );
}

/** The git dir a worktree shares with its repository (objects, refs, config), absolute. */
export async function gitCommonDir(dir: string): Promise<string> {
  return (await git(dir, ['rev-parse', '--path-format=absolute', '--git-common-dir'])).trim();
}

/** The repository a worktree belongs to (its main working tree), or undefined. */
export async function repositoryOfWorktree(dir: string): Promise<string | undefined> {
  try {
    const common = (await commonDirOfLink(dir)) ?? (await gitCommonDir(dir));
    return path.basename(common) === '.git' ? path.dirname(common) : common;
  } catch {
    return undefined;
  }
}

/**
 * A linked worktree's common git dir as its files say it (its `.git` file names its own git
 * dir, whose `commondir` leads to the repository's), without a git to spawn; undefined when
 * they say otherwise (git is asked then).
 */
async function commonDirOfLink(dir: string): Promise<string | undefined> {
  const link = /^gitdir: (.+)$/m.exec(
    await fsp.readFile(path.join(dir, '.git'), 'utf8').catch(() => ''),
  )?.[1];
  if (link === undefined) return undefined;
  const own = path.resolve(dir, link.trim());
  const common = await fsp.readFile(path.join(own, 'commondir'), 'utf8').catch(() => undefined);
  return common === undefined ? undefined : path.resolve(own, common.trim());
}

/** Removes the index lock a killed git left in a worktree (no git may run there now). */
export async function clearStaleLock(dir: string): Promise<boolean> {
  const gitDir = (await git(dir, ['rev-parse', '--path-format=absolute', '--git-dir'])).trim();
  const lock = path.join(gitDir, 'index.lock');
  if (!(await pathIsThere(lock))) return false;
  await fsp.rm(lock, { force: true });
  return true;
}

export async function deleteBranch(repo: string, branch: string): Promise<boolean> {
  if (!(await gitSucceeds(repo, ['show-ref', '--verify', '--quiet', `refs/heads/${branch}`])))
    return false;
  await git(repo, ['branch', '-D', '--', branch]);
  return true;
}

export async function pushBranch(repo: string, remote: string, branch: string): Promise<void> {
  await git(repo, ['push', '--quiet', '--', remote, `refs/heads/${branch}:refs/heads/${branch}`]);
}

/** The URL of a remote of the repository, as git has it (credentials stay in git's helpers). */
export async function remoteUrl(repo: string, remote: string): Promise<string> {
  return (await git(repo, ['remote', 'get-url', '--', remote])).trim();
}
