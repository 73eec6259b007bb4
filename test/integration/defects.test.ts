// Defects found by trying every command as a person would: each test failed before its fix.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCommand } from '../../src/cli/commands/run.js';
import { main } from '../../src/cli/main.js';
import type { RunnerEvent } from '../../src/runner/index.js';
import { runGates } from '../../src/gates/gates.js';
import { addUsd } from '../../src/lib/usd.js';
import { makeRepo } from '../support/git.js';
import { agentTalking, calls, guardedWorkspace, ledger } from '../support/guarded.js';
import { captureOutput } from '../support/output.js';
import { fakeTime } from '../support/fake-time.js';
import { startRunner } from '../support/runner.js';
import { waitUntil } from '../support/wait.js';
import {
  FAKE_CLAUDE,
  RALPH_BIN,
  ralph,
  readQueue,
  readSessions,
  runningRecords,
  tempDir,
} from '../support/workspace.js';
import { isAlive } from '../support/processes.js';

const START = Date.parse('2026-11-22T01:00:00Z');

async function run(root: string, env: Record<string, string>, options: Record<string, unknown>) {
  const output = captureOutput();
  const code = await runCommand(
    root,
    options,
    output,
    { PATH: process.env.PATH, ...env },
    {
      ...fakeTime(START),
    },
  );
  return { code, stdout: output.stdout.join('\n'), stderr: output.stderr.join('\n') };
}

describe('ralph run --once', () => {
  it.each(['no-result', 'max-turns', 'is-error'])(
    'exits 1 when its one session failed (%s), though the item will be retried',
    async (behaviour) => {
      const { root, env } = await guardedWorkspace();
      await ralph(root, ['add', 'Fails', '--id', 'f', '--body', `#behave: ${behaviour}`], env);
      const { code, stdout } = await run(root, env, { once: true });
      expect(code).toBe(1);
      expect(readQueue(root).items[0]).toMatchObject({ id: 'f', status: 'pending', attempts: 1 });
      const finished = stdout
        .split('\n')
        .map((line) => JSON.parse(line) as Record<string, unknown>)
        .find((event) => event.event === 'run_finished');
      expect(finished).toMatchObject({ sessions: 1, succeeded: 0, awaitingRetry: 1 });
      expect(Object.values(finished?.outcomes as Record<string, number>)).toEqual([1]);
    },
  );

  it('exits 0 when its one session succeeded', async () => {
    const { root, env } = await guardedWorkspace();
    await ralph(root, ['add', 'Works', '--id', 'w'], env);
    expect((await run(root, env, { once: true })).code).toBe(0);
    expect(fs.existsSync(path.join(root, 'state', 'queue.json'))).toBe(true);
  });
});

describe('a runner killed with SIGKILL after its agent ended', () => {
  it('lets ralph logs --follow end, and the next run records the cost the agent reported', async () => {
    const { root, env } = await guardedWorkspace();
    const started = path.join(root, 'gate-started');
    // The first run's gate hangs until the runner is killed; the next run's passes.
    const gate = JSON.stringify([
      'sh',
      '-c',
      `[ -e ${started} ] && exit 0; touch ${started}; exec sleep 30`,
    ]);
    await ralph(
      root,
      ['add', 'Gated', '--id', 'g', '--body', '#behave: ok cost=0.25', '--gate', gate],
      env,
    );
    const runner = startRunner(root, env, '--drain');
    await waitUntil(root, () => fs.existsSync(started), 20_000, 'the gate');
    runner.child.kill('SIGKILL');
    await runner.exited;
    // Nothing can write to the session any more: following it ends instead of waiting forever.
    const followed = await ralph(root, ['logs', '--follow', 'g'], env);
    expect(followed.code).toBe(0);
    expect(followed.stdout).toContain('All done.');

    expect((await ralph(root, ['run', '--once'], env)).code).toBe(0);
    const [dead] = readSessions(root);
    expect(dead).toMatchObject({
      outcome: { kind: 'runner_died' },
      result: { subtype: 'success', costUsd: 0.25 },
    });
    const budget = JSON.parse(fs.readFileSync(path.join(root, 'state', 'budget.json'), 'utf8')) as {
      totalCostUsd: number;
    };
    // Both sessions: the orphan's and the retry's, $0.25 each.
    expect(budget.totalCostUsd).toBeCloseTo(0.5);
    expect(readQueue(root).items[0]).toMatchObject({ status: 'done', attempts: 2 });
    expect(readQueue(root).items[0]?.costUsd).toBeCloseTo(0.5);
    const index = fs.readFileSync(path.join(root, 'docs', 'sessions', 'index.jsonl'), 'utf8');
    expect(JSON.parse(index.split('\n')[0]!)).toMatchObject({
      outcome: 'runner_died',
      costUsd: 0.25,
    });
  });
});

