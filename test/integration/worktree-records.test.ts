// Workers make worktrees of one repository side by side while others retire theirs, and git's
// `worktree prune` takes away a record that an `add` has made and not yet locked. ralph's adds
// and prunes take turns: however they interleave, every add ends with its worktree.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { addWorktree, pruneWorktrees } from '../../src/git/worktree-records.js';
import { git, makeRepo } from '../support/git.js';
import { tempDir } from '../support/workspace.js';

describe('worktree records of one repository', () => {
  it('makes every worktree while prunes run alongside the adds', async () => {
    const repo = await makeRepo();
    const head = git(repo, 'rev-parse', 'HEAD').trim();
    const base = await tempDir('ralph-worktrees-');
    const names = Array.from({ length: 16 }, (_, n) => `w${n}`);
    await Promise.all(
      names.flatMap((name) => [
        addWorktree(repo, ['-b', `ralph/${name}`, '--', path.join(base, name), head]),
        pruneWorktrees(repo),
      ]),
    );
    for (const name of names) expect(fs.existsSync(path.join(base, name, '.git'))).toBe(true);
    const listed = git(repo, 'worktree', 'list', '--porcelain');
    for (const name of names) expect(listed).toContain(path.join(base, name));
  });
});
