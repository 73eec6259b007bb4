import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { pushes, retryDelayMs } from '../../src/push/push-stage.js';
import { guardedWorkspace, logEvents } from '../support/guarded.js';
import { fakeTime } from '../support/fake-time.js';
import { git, makeRepo } from '../support/git.js';
import { pacedBy, stageContextFor, stageOn } from '../support/stage-context.js';
import { ralph, readQueue, tempDir } from '../support/workspace.js';

describe('the push stage', () => {
  it('pushes a branch after its session, never in the worker; a failed push is retried with backoff, on schedule after a restart', async () => {
    const repo = await makeRepo();
    // The remote names a repository that is not there yet: every push fails.
    const bare = path.join(await tempDir('ralph-remote-'), 'later.git');
    git(repo, 'remote', 'add', 'origin', bare);
    const { root, env } = await guardedWorkspace({
      defaults: { workDir: repo },
      git: { enabled: true, push: 'origin' },
      gates: [['true']],
    });
    await ralph(root, ['add', 'First', '--id', 'a', '--body', '#behave: work'], env);
    await ralph(root, ['add', 'Second', '--id', 'b', '--body', '#behave: work'], env);
    const run = await ralph(root, ['run', '--drain'], env);
    // A push that failed is no failure of the item's work, and holds no session up.
    expect(run.code, run.stderr).toBe(0);
    const failed = logEvents(root).filter((e) => e.event === 'push_failed');
    expect(failed.map((e) => e.item).sort()).toEqual(['a', 'b']);
    const waiting = readQueue(root).items as { pushTo?: { at?: string } }[];
    for (const item of waiting) {
      expect(item).toMatchObject({ status: 'done', pushTo: { remote: 'origin', looks: 1 } });
    }
    const at = Date.parse(waiting[0]?.pushTo?.at ?? '');
    expect(at).toBeGreaterThan(Date.now());
    expect(at).toBeLessThanOrEqual(Date.now() + retryDelayMs(1));

    // The remote is back. A restarted runner's stage tries nothing before the time stored with
    // the item, then pushes both.
    git(repo, 'init', '-q', '--bare', bare);
    const time = fakeTime(Date.now());
    const { ctx, close } = await stageContextFor(root, time, env);
    try {
      const stage = stageOn(pushes, ctx);
      stage.changed();
      // A runner that goes on (no --drain): over once nothing waits to be pushed.
      const allPushed = () => readQueue(root).items.every((item) => item.pushTo === undefined);
      await stage.run(allPushed, pacedBy(time));
      expect(time.now()).toBeGreaterThanOrEqual(
        Math.min(...waiting.map((i) => Date.parse(i.pushTo?.at ?? ''))),
      );
    } finally {
      await close();
    }
    expect(git(bare, 'branch', '--format=%(refname:short)').split('\n').sort()).toEqual([
      'ralph/a',
      'ralph/b',
    ]);
    expect(readQueue(root).items).toMatchObject([
      { id: 'a', pushedTo: 'origin' },
      { id: 'b', pushedTo: 'origin' },
    ]);
    expect(readQueue(root).items.every((item) => item.pushTo === undefined)).toBe(true);
  });
});
