import fsp from 'node:fs/promises';
import path from 'node:path';
import { git, GitError } from '../git/git.js';
import { pathExists } from '../lib/fs.js';
import { WORKTREE_INCLUDE } from './config-schema.js';

const entries = (out: string) => out.split('\0').filter((entry) => entry !== '');

/**
 * Copies into a new `worktree` what the repository's `.worktreeinclude` lists (gitignore
 * syntax) that git ignores in the main checkout: a `.env`, local configuration. A tracked file
 * is never copied (the worktree has its own), nor an untracked one git does not ignore, nor one
 * already there. Returns the paths copied, relative to the repository.
 */
export async function copyWorktreeInclude(repo: string, worktree: string): Promise<string[]> {
  const list = path.join(repo, WORKTREE_INCLUDE);
  if (!(await pathExists(list))) return [];
  // The untracked paths it names (a directory as one), whether or not git ignores them.
  const listed = entries(
    await git(repo, [
      'ls-files',
      '-z',
      '--others',
      '--ignored',
      '--directory',
      `--exclude-from=${list}`,
    ]),
  );
  if (listed.length === 0) return [];
  const ignored = entries(
    await git(repo, ['check-ignore', '-z', '--stdin'], process.env, `${listed.join('\0')}\0`).catch(
      (error: unknown) => {
        // It exits 1 when it ignores none of them.
        if (error instanceof GitError && error.output.trim() === '') return '';
        throw error;
      },
    ),
  );
  const copied: string[] = [];
  for (const entry of ignored) {
    const target = path.join(worktree, entry);
    if (await pathExists(target)) continue;
    await fsp.mkdir(path.dirname(target), { recursive: true });
    await fsp.cp(path.join(repo, entry), target, {
      recursive: true,
      errorOnExist: false,
      force: false,
      verbatimSymlinks: true,
      preserveTimestamps: true,
    });
    copied.push(entry);
  }
  return copied;
}