describe('the prompt of an attempt', () => {
  it('shows no "Previous attempt" for an attempt that was given back (the agent could not start)', async () => {
    const { root, env } = await guardedWorkspace({
      clis: { claude: { command: ['/nonexistent/claude'] } },
    });
    await ralph(root, ['add', 'First', '--id', 'first'], env);
    expect((await ralph(root, ['run', '--once'], env)).code).toBe(5);
    expect(readQueue(root).items[0]).toMatchObject({ status: 'pending', attempts: 0 });
    const config = path.join(root, 'ralph.config.json');
    const fixed = JSON.parse(fs.readFileSync(config, 'utf8')) as {
      clis: { claude: { command: string[] } };
    };
    fixed.clis.claude.command = [FAKE_CLAUDE];
    fs.writeFileSync(config, JSON.stringify(fixed));
    expect((await ralph(root, ['run', '--once'], env)).code).toBe(0);
    const ran = readSessions(root).at(-1)!;
    const prompt = fs.readFileSync(
      path.join(root, 'docs', 'sessions', `${String(ran.sessionId)}-prompt.md`),
      'utf8',
    );
    expect(prompt).toContain('attempt 1');
    expect(prompt).not.toContain('nonexistent');
  });
});

describe('what would fail only at night is refused before', () => {
  it('refuses at add and edit a base that is no commit and a gate whose program is missing', async () => {
    const { root, env } = await guardedWorkspace();
    const repo = await makeRepo();
    const base = await ralph(
      root,
      ['add', 'Based', '--work-dir', repo, '--git', '--base', 'no-such-ref'],
      env,
    );
    expect(base.code).toBe(2);
    expect(base.stderr).toMatch(/--base no-such-ref: not a commit of the repository/);
    const gate = await ralph(root, ['add', 'Gated', '--gate', 'no-such-program --check'], env);
    expect(gate.code).toBe(2);
    expect(gate.stderr).toMatch(/--gate: gate "no-such-program --check": no program/);
    expect(readQueue(root).items).toEqual([]);
    await ralph(root, ['add', 'Fine', '--id', 'fine', '--work-dir', repo, '--git'], env);
    const edit = await ralph(root, ['edit', 'fine', '--base', 'nope'], env);
    expect(edit.code).toBe(2);
    expect(edit.stderr).toMatch(/--base nope: not a commit/);
  });

  it('says so in doctor and --dry-run, and fails the item before its agent is paid for', async () => {
    const { root, env } = await guardedWorkspace();
    const script = path.join(root, 'check.sh');
    fs.writeFileSync(script, '#!/bin/sh\nexit 0\n', { mode: 0o755 });
    await ralph(root, ['add', 'Gated', '--id', 'g', '--gate', script], env);
    fs.rmSync(script);
    const doctor = await ralph(root, ['doctor'], env);
    expect(doctor.stdout).toMatch(
      new RegExp(`FAIL\\s+item\\s+g: --gate: gate ".*check.sh": .* is not an executable file`),
    );
    const dry = await ralph(root, ['run', '--dry-run'], env);
    expect(dry.stdout).toMatch(
      /# g: would be rejected: gate .*check.sh.* is not an executable file/,
    );
    expect((await ralph(root, ['run', '--drain'], env)).code).toBe(1);
    expect(readQueue(root).items[0]).toMatchObject({ id: 'g', status: 'failed', attempts: 0 });
    expect(ledger(root)).toEqual([]);
  });

  it('fails a gate that cannot start without retrying it', async () => {
    const dir = await tempDir();
    const log = path.join(dir, 'gates.log');
    const run = await runGates([{ name: 'gone', command: [path.join(dir, 'gone')], timeout: 5 }], {
      cwd: dir,
      env: { PATH: process.env.PATH ?? '' },
      logFile: log,
      killGraceMs: 100,
      maxOutputBytes: 1024,
    });
    expect(run).toMatchObject({ unstartable: true, stopped: false });
    expect(run.verdict).toMatch(/gate "gone" failed/);
  });
});

