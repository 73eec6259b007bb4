// Git mode: every item on a branch of its own, in a worktree of its own; its work committed.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { agentTalking, guardedWorkspace, logEvents } from '../support/guarded.js';
import { waitUntil } from '../support/wait.js';
import { branches, filesAt, git, makeRepo } from '../support/git.js';
import { ralph, readQueue, readSessions, tempDir } from '../support/workspace.js';

async function gitWorkspace(config: Record<string, unknown> = {}) {
  const repo = await makeRepo();
  const { root, env } = await guardedWorkspace({
    defaults: { workDir: repo },
    git: { enabled: true },
    ...config,
  });
  return { repo, root, env };
}

describe('git mode', () => {
  it('runs each item on its own branch in its own worktree, commits what the agent left, keeps the branch', async () => {
    const { repo, root, env } = await gitWorkspace();
    const head = git(repo, 'rev-parse', 'HEAD');
    await ralph(root, ['add', 'Commits', '--id', 'a', '--body', '#behave: work commit=1'], env);
    await ralph(root, ['add', 'Leaves', '--id', 'b', '--body', '#behave: work'], env);
    const run = await ralph(root, ['run', '--drain'], env);
    expect(run.code, run.stderr).toBe(0);

    expect(branches(repo)).toEqual(['main', 'ralph/a', 'ralph/b']);
    // The agent's own commit is kept as it made it.
    expect(git(repo, 'log', '--format=%an %s', 'main..ralph/a')).toBe('agent agent: a');
    // What the agent left uncommitted is committed by ralph, naming the item.
    expect(git(repo, 'log', '--format=%s', 'main..ralph/b')).toBe('ralph: Leaves (b)');
    expect(filesAt(repo, 'ralph/a')).toEqual(['README.md', 'a.txt']);
    expect(filesAt(repo, 'ralph/b')).toEqual(['README.md', 'b.txt']);
    // The repository's own checkout is untouched; nothing is pushed, merged or left behind.
    expect(git(repo, 'rev-parse', 'HEAD')).toBe(head);
    expect(git(repo, 'status', '--porcelain')).toBe('');
    expect(git(repo, 'remote')).toBe('');
    expect(fs.readdirSync(path.join(root, 'worktrees'))).toEqual([]);
    expect(git(repo, 'worktree', 'list').split('\n')).toHaveLength(1);

    const items = readQueue(root).items;
    expect(items).toMatchObject([
      { id: 'a', status: 'done', branch: 'ralph/a', baseCommit: head },
      { id: 'b', status: 'done', branch: 'ralph/b', baseCommit: head },
    ]);
    const [first] = readSessions(root);
    expect(first).toMatchObject({
      itemId: 'a',
      git: {
        branch: 'ralph/a',
        base: head,
        commits: [{ subject: 'agent: a' }],
        diffstat: '1 file changed, 1 insertion(+)',
      },
    });
    // The agent worked in the worktree, not in the repository.
    expect(String(first?.workDir)).toBe(path.join(root, 'worktrees', 'a'));
    const shown = await ralph(root, ['show', 'b'], env);
    expect(shown.stdout).toMatch(/Branch:\s+ralph\/b/);
    expect(shown.stdout).toContain('1 file changed, 1 insertion(+)');
    expect(shown.stdout).toContain('ralph: Leaves (b)');
  });

  it('works in the same place inside the worktree when the work dir is below the repository top', async () => {
    const repo = await makeRepo();
    fs.mkdirSync(path.join(repo, 'pkg'));
    fs.writeFileSync(path.join(repo, 'pkg', 'index.js'), '\n');
    git(repo, 'add', '.');
    git(repo, 'commit', '-q', '-m', 'pkg');
    const { root, env } = await guardedWorkspace({ git: { enabled: true } });
    await ralph(
      root,
      [
        'add',
        'Sub',
        '--id',
        'sub',
        '--work-dir',
        path.join(repo, 'pkg'),
        '--body',
        '#behave: work',
      ],
      env,
    );
    expect((await ralph(root, ['run', '--drain'], env)).code).toBe(0);
    expect(filesAt(repo, 'ralph/sub')).toEqual(['README.md', 'pkg/index.js', 'pkg/sub.txt']);
    expect(readSessions(root)[0]?.workDir).toBe(path.join(root, 'worktrees', 'sub', 'pkg'));
  });

  it('pushes the branch once the gates pass when git.push names a remote', async () => {
    const bare = await tempDir('ralph-remote-');
    git(bare, 'init', '-q', '--bare');
    const { repo, root, env } = await gitWorkspace({
      git: { enabled: true, push: 'origin' },
      gates: [['true']],
    });
    git(repo, 'remote', 'add', 'origin', bare);
    await ralph(root, ['add', 'Pushed', '--id', 'p', '--body', '#behave: work'], env);
    expect((await ralph(root, ['run', '--drain'], env)).code).toBe(0);
    expect(git(bare, 'branch', '--format=%(refname:short)')).toBe('ralph/p');
    expect(git(bare, 'rev-parse', 'ralph/p')).toBe(git(repo, 'rev-parse', 'ralph/p'));
    // The push stage pushed it after the session, and the item says so.
    expect(readQueue(root).items[0]).toMatchObject({ id: 'p', pushedTo: 'origin' });
  });

  it('runs an item without git mode, saying so, when its work dir is in no repository', async () => {
    const plain = await tempDir('ralph-plain-');
    const { root, env } = await guardedWorkspace({ git: { enabled: true } });
    await ralph(
      root,
      ['add', 'Plain', '--id', 'plain', '--work-dir', plain, '--body', '#behave: work'],
      env,
    );
    expect((await ralph(root, ['run', '--drain'], env)).code).toBe(0);
    expect(fs.existsSync(path.join(plain, 'plain.txt'))).toBe(true);
    expect(logEvents(root).map((e) => e.event)).toContain('git_skipped');
    expect(readQueue(root).items[0]).toMatchObject({ status: 'done' });
  });

  it('lets an item opt out (--no-git) and start from another base (--base)', async () => {
    const { repo, root, env } = await gitWorkspace();
    const initial = git(repo, 'rev-parse', 'HEAD');
    fs.writeFileSync(path.join(repo, 'later.txt'), 'later\n');
    git(repo, 'add', '.');
    git(repo, 'commit', '-q', '-m', 'later');
    await ralph(
      root,
      ['add', 'Old', '--id', 'old', '--base', initial, '--body', '#behave: work'],
      env,
    );
    await ralph(root, ['add', 'Here', '--id', 'here', '--no-git', '--body', '#behave: work'], env);
    expect((await ralph(root, ['run', '--drain'], env)).code).toBe(0);
    expect(filesAt(repo, 'ralph/old')).toEqual(['README.md', 'old.txt']);
    expect(git(repo, 'merge-base', 'main', 'ralph/old')).toBe(initial);
    expect(branches(repo)).toEqual(['main', 'ralph/old']);
    expect(fs.existsSync(path.join(repo, 'here.txt'))).toBe(true);
  });

  it('deletes the branch with ralph rm --branch, and shows the branch against its base with ralph diff', async () => {
    const { repo, root, env } = await gitWorkspace();
    await ralph(root, ['add', 'Diffed', '--id', 'd', '--body', '#behave: work'], env);
    expect((await ralph(root, ['run', '--drain'], env)).code).toBe(0);
    const diff = await ralph(root, ['diff', 'd'], env);
    expect(diff.code, diff.stderr).toBe(0);
    expect(diff.stdout).toContain('+++ b/d.txt');
    expect(diff.stdout).toContain('+work of d, attempt 1');
    const stat = await ralph(root, ['diff', 'd', '--stat'], env);
    expect(stat.stdout).toContain('d.txt | 1 +');
    expect((await ralph(root, ['rm', 'd', '--branch'], env)).code).toBe(0);
    expect(branches(repo)).toEqual(['main']);
    const gone = await ralph(root, ['diff', 'd'], env);
    expect(gone.code).not.toBe(0);
  });

  it("switches a worktree the agent left on another branch back to the item's on the retry", async () => {
    const { repo, root, env } = await gitWorkspace({ run: { retryBackoffCap: 0 } });
    await ralph(
      root,
      ['add', 'Wanders', '--id', 'wand', '--body', '#behave: sequence steps=wander,work'],
      env,
    );
    expect((await ralph(root, ['run', '--drain'], env)).code).toBe(0);
    expect(readQueue(root).items[0]).toMatchObject({ status: 'done', attempts: 2 });
    expect(filesAt(repo, 'ralph/wand')).toEqual(['README.md', 'wand.txt']);
    expect(branches(repo)).toEqual(['main', 'ralph/wand', 'wandered-wand']);
  });

  it('refuses at ralph add an id git would refuse as a branch name', async () => {
    const { root, env } = await gitWorkspace();
    for (const id of ['a..b', 'ends.', 'name.lock']) {
      const refused = await ralph(root, ['add', 'Bad', '--id', id], env);
      expect(refused.code, id).toBe(2);
      expect(refused.stderr).toContain(`--id ${id}: git mode would work on branch ralph/${id}`);
    }
    expect((await ralph(root, ['add', 'Fine', '--id', 'a..b', '--no-git'], env)).code).toBe(0);
  });

  it('plans the worktree in --dry-run without making it', async () => {
    const { repo, root, env } = await gitWorkspace({ gates: [['npm', 'test']] });
    await ralph(root, ['add', 'Planned', '--id', 'plan', '--body', '#behave: work'], env);
    const dry = await ralph(root, ['run', '--dry-run'], env);
    expect(dry.stdout).toContain(
      `# plan (Planned) on claude in ${path.join(root, 'worktrees', 'plan')} on branch ralph/plan (from ${git(repo, 'rev-parse', 'HEAD').slice(0, 12)})`,
    );
    expect(dry.stdout).toContain('# gates: npm test');
    expect(fs.existsSync(path.join(root, 'worktrees'))).toBe(false);
    expect(branches(repo)).toEqual(['main']);
  });

  it('plans a dependent of a reviewed, landing item after its landing in --dry-run', async () => {
    const { root, env } = await gitWorkspace({
      review: { enabled: true },
      land: { enabled: true },
    });
    await ralph(root, ['add', 'First', '--id', 'a', '--body', '#behave: work'], env);
    await ralph(root, ['add', 'Then', '--id', 'b', '--depends-on', 'a'], env);
    const dry = await ralph(root, ['run', '--dry-run'], env);
    const lines = dry.stdout.split('\n').filter((line) => line.startsWith('# '));
    const a = lines.findIndex((line) => line.startsWith('# a (First)'));
    const landed = lines.indexOf('# after its session: reviewing → landing → done');
    const b = lines.indexOf('# b starts once a rests where dependents may run');
    expect(
      [a, landed, b].every((i) => i >= 0),
      dry.stdout,
    ).toBe(true);
    expect(a < landed && landed < b).toBe(true);
    expect(lines[b + 1]).toMatch(/^# b \(Then\) on claude/);
    expect(readQueue(root).items.map((i) => i.status)).toEqual(['pending', 'pending']);
  });

  it('keeps the worktree of an interrupted item for its resumption, and removes it when the item is cancelled', async () => {
    const { repo, root, env } = await gitWorkspace();
    const gate = path.join(root, 'gate');
    await ralph(
      root,
      ['add', 'Paused', '--id', 'paused', '--body', `#behave: gated gate=${gate}`],
      env,
    );
    const run = ralph(root, ['run', '--drain'], env);
    await waitUntil(root, agentTalking(root), 20_000, 'the agent');
    fs.writeFileSync(path.join(root, 'worktrees', 'paused', 'half-done.txt'), 'half\n');
    await ralph(root, ['pause', 'lunch'], env);
    expect((await run).code).toBe(6);
    expect(readQueue(root).items[0]).toMatchObject({ status: 'interrupted' });
    // The work so far waits in its worktree for the resumed session.
    expect(fs.existsSync(path.join(root, 'worktrees', 'paused', 'half-done.txt'))).toBe(true);
    expect((await ralph(root, ['cancel', 'paused'], env)).code).toBe(0);
    expect(fs.existsSync(path.join(root, 'worktrees', 'paused'))).toBe(false);
    expect(git(repo, 'worktree', 'list').split('\n')).toHaveLength(1);
    expect(branches(repo)).toEqual(['main', 'ralph/paused']);
    // What it left uncommitted is kept on its branch, not lost with the directory.
    expect(filesAt(repo, 'ralph/paused')).toContain('half-done.txt');
    expect(git(repo, 'log', '-1', '--format=%s', 'ralph/paused')).toBe(
      'ralph: work left uncommitted by paused (cancelled)',
    );
  });
});
