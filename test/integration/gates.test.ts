// Quality gates: the project's own checks decide whether an item is done.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { calls, guardedWorkspace, logEvents } from '../support/guarded.js';
import { git, makeRepo } from '../support/git.js';
import { isAlive } from '../support/processes.js';
import { eventually, waitUntil } from '../support/wait.js';
import { ralph, readQueue, readSessions } from '../support/workspace.js';

const sessionFile = (root: string, id: unknown, suffix: string) =>
  path.join(root, 'docs', 'sessions', `${String(id)}${suffix}`);

/** Pids of live processes whose command line is exactly `argv`. */
function processesRunning(argv: string[]): number[] {
  const wanted = `${argv.join('\0')}\0`;
  return fs
    .readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .filter((pid) => {
      try {
        return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8') === wanted;
      } catch {
        return false;
      }
    })
    .map(Number);
}

/** Fails while `broken.txt` is in the work dir, saying so on stderr. */
const BUILD_GATE = {
  name: 'build',
  command: [
    'sh',
    '-c',
    'if [ -f broken.txt ]; then echo "error: broken.txt breaks the build" >&2; exit 1; fi; echo build ok',
  ],
};

describe('quality gates', () => {
  it('calls an item done only when every gate passes, with the output in <session>-gates.log', async () => {
    const { root, env } = await guardedWorkspace({
      gates: [['true'], { name: 'build', command: BUILD_GATE.command, timeout: '1m' }],
    });
    await ralph(root, ['add', 'Good', '--id', 'good', '--body', '#behave: work'], env);
    expect((await ralph(root, ['run', '--drain'], env)).code).toBe(0);
    const [record] = readSessions(root);
    expect(record).toMatchObject({
      outcome: { kind: 'success' },
      gates: [
        { name: 'true', passed: true, exitCode: 0 },
        { name: 'build', passed: true, exitCode: 0, timedOut: false },
      ],
    });
    const log = fs.readFileSync(sessionFile(root, record?.sessionId, '-gates.log'), 'utf8');
    expect(log).toContain('build ok');
    expect(log).toContain('[gate "build": passed, exit 0');
    expect(readQueue(root).items[0]).toMatchObject({ status: 'done', attempts: 1 });
    expect(logEvents(root).filter((e) => e.event === 'gate_ended')).toHaveLength(2);
  });

  it('retries a gate_failed item with the failure in its prompt, resuming the conversation, on the same branch', async () => {
    const repo = await makeRepo();
    const { root, env } = await guardedWorkspace({
      defaults: { workDir: repo },
      git: { enabled: true },
      run: { retryBackoffCap: 0 },
      gates: [BUILD_GATE],
    });
    await ralph(
      root,
      [
        'add',
        'Fix it',
        '--id',
        'fixit',
        '--body',
        '#behave: sequence steps=work:broken.txt,fix:broken.txt',
      ],
      env,
    );
    const run = await ralph(root, ['run', '--drain'], env);
    expect(run.code, run.stderr).toBe(0);
    const [first, second] = readSessions(root);
    expect(first).toMatchObject({
      attempt: 1,
      status: 'failed',
      outcome: { kind: 'gate_failed', message: 'gate "build" failed: exit 1' },
      gates: [{ name: 'build', passed: false, exitCode: 1 }],
    });
    expect(second).toMatchObject({ attempt: 2, outcome: { kind: 'success' } });
    // The next prompt holds the failing command and the end of its output.
    const prompt = fs.readFileSync(sessionFile(root, second?.sessionId, '-prompt.md'), 'utf8');
    expect(prompt).toContain('The quality gate "build"');
    expect(prompt).toContain('error: broken.txt breaks the build');
    expect(
      fs.readFileSync(sessionFile(root, first?.sessionId, '-prompt.md'), 'utf8'),
    ).not.toContain('The quality gate');
    // The conversation is resumed.
    const argv = calls(root).map((c) => c);
    expect(argv[1]).toContain('--resume');
    expect(argv[1]).toContain(String(first?.sessionId));
    // Attempts counted; the item is done once the gate passes; both attempts on one branch.
    expect(readQueue(root).items[0]).toMatchObject({ status: 'done', attempts: 2 });
    expect(git(repo, 'log', '--format=%s', 'main..ralph/fixit').split('\n')).toHaveLength(2);
    expect(git(repo, 'ls-tree', '--name-only', '-r', 'ralph/fixit')).toBe('README.md');

    // The review commands show it.
    expect((await ralph(root, ['sessions'], env)).stdout).toContain('gate_failed');
    expect((await ralph(root, ['show', String(first?.sessionId)], env)).stdout).toMatch(
      /FAILED\s+build \(exit 1/,
    );
    // The failed attempt of an item done later is counted as retried, not as a failure.
    expect((await ralph(root, ['report'], env)).stdout).toMatch(/^fixit\s+2\s+1\s+0\s+1\s+0\s/m);
    const logs = await ralph(root, ['logs', String(first?.sessionId)], env);
    expect(logs.stdout).toContain('gate build: FAILED (exit 1');
  });

  it('says in ralph status which gate a session waits for once its agent has finished', async () => {
    const { root, env } = await guardedWorkspace();
    const release = path.join(root, 'gate-release');
    await ralph(
      root,
      [
        'add',
        'Slow gate',
        '--id',
        'slowgate',
        '--gate',
        JSON.stringify(['sh', '-c', `while [ ! -f ${release} ]; do sleep 0.05; done`]),
        '--body',
        '#behave: ok',
      ],
      env,
    );
    const run = ralph(root, ['run', '--drain'], env);
    await waitUntil(
      path.join(root, 'state'),
      () => logEvents(root).some((e) => e.event === 'gate_started'),
      20_000,
      'the gate',
    );
    await eventually(
      async () =>
        (await ralph(root, ['status'], env)).stdout.includes('checking its work: gate "sh -c'),
      10_000,
      'the gate in ralph status',
    );
    fs.writeFileSync(release, '');
    expect((await run).code).toBe(0);
    expect(readSessions(root)[0]).not.toHaveProperty('gate');
  });

  it('fails the item when its attempts run out, and removes its worktree but keeps the branch', async () => {
    const repo = await makeRepo();
    const { root, env } = await guardedWorkspace({
      defaults: { workDir: repo, maxAttempts: 1 },
      git: { enabled: true },
      gates: [BUILD_GATE],
    });
    await ralph(
      root,
      ['add', 'Broken', '--id', 'broken', '--body', '#behave: work file=broken.txt'],
      env,
    );
    expect((await ralph(root, ['run', '--drain'], env)).code).toBe(1);
    expect(readQueue(root).items[0]).toMatchObject({
      status: 'failed',
      lastOutcome: 'gate_failed',
      attempts: 1,
    });
    expect(fs.existsSync(path.join(root, 'worktrees', 'broken'))).toBe(false);
    expect(git(repo, 'ls-tree', '--name-only', '-r', 'ralph/broken')).toContain('broken.txt');
  });

  it('kills a gate that outlives its timeout, with every process it started', async () => {
    const { root, env } = await guardedWorkspace({
      defaults: { maxAttempts: 1 },
      gates: [{ name: 'hangs', command: ['sh', '-c', 'sleep 613 & sleep 614'], timeout: '1s' }],
    });
    await ralph(root, ['add', 'Hang', '--id', 'hang', '--body', '#behave: ok'], env);
    expect((await ralph(root, ['run', '--drain'], env)).code).toBe(1);
    expect(readSessions(root)[0]).toMatchObject({
      outcome: { kind: 'gate_failed', message: 'gate "hangs" failed: timed out after 1 s' },
      gates: [{ name: 'hangs', passed: false, timedOut: true }],
    });
    for (const argv of [
      ['sleep', '613'],
      ['sleep', '614'],
    ])
      for (const pid of processesRunning(argv))
        expect(await isAlive(pid), argv.join(' ')).toBe(false);
  });

  it('caps what a flooding gate writes to its log', async () => {
    const { root, env } = await guardedWorkspace({
      gates: [{ name: 'floods', command: ['sh', '-c', 'yes flood | head -c 12000000; exit 3'] }],
      defaults: { maxAttempts: 1 },
    });
    await ralph(root, ['add', 'Flood', '--id', 'flood', '--body', '#behave: ok'], env);
    expect((await ralph(root, ['run', '--drain'], env)).code).toBe(1);
    const [record] = readSessions(root);
    const log = sessionFile(root, record?.sessionId, '-gates.log');
    expect(fs.statSync(log).size).toBeLessThan(4 * 1024 * 1024 + 4096);
    expect(fs.readFileSync(log, 'utf8')).toContain('dropped]');
    expect(record).toMatchObject({
      gates: [{ passed: false, exitCode: 3, outputBytes: 12_000_000 }],
    });
    // The failure given to the next attempt is the end of the output, not all of it.
    expect(String(readQueue(root).items[0]?.gateFailure).length).toBeLessThan(2500);
  });

  it('takes gates from the item (--gate) over the configuration, and refuses a bad one at ralph add', async () => {
    const { root, env } = await guardedWorkspace({ gates: [['false']] });
    await ralph(
      root,
      [
        'add',
        'Own',
        '--id',
        'own',
        '--gate',
        'true',
        '--gate',
        '["sh","-c","exit 0"]',
        '--body',
        '#behave: ok',
      ],
      env,
    );
    expect(readQueue(root).items[0]).toMatchObject({
      gates: [
        { name: 'true', command: ['true'], timeout: 600 },
        { name: 'sh -c exit 0', command: ['sh', '-c', 'exit 0'] },
      ],
    });
    expect((await ralph(root, ['run', '--drain'], env)).code).toBe(0);
    const bad = await ralph(root, ['add', 'Bad', '--gate', '["sh", 1]'], env);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--gate');
  });
});
