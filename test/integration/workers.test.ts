// Parallel workers: up to N items at once, one runner, one lock, every guard over all of them.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  calls,
  expectNoSurvivors,
  guardedWorkspace,
  ledger,
  logEvents,
} from '../support/guarded.js';
import { branches, filesAt, git, makeRepo } from '../support/git.js';
import { isAlive } from '../support/processes.js';
import { startRunner } from '../support/runner.js';
import { waitUntil } from '../support/wait.js';
import {
  addInOwnDir,
  ralph,
  readQueue,
  readSessions,
  runningRecords,
  tempDir,
} from '../support/workspace.js';

/** The most items the ledger shows running at once, and how often each item started. */
function concurrency(root: string): { most: number; starts: Map<string, number> } {
  let now = 0;
  let most = 0;
  const starts = new Map<string, number>();
  for (const line of ledger(root)) {
    const [what, item] = line.split(' ');
    if (what === 'start') {
      now++;
      starts.set(String(item), (starts.get(String(item)) ?? 0) + 1);
    } else now--;
    most = Math.max(most, now);
  }
  return { most, starts };
}

async function addItems(
  root: string,
  env: Record<string, string>,
  ids: string[],
  body: string,
  /** A work dir of its own for each item: without git mode, one dir runs one item at a time. */
  ownDirs = false,
) {
  for (const id of ids) {
    const dir = ownDirs ? ['--work-dir', await tempDir(`ralph-${id}-`)] : [];
    await ralph(root, ['add', `Item ${id}`, '--id', id, ...dir, '--body', body], env);
  }
}

const running = (root: string, n: number) => () =>
  runningRecords(root).filter((r) => r.status === 'running').length === n;

/** Whether `n` sessions run and each has said its first line (so it can be resumed). */
const talking = (root: string, n: number) => () => {
  const records = runningRecords(root);
  return (
    records.length === n &&
    records.every((r) => {
      const stream = path.join(root, 'docs', 'sessions', `${r.sessionId}.ndjson`);
      return fs.existsSync(stream) && fs.statSync(stream).size > 0;
    })
  );
};

