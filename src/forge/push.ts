import { git, GitError } from '../git/git.js';
import { ForgeError } from './forge.js';

/**
 * Pushes a branch of a local repository to the forge's remote with the person's git credentials
 * (the API token never reaches git). `lease`: the commit the remote branch is known to be at,
 * which the push may replace even when it is not an ancestor.
 */
export async function pushBranch(
  repoDir: string,
  remote: string,
  branch: string,
  lease?: string,
): Promise<void> {
  const ref = `refs/heads/${branch}`;
  try {
    await git(repoDir, [
      'push',
      '--quiet',
      ...(lease === undefined ? [] : [`--force-with-lease=${ref}:${lease}`]),
      '--',
      remote,
      `${ref}:${ref}`,
    ]);
  } catch (error) {
    const said = error instanceof GitError ? error.output : String(error);
    const rejected = /rejected|stale info|non-fast-forward/i.test(said);
    throw new ForgeError(
      rejected ? 'refused' : 'unavailable',
      `pushing ${branch} to ${remote} (forge.remote): ${rejected ? 'the remote refused it' : 'it failed'}: ${said.trim().split('\n').slice(-2).join(' ')}`,
    );
  }
}
