// The git a fake forge does in its bare repository (the remote ralph pushes to): a branch's
// commit, whether one commit is in another's history, the tree of two merged, and any command,
// committed as the forge itself (`who`).
import { execFileSync } from 'node:child_process';

export interface BareRemote {
  /** A git command in the bare repository; its output, trimmed. */
  git: (...args: string[]) => string;
  /** A branch's commit there, when there is one (none without a bare repository). */
  branchSha: (branch: string) => string | undefined;
  isAncestor: (a: string, b: string) => boolean;
  /** The tree of `a` and `b` merged; undefined when they conflict. */
  mergedTree: (a: string, b: string) => string | undefined;
}

export function bareRemote(
  bare: string | undefined,
  who: { name: string; email: string },
): BareRemote {
  const git = (...args: string[]) =>
    execFileSync('git', ['--git-dir', bare ?? '', ...args], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        ...process.env,
        GIT_AUTHOR_NAME: who.name,
        GIT_AUTHOR_EMAIL: who.email,
        GIT_COMMITTER_NAME: who.name,
        GIT_COMMITTER_EMAIL: who.email,
      },
    }).trim();
  const answers = <T>(run: () => T): T | undefined => {
    try {
      return run();
    } catch {
      return undefined;
    }
  };
  return {
    git,
    branchSha: (branch) =>
      bare === undefined
        ? undefined
        : answers(() => git('rev-parse', '--verify', `refs/heads/${branch}`)),
    isAncestor: (a, b) => answers(() => git('merge-base', '--is-ancestor', a, b)) !== undefined,
    mergedTree: (a, b) => answers(() => git('merge-tree', '--write-tree', a, b).split('\n')[0]),
  };
}
