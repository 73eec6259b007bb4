// Git mode across a runner's SIGKILL: the gits it started outlive it (each runs in its own
// process group), and a `worktree add` may be cut short. The next runner must end the first
// before it touches a worktree, and make the second anew rather than reuse it half checked out.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, onTestFinished } from 'vitest';
import { ensureWorktree } from '../../src/git/worktree.js';
import { logEvents, guardedWorkspace } from '../support/guarded.js';
import { filesAt, git, makeRepo } from '../support/git.js';
import { isAlive } from '../support/processes.js';
import { startRunner } from '../support/runner.js';
import { eventually } from '../support/wait.js';
import { readQueue, tempDir } from '../support/workspace.js';

const HELD_GIT = fileURLToPath(new URL('../fixtures/held-git.mjs', import.meta.url));

describe('git mode after a runner killed with SIGKILL', () => {
  it('ends the git the dead runner left making a worktree before it checks the item out again', async () => {
    const repo = await makeRepo();
    const { root, env } = await guardedWorkspace({
      defaults: { workDir: repo },
      git: { enabled: true },
    });
    // `git` on the runner's PATH is the held one: its first `worktree add` waits to be released.
    const bin = await tempDir('ralph-held-git-');
    fs.symlinkSync(HELD_GIT, path.join(bin, 'git'));
    const held = await tempDir('ralph-held-');
    const real = execFileSync('which', ['git'], { encoding: 'utf8' }).trim();
    const runEnv = {
      ...env,
      PATH: `${bin}:${process.env.PATH ?? ''}`,
      HELD_GIT_DIR: held,
      HELD_GIT_REAL: real,
    };
    fs.writeFileSync(
      path.join(root, 'state', 'queue.json'),
      JSON.stringify({
        version: 1,
        items: [
          {
            id: 'x',
            title: 'Works',
            body: '#behave: work commit=1',
            createdAt: new Date().toISOString(),
          },
        ],
      }),
    );
    const first = startRunner(root, runEnv, '--drain');
    onTestFinished(() => void first.child.kill('SIGKILL'));
    const heldFile = path.join(held, 'held');
    await eventually(() => fs.existsSync(heldFile), 20_000, 'the worktree add held');
    const leftover = Number(fs.readFileSync(heldFile, 'utf8'));
    onTestFinished(
      async () => void ((await isAlive(leftover)) && process.kill(leftover, 'SIGKILL')),
    );
    // Only the runner dies, as under `kill -9 <pid>`: its git goes on.
    first.child.kill('SIGKILL');
    await first.exited;
    expect(await isAlive(leftover)).toBe(true);

    // Without the runner ending it first, the leftover add makes the branch between the next
    // checkout's look for it and its own add, and the item is refused for good.
    const second = startRunner(root, runEnv, '--drain');
    onTestFinished(() => void second.child.kill('SIGKILL'));
    expect(await second.exited).toBe(0);
    expect(readQueue(root).items[0]).toMatchObject({ id: 'x', status: 'done' });
    expect(await isAlive(leftover)).toBe(false);
    expect(logEvents(root).find((e) => e.event === 'leftover_git_ended')).toMatchObject({
      pids: [leftover],
    });
    expect(filesAt(repo, 'ralph/x')).toEqual(['README.md', 'x.txt']);
    expect(git(repo, 'worktree', 'list').split('\n')).toHaveLength(1);
  });

  it('makes anew a worktree whose add was cut short, rather than commit its files as deleted', async () => {
    const repo = await makeRepo();
    const dir = path.join(await tempDir('ralph-worktrees-'), 'x');
    const base = git(repo, 'rev-parse', 'HEAD');
    await ensureWorktree(repo, dir, 'ralph/x', base);
    // What a `worktree add` killed before its checkout leaves: the record still locked, no
    // index, no files.
    const gitDir = git(dir, 'rev-parse', '--path-format=absolute', '--git-dir');
    fs.writeFileSync(path.join(gitDir, 'locked'), 'initializing\n');
    fs.rmSync(path.join(gitDir, 'index'));
    fs.rmSync(path.join(dir, 'README.md'));

    const checkout = await ensureWorktree(repo, dir, 'ralph/x', base);
    expect(checkout.reused).toBe(false);
    expect(fs.readdirSync(dir).sort()).toEqual(['.git', 'README.md']);
    expect(git(dir, 'status', '--porcelain')).toBe('');
    expect(git(repo, 'worktree', 'list', '--porcelain')).not.toContain('locked');
  });
});