describe('ralph queue import', () => {
  it('refuses a file that is missing, empty or a directory, naming it, and imports nothing', async () => {
    const { root, env } = await guardedWorkspace();
    const dir = await tempDir();
    const empty = path.join(dir, 'empty.json');
    fs.writeFileSync(empty, '');
    for (const [file, said] of [
      [path.join(dir, 'nonexistent.json'), 'there is no such file'],
      [empty, 'is empty'],
      [dir, 'it is a directory'],
    ] as const) {
      const result = await ralph(root, ['queue', 'import', file], env);
      expect(result.code, file).toBe(2);
      expect(result.stderr).toContain(file);
      expect(result.stderr).toContain(said);
      expect(result.stdout).not.toMatch(/imported/);
    }
    expect(readQueue(root).items).toEqual([]);
  });
});

describe('a command whose reader went away', () => {
  it.each([['logs'], ['replay']])(
    'ralph %s ends quietly when its stdout is closed',
    async (command) => {
      const { root, env } = await guardedWorkspace();
      await ralph(root, ['add', 'Talk', '--id', 't'], env);
      await ralph(root, ['run', '--once'], env);
      const sessionId = String(readSessions(root)[0]?.sessionId);
      const child = spawn(process.execPath, [RALPH_BIN, '-C', root, command, sessionId], {
        env: { ...process.env, ...env },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      // As `| head -0` would: the reader is gone before the first line is written.
      child.stdout.destroy();
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
      expect(stderr).toBe('');
      expect(code).toBe(0);
    },
  );
});

describe('ralph init', () => {
  it('makes every directory it creates private, whatever the umask', async () => {
    const dir = await tempDir();
    const root = path.join(dir, 'a', 'b');
    const umask = process.umask(0o000);
    try {
      const output = captureOutput();
      expect(await main(['node', 'ralph', 'init', root], output)).toBe(0);
    } finally {
      process.umask(umask);
    }
    for (const made of [path.join(dir, 'a'), root, path.join(root, 'state')])
      expect((fs.statSync(made).mode & 0o777).toString(8), made).toBe('700');
  });

  it('refuses a path whose file system cannot hold it, at once and with the reason', async () => {
    const output = captureOutput();
    expect(await main(['node', 'ralph', 'init', '/proc/ralph-x/ws'], output)).toBe(2);
    expect(output.stderr.join('\n')).toMatch(
      /\/proc\/ralph-x cannot be made: its file system refuses/,
    );
  });
});

describe('an interrupted item stopped again', () => {
  it('keeps its conversation: the next start resumes it', async () => {
    const { root, env } = await guardedWorkspace();
    await ralph(
      root,
      ['add', 'Long job', '--id', 'long', '--body', '#behave: chatty every=200 onresume=hang'],
      env,
    );
    const first = startRunner(root, env);
    await waitUntil(root, agentTalking(root), 10_000, 'the agent to start talking');
    await ralph(root, ['pause', 'later']);
    await waitUntil(
      root,
      () => readQueue(root).items[0]?.status === 'interrupted',
      10_000,
      'the interruption',
    );
    first.child.kill('SIGINT');
    await first.exited;
    const conversation = readQueue(root).items[0]?.conversationId;
    expect(conversation).toBeDefined();
    await ralph(root, ['resume']);
    // The resumed session, stopped by SIGINT as a person stops a night.
    const second = startRunner(root, env);
    await waitUntil(root, () => calls(root).length === 2, 10_000, 'the resumed session');
    second.child.kill('SIGINT');
    expect(await second.exited).toBe(130);
    expect(readQueue(root).items[0]).toMatchObject({
      status: 'pending',
      conversationId: conversation,
    });
    const third = startRunner(root, env, '--once');
    await waitUntil(root, () => calls(root).length === 3, 10_000, 'the third session');
    third.child.kill('SIGINT');
    await third.exited;
    const argv = calls(root)[2] ?? [];
    expect(argv[argv.indexOf('--resume') + 1]).toBe(conversation);
  });
});

describe('a done item', () => {
  it('is retried or cancelled only with --force, and a cancelled one is no success', async () => {
    const { root, env } = await guardedWorkspace();
    await ralph(root, ['add', 'Done', '--id', 'd'], env);
    await ralph(root, ['run', '--once'], env);
    const retry = await ralph(root, ['retry', 'd'], env);
    expect(retry.code).toBe(2);
    expect(retry.stderr).toMatch(/"d" is done; retrying runs it again .*--force/);
    const cancel = await ralph(root, ['cancel', 'd'], env);
    expect(cancel.code).toBe(2);
    expect(readQueue(root).items[0]).toMatchObject({ status: 'done', lastOutcome: 'success' });
    expect((await ralph(root, ['cancel', 'd', '--force'], env)).code).toBe(0);
    expect(readQueue(root).items[0]).toMatchObject({
      status: 'cancelled',
      lastOutcome: 'cancelled',
    });
    expect((await ralph(root, ['retry', 'd'], env)).code).toBe(0);
    expect(readQueue(root).items[0]).toMatchObject({ status: 'pending', attempts: 0 });
  });
});

describe('each agent CLI under the default allowlist', () => {
  it.each(['claude', 'codex', 'gemini', 'opencode', 'pi'])(
    'takes an item for %s out of the box',
    async (cli) => {
      const { root, env } = await guardedWorkspace();
      const added = await ralph(root, ['add', 'Work', '--cli', cli], env);
      expect(added.stderr).toBe('');
      expect(added.code).toBe(0);
    },
  );

  it('still refuses a path rule pi cannot hold when the item asks for it', async () => {
    const { root, env } = await guardedWorkspace();
    const added = await ralph(
      root,
      ['add', 'Work', '--cli', 'pi', '--allowed-tools', 'Edit(./src/**)'],
      env,
    );
    expect(added.code).toBe(2);
    expect(added.stderr).toMatch(/pi cannot hold Edit to "\.\/src\/\*\*"/);
  });
});

describe('what a runner killed with SIGKILL left running', () => {
  it('is shown as left by a dead runner, and ralph cancel settles and cancels it', async () => {
    const { root, env } = await guardedWorkspace();
    await ralph(root, ['add', 'Hang', '--id', 'h', '--body', '#behave: hang'], env);
    const runner = startRunner(root, env, '--drain');
    await waitUntil(root, () => runningRecords(root)[0]?.status === 'running', 10_000, 'the agent');
    const agent = runningRecords(root)[0]!.pid;
    runner.child.kill('SIGKILL');
    await runner.exited;
    const status = await ralph(root, ['status'], env);
    expect(status.stdout).toContain('Runner:  not running');
    expect(status.stdout).toMatch(
      /Left running by a runner that died: h; the next ralph run settles it \(or ralph cancel h\)/,
    );
    expect(status.stdout).not.toMatch(/^Running:/m);
    const cancel = await ralph(root, ['cancel', 'h'], env);
    expect(cancel.code, cancel.stderr).toBe(0);
    expect(cancel.stderr).toMatch(/h was left running by a runner that died: settled/);
    expect(readQueue(root).items[0]).toMatchObject({ status: 'cancelled' });
    expect(readSessions(root)[0]).toMatchObject({ outcome: { kind: 'runner_died' } });
    expect(await isAlive(agent)).toBe(false);
    expect((await ralph(root, ['recover'], env)).stdout).toBe(
      'nothing was left running or half decided',
    );
  });
});

describe('ralph status with broken state files', () => {
  it('still shows the pause and where the copies set aside are, naming what is broken', async () => {
    const { root, env } = await guardedWorkspace();
    await ralph(root, ['pause', 'the', 'queue', 'broke']);
    fs.writeFileSync(path.join(root, 'state', 'queue.json'), '{"items": [');
    fs.writeFileSync(path.join(root, 'state', 'budget.json'), '{');
    fs.mkdirSync(path.join(root, 'state', 'quarantine'), { recursive: true });
    const copy = path.join(root, 'state', 'quarantine', 'queue.json.2026-11-24T01-00-00Z');
    fs.writeFileSync(copy, '{"items": [');
    const status = await ralph(root, ['status'], env);
    expect(status.code, status.stderr).toBe(4);
    expect(status.stdout).toMatch(/Paused: {2}the queue broke/);
    expect(status.stdout).toMatch(/Broken: {2}.*queue\.json: .*invalid JSON/);
    expect(status.stdout).toMatch(/Broken: {2}.*budget\.json: .*invalid JSON/);
    expect(status.stdout).toContain(`Set aside: ${copy}`);
  });
});

describe('a transcript shown from another shell', () => {
  it('masks the credential the agent had, though this shell holds another key', async () => {
    const { root, env } = await guardedWorkspace();
    const given = 'sk-ant-api03-given-to-the-agent-0123456789abcdef';
    const mine = 'sk-ant-api03-the-reviewers-own-key-9876543210';
    await ralph(root, ['add', 'Env', '--id', 'e', '--body', '#behave: print-env'], env);
    await ralph(root, ['run', '--once'], { ...env, ANTHROPIC_API_KEY: given });
    const [record] = readSessions(root);
    expect(record?.secrets).toMatchObject({ passed: ['ANTHROPIC_API_KEY'] });
    expect(JSON.stringify(record)).not.toContain(given);
    const raw = fs.readFileSync(
      path.join(root, 'docs', 'sessions', `${String(record?.sessionId)}.ndjson`),
      'utf8',
    );
    expect(raw).toContain(given); // the archive is the agent's bytes, as evidence
    const logs = await ralph(root, ['logs', 'e'], { ...env, ANTHROPIC_API_KEY: mine });
    expect(logs.stdout).toContain('ANTHROPIC_API_KEY=***');
    expect(logs.stdout).not.toContain(given);
    const json = await ralph(root, ['logs', 'e', '--json'], { ...env, ANTHROPIC_API_KEY: mine });
    expect(json.stdout).not.toContain(given);
  });
});

describe('messages a person reads', () => {
  it('are one line for one bad value, name what a gate is, and say a path does not exist', async () => {
    const { root, env } = await guardedWorkspace();
    const turns = await ralph(root, ['add', 'x', '--max-turns', '0'], env);
    expect(turns.stderr).toBe('ralph: the new item is invalid: --max-turns: must be more than 0');
    const queue = path.join(root, 'state', 'queue.json');
    fs.writeFileSync(queue, JSON.stringify({ items: [{ id: 'a', title: 'a', gates: [[], 'x'] }] }));
    const ls = await ralph(root, ['ls'], env);
    expect(ls.stderr).toMatch(/gates\[1\]: a gate is a command \(a non-empty array of strings\)/);
    const missing = await ralph('/nonexistent-ralph', ['status'], env);
    expect(missing.stderr).toBe(
      'ralph: /nonexistent-ralph does not exist; give the directory of a workspace (ralph init makes one)',
    );
    const output = captureOutput();
    expect(await main(['node', 'ralph', 'init', ''], output)).toBe(2);
    expect(output.stderr.join('\n')).toMatch(/init: give the directory/);
    const help = captureOutput();
    await main(['node', 'ralph', '--help'], help);
    expect(help.text()).toMatch(
      /-C, --root <dir> +the workspace \(default: the nearest at or above/,
    );
    expect(help.text()).not.toContain('(default: ".")');
    const status = await ralph(root, ['sessions', '--status', 'nope'], env);
    expect(status.stderr).toMatch(/outcomes: .*runner_died/);
  });

  it('count in words (1 session, 2 sessions) and say a reset once', async () => {
    const { root, env } = await guardedWorkspace();
    await ralph(root, ['add', 'One', '--id', 'one'], env);
    await ralph(root, ['run', '--once'], env);
    const status = await ralph(root, ['status'], env);
    expect(status.stdout).toMatch(/1 session since/);
    expect(status.stdout).toMatch(/all time \$0\.0100, 1 session$/m);
    const soon = Math.floor(START / 1000) + 600;
    await ralph(
      root,
      ['add', 'Limited', '--id', 'l', '--body', `#behave: rate-limited resetsAt=${soon}`],
      env,
    );
    const { code, stderr } = await run(root, env, { once: true });
    expect(code).toBe(7);
    expect(stderr.match(/resets at/g)).toHaveLength(1);
  });

  it('count a retried attempt of an item that ended done as retried, not failed', async () => {
    const { root, env } = await guardedWorkspace();
    await ralph(
      root,
      ['add', 'Twice', '--id', 't', '--body', '#behave: sequence steps=no-result,ok'],
      env,
    );
    expect((await run(root, env, { drain: true })).code).toBe(0);
    const report = JSON.parse((await ralph(root, ['report', '--json'], env)).stdout) as {
      byItem: {
        key: string;
        succeeded: number;
        retried: number;
        failed: number;
        failures: unknown[];
      }[];
    };
    expect(report.byItem[0]).toMatchObject({
      key: 't',
      succeeded: 1,
      retried: 1,
      failed: 0,
      failures: [],
    });
  });

  it('keep dollar sums exact to the nano-dollar', () => {
    expect(addUsd(0.01, 0.001756)).toBe(0.011756);
  });
});

describe('titles', () => {
  it('are refused past 200 characters or with characters that reorder text', async () => {
    const { root, env } = await guardedWorkspace();
    const long = await ralph(root, ['add', 'x'.repeat(201)], env);
    expect(long.code).toBe(2);
    expect(long.stderr).toMatch(/the title is 201 characters, at most 200/);
    const bidi = await ralph(root, ['add', 'Fix \u202Egnp.exe'], env);
    expect(bidi.code).toBe(2);
    expect(bidi.stderr).toMatch(/reorders text/);
    expect((await ralph(root, ['add', 'x'.repeat(200)], env)).code).toBe(0);
  });
});

describe('--workers on items that share a work dir', () => {
  it('warns that they run one at a time, and a waiting worker says what it waits for', async () => {
    const { root, env } = await guardedWorkspace();
    for (const id of ['a', 'b'])
      await ralph(root, ['add', id, '--id', id, '--body', '#behave: slow ms=1500'], env);
    const events: RunnerEvent[] = [];
    const output = captureOutput();
    const code = await runCommand(
      root,
      { drain: true, workers: '2' },
      output,
      { PATH: process.env.PATH, ...env },
      { listen: (event) => events.push(event) },
    );
    expect(code).toBe(0);
    expect(events.find((e) => e.event === 'workers_serial')).toMatchObject({
      workers: 2,
      message: expect.stringMatching(/run one at a time; git mode/) as unknown,
    });
    const idle = events.filter((e) => e.event === 'idle');
    expect(idle.length).toBeGreaterThan(0);
    for (const e of idle)
      expect(e.event === 'idle' && e.waitingFor).toMatch(/the running items to end/);
    // Not before the first session: the run's first lines are what it starts.
    const names = events.map((e) => e.event);
    expect(names.indexOf('session_started')).toBeLessThan(names.indexOf('idle'));
  });
});

describe('what pausing says', () => {
  it('tells a person that a --drain runner ends, and never says how to resume twice', async () => {
    const { root, env } = await guardedWorkspace();
    await ralph(root, ['add', 'Hang', '--id', 'h', '--body', '#behave: hang'], env);
    const runner = startRunner(root, env, '--drain');
    await waitUntil(root, () => runningRecords(root)[0]?.status === 'running', 10_000, 'the agent');
    const pause = await ralph(root, ['pause', 'fix the key, then ralph resume'], env);
    expect(pause.stdout).toMatch(
      /waits until "ralph resume" \(a --drain or --once run ends instead, exit 6\)/,
    );
    expect(await runner.exited).toBe(6);
    const status = await ralph(root, ['status'], env);
    expect(status.stdout).toMatch(/^Paused: {2}fix the key, then ralph resume$/m);
  });
});