describe('parallel workers', () => {
  it('runs 30 items with 3 workers in git mode: never more than 3 at once, each once, each on its own branch', async () => {
    const repo = await makeRepo();
    const { root, env } = await guardedWorkspace({
      defaults: { workDir: repo },
      git: { enabled: true },
    });
    const ids = Array.from({ length: 30 }, (_, i) => `w${String(i).padStart(2, '0')}`);
    await addItems(root, env, ids, '#behave: work commit=1 maxms=300');
    const run = await ralph(root, ['run', '--drain', '--workers', '3'], env);
    expect(run.code, run.stderr).toBe(0);

    const { most, starts } = concurrency(root);
    expect(most).toBeLessThanOrEqual(3);
    expect(most).toBeGreaterThan(1);
    expect([...starts.values()].every((n) => n === 1)).toBe(true);
    expect(starts.size).toBe(30);
    expect(readQueue(root).items.every((i) => i.status === 'done')).toBe(true);
    expect(branches(repo)).toEqual(['main', ...ids.map((id) => `ralph/${id}`)]);
    // Each item's work on its branch and nowhere else.
    for (const id of ids) expect(filesAt(repo, `ralph/${id}`)).toEqual(['README.md', `${id}.txt`]);
    expect(filesAt(repo, 'main')).toEqual(['README.md']);
    expect(fs.readdirSync(path.join(root, 'worktrees'))).toEqual([]);
    expect(readSessions(root)).toHaveLength(30);
    expect(logEvents(root).find((e) => e.event === 'run_started')).toMatchObject({ workers: 3 });
  });

  it('never runs two items in one work dir at once without git mode', async () => {
    const { root, env } = await guardedWorkspace();
    const other = await tempDir('ralph-other-');
    await addItems(root, env, ['s1', 's2', 's3'], '#behave: slow ms=400');
    await ralph(
      root,
      ['add', 'Elsewhere', '--id', 'o1', '--work-dir', other, '--body', '#behave: slow ms=400'],
      env,
    );
    const run = await ralph(root, ['run', '--drain', '--workers', '3'], env);
    expect(run.code, run.stderr).toBe(0);
    // Items in the workspace's dir one after another; the other dir's alongside them.
    let shared = 0;
    let most = 0;
    for (const line of ledger(root)) {
      const [what, item] = line.split(' ');
      if (!String(item).startsWith('s')) continue;
      shared += what === 'start' ? 1 : -1;
      most = Math.max(most, shared);
    }
    expect(most).toBe(1);
    expect(concurrency(root).most).toBe(2);
  });

  it('pauses all workers on the interrupt file and resumes their sessions', async () => {
    const { root, env } = await guardedWorkspace();
    const gate = path.join(root, 'never');
    await addItems(root, env, ['p1', 'p2', 'p3'], `#behave: gated gate=${gate} onresume=ok`, true);
    const first = ralph(root, ['run', '--drain', '--workers', '3'], env);
    await waitUntil(path.join(root, 'state'), talking(root, 3), 20_000, '3 talking sessions');
    expect((await ralph(root, ['status'], env)).stdout.match(/^Running: /gm)).toHaveLength(3);
    // The sessions index lists the running ones first.
    const listed = JSON.parse((await ralph(root, ['sessions', '--json'], env)).stdout) as {
      outcome: string;
    }[];
    expect(listed.map((e) => e.outcome)).toEqual(['running', 'running', 'running']);
    await ralph(root, ['pause', 'lunch'], env);
    // A drained run ends on the pause (exit 6) once all three have stopped.
    expect((await first).code).toBe(6);
    expect(readQueue(root).items.map((i) => i.status)).toEqual([
      'interrupted',
      'interrupted',
      'interrupted',
    ]);
    expect(readSessions(root).map((s) => s.status)).toEqual([
      'interrupted',
      'interrupted',
      'interrupted',
    ]);
    await ralph(root, ['resume'], env);
    const second = await ralph(root, ['run', '--drain', '--workers', '3'], env);
    expect(second.code, second.stderr).toBe(0);
    expect(readQueue(root).items.every((i) => i.status === 'done' && i.attempts === 1)).toBe(true);
    // Each resumed its own conversation.
    const resumed = calls(root).filter((argv) => argv.includes('--resume'));
    expect(resumed).toHaveLength(3);
    await expectNoSurvivors(root);
  });

  it('stops all workers on SIGTERM: exit 143, every item requeued, no process left', async () => {
    const { root, env } = await guardedWorkspace();
    await addItems(root, env, ['t1', 't2', 't3', 't4'], '#behave: hang', true);
    const runner = startRunner(root, env, '--workers', '3');
    await waitUntil(path.join(root, 'state'), running(root, 3), 20_000, '3 running sessions');
    const pids = runningRecords(root).map((r) => r.pid);
    runner.child.kill('SIGTERM');
    expect(await runner.exited).toBe(143);
    for (const pid of pids) expect(await isAlive(pid)).toBe(false);
    expect(readQueue(root).items.map((i) => [i.status, i.attempts])).toEqual([
      ['pending', 0],
      ['pending', 0],
      ['pending', 0],
      ['pending', 0],
    ]);
    expect(runningRecords(root)).toEqual([]);
    await expectNoSurvivors(root);
  });

  it('recovers every running item after the runner is killed with SIGKILL, and settles the worktrees', async () => {
    const repo = await makeRepo();
    const { root, env } = await guardedWorkspace({
      defaults: { workDir: repo },
      git: { enabled: true },
    });
    await addItems(root, env, ['k1', 'k2', 'k3'], '#behave: sequence steps=hang,work');
    const runner = startRunner(root, env, '--workers', '3');
    // Each agent has begun (and counted its first step), so the next one takes the second.
    const begun = () => ledger(root).filter((l) => l.startsWith('start')).length === 3;
    await waitUntil(root, () => running(root, 3)() && begun(), 20_000, '3 running sessions');
    const pids = runningRecords(root).map((r) => r.pid);
    // A git that died holding the index lock of one worktree.
    fs.writeFileSync(path.join(repo, '.git', 'worktrees', 'k1', 'index.lock'), '');
    runner.child.kill('SIGKILL');
    await runner.exited;
    for (const pid of pids) expect(await isAlive(pid)).toBe(true);

    const again = await ralph(root, ['run', '--drain', '--workers', '3'], env);
    expect(again.code, again.stderr).toBe(0);
    for (const pid of pids) expect(await isAlive(pid)).toBe(false);
    const events = logEvents(root);
    expect(events.filter((e) => e.event === 'orphan_session_recovered')).toHaveLength(3);
    expect(events.find((e) => e.event === 'items_requeued_after_crash')).toMatchObject({
      items: ['k1', 'k2', 'k3'],
    });
    // The attempt at the kill is counted; the branches carry on; the worktrees are gone.
    expect(readQueue(root).items.map((i) => [i.status, i.attempts])).toEqual([
      ['done', 2],
      ['done', 2],
      ['done', 2],
    ]);
    for (const id of ['k1', 'k2', 'k3'])
      expect(filesAt(repo, `ralph/${id}`)).toContain(`${id}.txt`);
    expect(fs.readdirSync(path.join(root, 'worktrees'))).toEqual([]);
    expect(git(repo, 'worktree', 'list').split('\n')).toHaveLength(1);
    await expectNoSurvivors(root);
  });

  it('holds the run to one --max-cost across the workers: each session gets its share of what is left', async () => {
    const { root, env } = await guardedWorkspace();
    const ids = ['c1', 'c2', 'c3', 'c4', 'c5', 'c6'];
    await addItems(root, env, ids, '#behave: ok cost=0.3', true);
    const run = await ralph(root, ['run', '--drain', '--workers', '2', '--max-cost', '1'], env);
    expect(run.code, run.stderr).toBe(0);
    const budgets = calls(root).map((argv) => Number(argv[argv.indexOf('--max-budget-usd') + 1]));
    // The first two start with $1 left: half each; later ones half of what is left then.
    expect(budgets.slice(0, 2)).toEqual([0.5, 0.5]);
    for (const budget of budgets.slice(2)) expect(budget).toBeLessThanOrEqual(0.35 + 1e-9);
    // No claim once the run has spent its limit.
    expect(logEvents(root).map((e) => e.event)).toContain('run_limit_reached');
    expect(readSessions(root).length).toBeLessThan(ids.length);
  });

  it('holds every worker for a usage limit one of them met', async () => {
    const { root, env } = await guardedWorkspace();
    const resetsAt = Math.ceil(Date.now() / 1000) + 3;
    await ralph(
      root,
      [
        'add',
        'Limited',
        '--id',
        'l1',
        '--priority',
        '1',
        '--body',
        `#behave: sequence steps=rate-limited,ok resetsAt=${resetsAt}`,
      ],
      env,
    );
    await addItems(root, env, ['o1', 'o2', 'o3'], '#behave: slow ms=200', true);
    const run = await ralph(root, ['run', '--drain', '--workers', '2'], env);
    expect(run.code, run.stderr).toBe(0);
    const events = logEvents(root);
    const wait = events.find((e) => e.event === 'limit_wait');
    expect(wait).toBeDefined();
    const waitAt = Date.parse(String(wait?.time));
    // Once the limit is known, no worker starts a session before it resets.
    const laterStarts = events.filter(
      (e) => e.event === 'session_started' && Date.parse(String(e.time)) > waitAt,
    );
    expect(laterStarts.length).toBeGreaterThan(0);
    for (const start of laterStarts)
      expect(Date.parse(String(start.time))).toBeGreaterThanOrEqual(resetsAt * 1000);
    expect(readQueue(root).items.every((i) => i.status === 'done')).toBe(true);
  });

  it('lets every running item finish on ralph pause --after-current, then pauses', async () => {
    const { root, env } = await guardedWorkspace();
    const gates = { a1: path.join(root, 'gate-a1'), a2: path.join(root, 'gate-a2') };
    for (const [id, gate] of Object.entries(gates))
      await addInOwnDir(root, id, `#behave: gated gate=${gate}`, env);
    await ralph(root, ['add', 'Next', '--id', 'a3', '--work-dir', await tempDir()], env);
    const run = ralph(root, ['run', '--drain', '--workers', '2'], env);
    await waitUntil(path.join(root, 'state'), talking(root, 2), 20_000, '2 talking sessions');
    await ralph(root, ['pause', '--after-current', 'for the night'], env);
    fs.writeFileSync(gates.a1, '');
    await waitUntil(
      path.join(root, 'state'),
      () => readQueue(root).items.find((i) => i.id === 'a1')?.status === 'done',
      20_000,
      'a1 done',
    );
    // a2 runs on: the pause waits for it, and nothing new starts.
    expect(readQueue(root).items.map((i) => i.status)).toEqual(['done', 'running', 'pending']);
    expect(fs.existsSync(path.join(root, 'state', 'interrupt-request.txt'))).toBe(false);
    fs.writeFileSync(gates.a2, '');
    expect((await run).code).toBe(6);
    expect(readQueue(root).items.map((i) => i.status)).toEqual(['done', 'done', 'pending']);
    expect(readSessions(root).map((s) => s.status)).toEqual(['completed', 'completed']);
  });
});
