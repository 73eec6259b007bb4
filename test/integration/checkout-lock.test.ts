// An item's worktree made while another git of the repository holds a lock a moment (the
// lander's merge, a person's commit): the checkout waits it out instead of failing the item.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadWorkspace } from '../../src/config/workspace.js';
import { ItemSchema } from '../../src/queue/item.js';
import { checkoutFor } from '../../src/session/checkout.js';
import { makeRepo } from '../support/git.js';
import { makeWorkspace, tempDir } from '../support/workspace.js';

/** The `worktree add` calls git's event trace holds: each one's exit code, once it exited. */
function worktreeAdds(trace: string): (number | undefined)[] {
  const lines = fs.existsSync(trace) ? fs.readFileSync(trace, 'utf8').split('\n') : [];
  const events = lines.flatMap((line) => {
    try {
      return [JSON.parse(line) as { event: string; sid: string; argv?: string[]; code?: number }];
    } catch {
      return [];
    }
  });
  const adds = events.filter(
    (e) => e.event === 'start' && e.argv?.slice(1, 3).join(' ') === 'worktree add',
  );
  return adds.map((add) => events.find((e) => e.event === 'exit' && e.sid === add.sid)?.code);
}

describe('a checkout beside another git', () => {
  it('waits out a ref lock held a moment, and says why when it is never let go', async () => {
    const repo = await makeRepo();
    const root = await makeWorkspace({ defaults: { workDir: repo }, git: { enabled: true } });
    const workspace = await loadWorkspace(root);
    const work = {
      git: true,
      gates: [],
      sandbox: workspace.config.sandbox,
      review: false,
      environment: workspace.config.environment,
    };
    const lock = path.join(repo, '.git', 'refs', 'heads', 'ralph', 'x.lock');
    fs.mkdirSync(path.dirname(lock), { recursive: true });
    fs.writeFileSync(lock, '');
    // The lock is let go once the first `worktree add` has failed on it, not after a while.
    const trace = path.join(await tempDir('ralph-git-trace-'), 'trace.json');
    process.env.GIT_TRACE2_EVENT = trace;
    const letGo = setInterval(() => {
      if (worktreeAdds(trace).some((code) => code !== undefined && code !== 0)) {
        fs.rmSync(lock, { force: true });
        clearInterval(letGo);
      }
    }, 10);
    const item = ItemSchema.parse({ id: 'x', title: 'x' });
    const made = await checkoutFor(workspace, item, repo, work, 'make').finally(() => {
      clearInterval(letGo);
      delete process.env.GIT_TRACE2_EVENT;
    });
    expect('reason' in made ? made.reason : made.checkout?.branch).toBe('ralph/x');
    // It failed on the lock, and the retry made it.
    const codes = worktreeAdds(trace);
    expect(codes[0]).not.toBe(0);
    expect(codes.at(-1)).toBe(0);
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
