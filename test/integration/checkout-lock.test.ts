// An item's worktree made while another git of the repository holds a lock a moment (the
// lander's merge, a person's commit): the checkout waits it out instead of failing the item.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadWorkspace } from '../../src/config/workspace.js';
import { ItemSchema } from '../../src/queue/item.js';
import { checkoutFor } from '../../src/runner/checkout.js';
import { makeRepo } from '../support/git.js';
import { makeWorkspace } from '../support/workspace.js';

describe('a checkout beside another git', () => {
  it('waits out a ref lock held a moment, and says why when it is never let go', async () => {
    const repo = await makeRepo();
    const root = await makeWorkspace({ defaults: { workDir: repo }, git: { enabled: true } });
    const workspace = await loadWorkspace(root);
    const work = { git: true, gates: [], sandbox: workspace.config.sandbox };
    const lock = path.join(repo, '.git', 'refs', 'heads', 'ralph', 'x.lock');
    fs.mkdirSync(path.dirname(lock), { recursive: true });
    fs.writeFileSync(lock, '');
    setTimeout(() => fs.rmSync(lock), 300);
    const item = ItemSchema.parse({ id: 'x', title: 'x' });
    const made = await checkoutFor(workspace, item, repo, work, 'make');
    expect('reason' in made ? made.reason : made.checkout?.branch).toBe('ralph/x');
    // A lock nobody lets go: the item is told why, after a few tries.
    const stuck = path.join(repo, '.git', 'refs', 'heads', 'ralph', 'y.lock');
    fs.writeFileSync(stuck, '');
    const refused = await checkoutFor(
      workspace,
      ItemSchema.parse({ id: 'y', title: 'y' }),
      repo,
      work,
      'make',
    );
    expect('reason' in refused ? refused.reason : '').toMatch(
      /the worktree of y could not be made: .*remove the file manually/,
    );
  });
});
