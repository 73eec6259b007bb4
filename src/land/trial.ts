import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { git } from '../git/git.js';
import { addWorktree, pruneWorktrees } from '../git/worktree-records.js';
import { mergeBranch, type Merge } from './git-land.js';

/** One item of a trial: its branch, and how it would be merged onto its target. */
export interface TrialItem {
  id: string;
  branch: string;
  session: string;
  method: Merge['method'];
  message: string;
}

/** What a trial found for one item: it would merge cleanly, or conflict in these files. */
export type TrialResult =
  | { id: string; kind: 'merges' }
  | { id: string; kind: 'conflict'; files: string[] }
  | { id: string; kind: 'error'; error: string };

/**
 * Merges the items' branches, in order, onto where `target` is now, in a throw-away worktree
 * of `repo` (never the lander's, never the target): what `ralph land` would find, gates aside.
 * An item that would conflict is left out, as the lander sends it back, and the next goes on.
 */
export async function trialLandings(
  repo: string,
  target: string,
  items: readonly TrialItem[],
  identity: Readonly<Record<string, string>>,
): Promise<TrialResult[]> {
  const ref = `refs/heads/${target}`;
  const at = await git(repo, ['rev-parse', '--verify', '--quiet', `${ref}^{commit}`]).catch(
    () => '',
  );
  // A target not made yet starts where the lander would make it: at HEAD.
  const start = at.trim() !== '' ? at.trim() : (await git(repo, ['rev-parse', 'HEAD'])).trim();
  const dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'ralph-land-trial-'));
  await addWorktree(repo, ['--quiet', '--detach', '--', dir, start]);
  const results: TrialResult[] = [];
  try {
    let onto = start;
    for (const item of items) {
      const merged = await mergeBranch(dir, {
        method: item.method,
        branch: item.branch,
        onto,
        message: item.message,
        session: item.session,
        identity,
      }).catch((error: unknown) => ({ kind: 'error' as const, error: String(error) }));
      if (merged.kind === 'merged') {
        onto = merged.commit;
        results.push({ id: item.id, kind: 'merges' });
      } else {
        results.push(
          merged.kind === 'conflict'
            ? { id: item.id, kind: 'conflict', files: merged.files }
            : { id: item.id, kind: 'error', error: merged.error },
        );
        await git(dir, ['checkout', '--quiet', '--force', '--detach', onto]);
        await git(dir, ['clean', '-ffdq']);
      }
    }
  } finally {
    await git(repo, ['worktree', 'remove', '--force', '--force', '--', dir]).catch(() => undefined);
    await fsp.rm(dir, { recursive: true, force: true });
    await pruneWorktrees(repo).catch(() => undefined);
  }
  return results;
}
