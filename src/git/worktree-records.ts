import { git, GitError } from './git.js';

// git's `worktree add` makes its record under .git/worktrees and locks it a moment later; a
// `worktree prune` in that moment takes the unlocked record away and the add fails ("could not
// open .../locked"). ralph's adds and prunes of one repository therefore take turns, and an add
// that another process's prune still cut short is tried once more.

const turns = new Map<string, Promise<unknown>>();

function inTurn<T>(repo: string, work: () => Promise<T>): Promise<T> {
  const before = turns.get(repo) ?? Promise.resolve();
  const mine = before.then(work, work);
  const settled = mine.catch(() => undefined);
  turns.set(repo, settled);
  void settled.then(() => {
    if (turns.get(repo) === settled) turns.delete(repo);
  });
  return mine;
}

/** `git worktree add <args>` in `repo`, never at the same time as another of ralph's prunes. */
export function addWorktree(repo: string, args: readonly string[]): Promise<string> {
  return inTurn(repo, async () => {
    try {
      return await git(repo, ['worktree', 'add', ...args]);
    } catch (error) {
      if (!recordTakenAway(error)) throw error;
      await git(repo, ['worktree', 'prune']);
      return git(repo, ['worktree', 'add', ...args]);
    }
  });
}

/** `git worktree prune` in `repo`: forgets the records of worktrees whose directories are gone. */
export function pruneWorktrees(repo: string): Promise<void> {
  return inTurn(repo, async () => {
    await git(repo, ['worktree', 'prune']);
  });
}

function recordTakenAway(error: unknown): boolean {
  return error instanceof GitError && /could not open '[^']*\/locked'/.test(error.output);
}
