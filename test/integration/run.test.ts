import { spawn, execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import {
  FAKE_CLAUDE,
  RALPH_BIN,
  listFiles,
  makeWorkspace,
  ralph,
  readQueue,
  readSessions,
  runningRecords,
  tempDir,
} from '../support/workspace.js';
import { waitUntil } from '../support/wait.js';

const exec = promisify(execFile);

async function fakeWorkspace(config: Record<string, unknown> = {}) {
  const root = await makeWorkspace({ clis: { claude: { command: [FAKE_CLAUDE] } }, ...config });
  const calls = path.join(root, 'calls.jsonl');
  const env = { FAKE_CLAUDE_CALLS: calls, FAKE_CLAUDE_LEDGER: path.join(root, 'ledger.txt') };
  return { root, calls, env };
}

describe('ralph run with a fake claude', () => {
  it("goes from a person's repository to a finished item with the built CLI, the workspace beside it", async () => {
    const app = path.join(await tempDir(), 'app');
    fs.mkdirSync(app);
    await exec('git', ['init', '-q'], { cwd: app });
    const dir = `${app}.ralph`;
    const bin = await tempDir('ralph-bin-');
    fs.symlinkSync(FAKE_CLAUDE, path.join(bin, 'claude'));
    // In the project: the agent runs in init's sandbox, which gives it nothing else to write.
    const calls = path.join(app, 'calls.jsonl');
    const env = {
      ...process.env,
      PATH: `${bin}:${process.env.PATH ?? ''}`,
      FAKE_CLAUDE_CALLS: calls,
    };
    // Every command run in the repository: init puts the workspace beside it, the rest find it.
    const cli = (...args: string[]) =>
      exec(process.execPath, [RALPH_BIN, ...args], { cwd: app, env });
    const init = await cli('init');
    expect(init.stdout).toContain(`Project: ${app} (the git repository init ran in)`);
    expect(init.stdout).toContain(`Workspace ${dir}`);
    const { stdout: id } = await cli(
      'add',
      'Write the changelog',
      '--body',
      'Summarise the last release.',
    );
    const { stdout } = await cli('run', '--drain');
    // A machine that cannot be kept awake (no logind here) is said once, and the night goes on.
    expect(
      stdout
        .trim()
        .split('\n')
        .map((l) => (JSON.parse(l) as { event: string }).event)
        .filter((event) => event !== 'awake_unavailable'),
    ).toEqual(['run_started', 'night_planned', 'session_started', 'session_ended', 'run_finished']);
    expect(readQueue(dir).items[0]).toMatchObject({ id: id.trim(), status: 'done', attempts: 1 });
    // The agent worked in the project, not in the workspace.
    const call = JSON.parse(fs.readFileSync(calls, 'utf8').split('\n')[0]!) as { cwd: string };
    expect(fs.realpathSync(call.cwd)).toBe(fs.realpathSync(app));
    const [record] = readSessions(dir);
    const sid = String(record?.sessionId);
    expect(listFiles(path.join(dir, 'docs', 'sessions'))).toEqual(
      [
        `${sid}-input.jsonl`,
        `${sid}-prompt.md`,
        `${sid}-summary.md`,
        `${sid}-system.md`,
        `${sid}.err`,
        `${sid}.json`,
        `${sid}.ndjson`,
        'index.jsonl',
      ].sort(),
    );
    expect(listFiles(path.join(dir, 'state'))).toEqual([
      '.budget.json.sha1',
      '.config-cache.json',
      '.queue.json.sha1',
      'budget.json',
      'iteration.log',
      'plan.json',
      'queue.json',
      'runner.lock',
    ]);
  });

  it('keeps the session record while it runs and archives it at the end', async () => {
    const { root, env } = await fakeWorkspace();
    await ralph(root, ['add', 'Slow', '--id', 'slow', '--body', '#behave: slow ms=1500'], env);
    const running = ralph(root, ['run', '--drain'], env);
    await waitUntil(
      path.join(root, 'state'),
      () => runningRecords(root)[0]?.status === 'running',
      10_000,
      'a running session',
    );
    const live = runningRecords(root)[0]!;
    expect(live).toMatchObject({
      itemId: 'slow',
      status: 'running',
      pid: expect.any(Number) as number,
    });
    expect(readQueue(root).items[0]).toMatchObject({ status: 'running', attempts: 1 });
    expect((await running).code).toBe(0);
    expect(runningRecords(root)).toEqual([]);
    expect(readSessions(root)[0]).toMatchObject({
      sessionId: live.sessionId,
      status: 'completed',
      pid: live.pid,
    });
  });

  it('pauses the night on a template placeholder nothing defines, before spawning, without spending an attempt', async () => {
    const { root, calls, env } = await fakeWorkspace();
    fs.appendFileSync(
      path.join(root, 'prompts', 'bootstrap.md'),
      '\nTicket: {{TICKET}} {{NOPE}}\n',
    );
    await ralph(root, ['add', 'Has ticket', '--id', 'with-var', '--var', 'TICKET=T-1'], env);
    const result = await ralph(root, ['run', '--drain'], env);
    expect(result.code).toBe(6);
    expect(fs.existsSync(calls)).toBe(false);
    const [item] = readQueue(root).items;
    expect(item).toMatchObject({ status: 'pending', attempts: 0 });
    // Given back, the attempt is no previous attempt: the reason is the pause's.
    expect(item?.lastError).toBeUndefined();
    expect(fs.readFileSync(path.join(root, 'state', 'interrupt-request.txt'), 'utf8')).toContain(
      '{{NOPE}}',
    );
    expect(readSessions(root)).toEqual([]);
  });

  it('stops with a clear error when the claude binary is missing, and gives the item back', async () => {
    const { root, env } = await fakeWorkspace({
      clis: { claude: { command: ['/nonexistent/claude'] } },
    });
    await ralph(root, ['add', 'Anything', '--id', 'a'], env);
    const result = await ralph(root, ['run', '--drain'], env);
    expect(result.code).toBe(5);
    expect(result.stderr).toContain('/nonexistent/claude: command not found');
    expect(readQueue(root).items[0]).toMatchObject({ status: 'pending', attempts: 0 });
  });

  it('refuses to run on a malformed queue and leaves it byte-identical', async () => {
    const { root, env } = await fakeWorkspace();
    const file = path.join(root, 'state', 'queue.json');
    fs.writeFileSync(file, '{"version": 2, "items": [{"id": "a", "title": "x"}');
    const before = fs.readFileSync(file);
    const result = await ralph(root, ['run', '--drain'], env);
    expect(result.code).toBe(4);
    expect(result.stderr).toContain(`${file}: invalid JSON`);
    expect(fs.readFileSync(file).equals(before)).toBe(true);
  });

  it('records each way a session can fail', async () => {
    const { root, env } = await fakeWorkspace({
      run: { maxConsecutiveFailures: 0, failureBackoffCap: 0 },
    });
    const cases = {
      crash: ['no-result', 'no_result'],
      signal: ['exit-signal', 'signal_exit'],
      error: ['is-error status=400', 'api_error'],
      turns: ['max-turns', 'max_turns'],
    } as const;
    for (const [id, [behaviour]] of Object.entries(cases)) {
      await ralph(
        root,
        ['add', id, '--id', id, '--body', `#behave: ${behaviour}`, '--max-attempts', '1'],
        env,
      );
    }
    expect((await ralph(root, ['run', '--drain'], env)).code).toBe(1);
    const items = new Map(readQueue(root).items.map((i) => [i.id, i]));
    for (const [id, [, outcome]] of Object.entries(cases)) {
      expect(items.get(id), id).toMatchObject({
        status: 'failed',
        lastOutcome: outcome,
        attempts: 1,
      });
    }
    const crash = readSessions(root).find((r) => r.itemId === 'crash');
    expect(crash).toMatchObject({ status: 'failed', exit: { code: 1 } });
    expect(String((crash?.outcome as { message: string }).message)).toContain('something broke');
  });

  it('parks an item whose tools were refused for a person, the refusal as its question', async () => {
    const { root, env } = await fakeWorkspace();
    await ralph(root, ['add', 'denied', '--id', 'denied', '--body', '#behave: denied'], env);
    expect((await ralph(root, ['run', '--drain'], env)).code).toBe(0);
    const [item] = readQueue(root).items;
    expect(item).toMatchObject({ status: 'needs_input', attempts: 1 });
    expect(String(item?.question)).toMatch(
      /tools refused by the permission mode: Write\. Allow them/,
    );
    const [record] = readSessions(root);
    expect(record).toMatchObject({ status: 'failed', outcome: { kind: 'permission_denied' } });
    const status = await ralph(root, ['status'], env);
    expect(status.stdout).toContain(
      'Needs you: denied asks "tools refused by the permission mode: Write',
    );
  });

  it('runs one item with --once and at most N with --max-iterations', async () => {
    const { root, env } = await fakeWorkspace();
    for (const id of ['a', 'b', 'c']) await ralph(root, ['add', id, '--id', id], env);
    await ralph(root, ['run', '--once'], env);
    expect(readQueue(root).items.map((i) => i.status)).toEqual(['done', 'pending', 'pending']);
    await ralph(root, ['run', '--max-iterations', '1', '--drain'], env);
    expect(readQueue(root).items.map((i) => i.status)).toEqual(['done', 'done', 'pending']);
  });

  it('prints the exact commands with --dry-run and spawns nothing', async () => {
    const { root, calls, env } = await fakeWorkspace();
    await ralph(root, ['add', 'First', '--id', 'first', '--model', 'claude-x'], env);
    await ralph(root, ['add', 'Second', '--id', 'second', '--depends-on', 'first'], env);
    const result = await ralph(root, ['run', '--dry-run'], env);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(
      /# first \(First\)[\s\S]*--model claude-x[\s\S]*# second \(Second\)/,
    );
    expect(result.stdout).toContain(`${FAKE_CLAUDE} -p`);
    expect(fs.existsSync(calls)).toBe(false);
    expect(readQueue(root).items.map((i) => i.status)).toEqual(['pending', 'pending']);
  });

  it('T33 keeps planted secrets out of the agent and out of every file it writes', async () => {
    const { root, calls, env } = await fakeWorkspace();
    const secrets = {
      GITHUB_TOKEN: 'ghp_plantedGithubToken123',
      AWS_SECRET_ACCESS_KEY: 'plantedAwsSecretKey456',
      DATABASE_URL: 'postgres://admin:plantedDbPassword@db/prod',
      MY_API_KEY: 'plantedMyApiKey789',
      ANTHROPIC_API_KEY: 'sk-ant-plantedAnthropicKey000',
    };
    await ralph(root, ['add', 'Ok', '--id', 'ok'], { ...env, ...secrets });
    await ralph(
      root,
      ['add', 'Crash', '--id', 'crash', '--body', '#behave: no-result', '--max-attempts', '1'],
      { ...env, ...secrets },
    );
    await ralph(root, ['run', '--drain'], { ...env, ...secrets, CLAUDECODE: '1' });
    const seen = fs
      .readFileSync(calls, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { env: string[] });
    for (const call of seen) {
      expect(call.env).toContain('ANTHROPIC_API_KEY');
      expect(call.env).toContain('RALPH_SESSION_ID');
      for (const name of [
        'GITHUB_TOKEN',
        'AWS_SECRET_ACCESS_KEY',
        'DATABASE_URL',
        'MY_API_KEY',
        'CLAUDECODE',
      ]) {
        expect(call.env).not.toContain(name);
      }
    }
    for (const dir of ['state', 'docs']) {
      for (const file of listFiles(path.join(root, dir))) {
        const text = fs.readFileSync(path.join(root, dir, file), 'utf8');
        for (const value of Object.values(secrets))
          expect(text, `${dir}/${file}`).not.toContain(value);
      }
    }
  });

  it('waits for new items without --drain and exits 143 on SIGTERM', async () => {
    const { root, env } = await fakeWorkspace();
    const runner = spawn(process.execPath, [RALPH_BIN, '-C', root, 'run'], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = new Promise<number | null>((resolve) =>
      runner.on('exit', (code) => resolve(code)),
    );
    const log = path.join(root, 'state', 'iteration.log');
    await waitUntil(
      path.join(root, 'state'),
      () => fs.existsSync(log) && fs.readFileSync(log, 'utf8').includes('run_started'),
      10_000,
      'the runner to start',
    );
    await ralph(root, ['add', 'Late', '--id', 'late'], env);
    await waitUntil(
      path.join(root, 'state'),
      () => readQueue(root).items[0]?.status === 'done',
      15_000,
      'the late item',
    );
    runner.kill('SIGTERM');
    expect(await exited).toBe(143);
    expect(
      fs
        .readdirSync(path.join(root, 'state'))
        .filter(
          (n) => n.endsWith('.lock') && fs.statSync(path.join(root, 'state', n)).isDirectory(),
        ),
    ).toEqual([]);
  });
});
