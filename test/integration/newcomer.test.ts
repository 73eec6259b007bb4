// What a newcomer's try of every command found: bad input refused where it is typed, faults of
// the workspace told apart from faults of an item, and messages a person can act on.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { runConsole } from '../../src/cli/run-output.js';
import { runCommand } from '../../src/cli/commands/run.js';
import { guardedWorkspace } from '../support/guarded.js';
import { captureOutput } from '../support/output.js';
import { RALPH_BIN, makeWorkspace, ralph, readQueue, tempDir } from '../support/workspace.js';

const exec = promisify(execFile);
const state = (root: string, name: string) => path.join(root, 'state', name);
const item = (root: string, id: string) => readQueue(root).items.find((i) => i.id === id);

describe('configuration refused at load, naming the key', () => {
  it('refuses an unknown time zone', async () => {
    const root = await makeWorkspace({ run: { timeZone: 'Mars/Base' } });
    const result = await ralph(root, ['status']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/run\.timeZone: not a time zone this machine knows/);
    const doctor = await ralph(root, ['doctor']);
    expect(doctor.stdout).toMatch(/FAIL {2}config .*run\.timeZone/);
  });

  it('refuses a timeout of 0 in the configuration and on the command line', async () => {
    const root = await makeWorkspace({ defaults: { timeout: 0 } });
    expect((await ralph(root, ['ls'])).stderr).toMatch(/defaults\.timeout: must be more than 0/);
    const ok = await makeWorkspace();
    const add = await ralph(ok, ['add', 'x', '--timeout', '0']);
    expect(add.code).toBe(2);
    expect(add.stderr).toMatch(/--timeout: must be more than 0/);
  });

  it('refuses a string claude.command: it must be an argv array', async () => {
    const root = await makeWorkspace({ claude: { command: 'claude --verbose' } });
    const result = await ralph(root, ['ls']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/claude\.command: expected an argv array/);
  });
});

describe('state/budget.json', () => {
  it('of the wrong shape or broken is corrupt state (exit 4), left as it is, and doctor says so', async () => {
    const { root, env } = await guardedWorkspace();
    for (const text of ['{"total": 12.5}\n', '{"totalCostUsd": 3, "iterations": \n']) {
      fs.writeFileSync(state(root, 'budget.json'), text);
      const run = await ralph(root, ['run', '--drain'], env);
      expect(run.code).toBe(4);
      expect(run.stderr).toMatch(/budget\.json/);
      expect(fs.readFileSync(state(root, 'budget.json'), 'utf8')).toBe(text);
      expect((await ralph(root, ['status'])).code).toBe(4);
      expect((await ralph(root, ['doctor'])).stdout).toMatch(/FAIL {2}budget .*budget\.json/);
    }
  });
});

describe('a fault of the workspace', () => {
  it('pauses the night with items given back, instead of failing every item', async () => {
    const { root, env } = await guardedWorkspace();
    fs.appendFileSync(path.join(root, 'prompts', 'bootstrap.md'), '\nTicket: {{TICKET}}\n');
    for (const id of ['a', 'b']) await ralph(root, ['add', id, '--id', id], env);
    const run = await ralph(root, ['run', '--drain'], env);
    expect(run.code).toBe(6);
    expect(fs.readFileSync(state(root, 'interrupt-request.txt'), 'utf8')).toMatch(/\{\{TICKET\}\}/);
    expect(readQueue(root).items.map((i) => [i.id, i.status, i.attempts])).toEqual([
      ['a', 'pending', 0],
      ['b', 'pending', 0],
    ]);
  });

  it('is retried and cancelled in bulk', async () => {
    const root = await makeWorkspace();
    for (const id of ['a', 'b', 'c']) await ralph(root, ['add', id, '--id', id]);
    expect((await ralph(root, ['cancel', 'a', 'b'])).stdout).toBe('a: cancelled\nb: cancelled');
    expect((await ralph(root, ['retry', '--status', 'cancelled'])).stdout).toBe(
      'a: pending\nb: pending',
    );
    expect((await ralph(root, ['cancel', '--all'])).code).toBe(0);
    expect(readQueue(root).items.every((i) => i.status === 'cancelled')).toBe(true);
    expect((await ralph(root, ['retry', '--all'])).code).toBe(0);
    expect(readQueue(root).items.every((i) => i.status === 'pending')).toBe(true);
    const bad = await ralph(root, ['retry', '--status', 'bogus']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--status: no status "bogus"/);
    // All or nothing: one unknown id changes nothing.
    expect((await ralph(root, ['cancel', 'a', 'nope'])).code).toBe(2);
    expect(item(root, 'a')?.status).toBe('pending');
  });
});

describe('items that could never run', () => {
  it('are refused at add and edit: a missing, self or circular dependency', async () => {
    const root = await makeWorkspace();
    await ralph(root, ['add', 'a', '--id', 'a']);
    const missing = await ralph(root, ['add', 'b', '--id', 'b', '--depends-on', 'nope']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/--depends-on: b depends on nope, which is not in the queue/);
    expect((await ralph(root, ['add', 's', '--id', 's', '--depends-on', 's'])).stderr).toMatch(
      /depends on itself/,
    );
    expect((await ralph(root, ['add', 'b', '--id', 'b', '--depends-on', 'a'])).code).toBe(0);
    const cycle = await ralph(root, ['edit', 'a', '--depends-on', 'b']);
    expect(cycle.code).toBe(2);
    expect(cycle.stderr).toMatch(/cycle: a → b → a/);
    expect(item(root, 'a')?.dependsOn).toEqual([]);
  });

  it('keeps a dependency from rm unless its dependents go too or --force is given', async () => {
    const root = await makeWorkspace();
    await ralph(root, ['add', 'a', '--id', 'a']);
    await ralph(root, ['add', 'b', '--id', 'b', '--depends-on', 'a']);
    const refused = await ralph(root, ['rm', 'a']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/a is a dependency of b/);
    expect((await ralph(root, ['rm', 'a', 'b'])).code).toBe(0);
    expect(readQueue(root).items).toEqual([]);
  });

  it('are reported by ls, --dry-run and at the end of --drain when what they wait for failed', async () => {
    const { root, env } = await guardedWorkspace();
    await ralph(
      root,
      ['add', 'a', '--id', 'a', '--body', '#behave: no-result', '--max-attempts', '1'],
      env,
    );
    await ralph(root, ['add', 'b', '--id', 'b', '--depends-on', 'a'], env);
    const run = await ralph(root, ['run', '--drain'], env);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      /1 item can never run as the queue stands:\n {2}b: it depends on a, which is failed/,
    );
    expect((await ralph(root, ['ls'])).stdout).toMatch(
      /b .* pending .* it depends on a, which is failed/,
    );
    expect((await ralph(root, ['run', '--dry-run'], env)).stdout).toMatch(
      /# b: can never run as the queue stands: it depends on a, which is failed/,
    );
  });

  it('ralph edit changes only the fields given, with the checks of add', async () => {
    const root = await makeWorkspace();
    await ralph(root, ['add', 'Old title', '--id', 'e', '--priority', '2', '--model', 'm1']);
    const edit = await ralph(root, [
      'edit',
      'e',
      '--title',
      'New title',
      '--max-turns',
      '7',
      '--model',
      '',
    ]);
    expect(edit.code).toBe(0);
    expect(item(root, 'e')).toMatchObject({ title: 'New title', maxTurns: 7, priority: 2 });
    expect(item(root, 'e')?.model).toBeUndefined();
    expect((await ralph(root, ['edit', 'e', '--max-turns', '0'])).stderr).toMatch(
      /--max-turns: must be more than 0/,
    );
    expect((await ralph(root, ['edit', 'nope', '--priority', '1'])).stderr).toMatch(
      /no item "nope"/,
    );
  });
});

describe('ralph add checks what it can at once', () => {
  it('refuses a task text too long for the prompt', async () => {
    const root = await makeWorkspace();
    const big = path.join(await tempDir(), 'big.txt');
    fs.writeFileSync(big, 'x'.repeat(4 * 1024 * 1024));
    const add = await ralph(root, ['add', 'Big', '--file', big]);
    expect(add.code).toBe(2);
    expect(add.stderr).toMatch(
      /the task text is 4,194,304 characters; a prompt holds at most 32,000/,
    );
    expect(readQueue(root).items).toEqual([]);
  });

  it('rejects at run an item whose prompt would pass the cap (a body file edited in)', async () => {
    const { root, env } = await guardedWorkspace();
    fs.writeFileSync(path.join(root, 'big.txt'), 'y'.repeat(100_000));
    await ralph(root, ['add', 'Big', '--id', 'big'], env);
    const queue = readQueue(root);
    (queue.items[0] as Record<string, unknown>).bodyFile = 'big.txt';
    fs.writeFileSync(state(root, 'queue.json'), JSON.stringify(queue));
    const run = await ralph(root, ['run', '--drain'], env);
    expect(run.code).toBe(1);
    expect(item(root, 'big')).toMatchObject({ status: 'failed', attempts: 0 });
    expect(String(item(root, 'big')?.lastError)).toMatch(/over the cap of 64000/);
  });

  it('refuses a missing persona, a missing work dir and a title of several lines', async () => {
    const root = await makeWorkspace();
    expect((await ralph(root, ['add', 'x', '--agent', 'ghost'])).stderr).toMatch(
      /--agent ghost: there is no persona file .*AGENT_ghost\.md/,
    );
    expect((await ralph(root, ['add', 'x', '--work-dir', 'nowhere'])).stderr).toMatch(
      /--work-dir nowhere: .* is not a directory/,
    );
    expect((await ralph(root, ['add', 'two\nlines'])).stderr).toMatch(/the title must be one line/);
    expect(readQueue(root).items).toEqual([]);
  });

  it('starts a scheduled item at its next time, not at once', async () => {
    const root = await makeWorkspace();
    await ralph(root, ['add', 'Nightly', '--id', 'n', '--schedule', '0 3 * * *']);
    const notBefore = new Date(String(item(root, 'n')?.notBefore));
    expect(notBefore.getTime()).toBeGreaterThan(Date.now());
    expect([notBefore.getHours(), notBefore.getMinutes()]).toEqual([3, 0]);
    expect((await ralph(root, ['run', '--dry-run'])).stdout).toContain('# nothing is runnable now');
  });
});

describe('personas', () => {
  it('refuses a frontmatter that is never closed', async () => {
    const root = await makeWorkspace();
    fs.writeFileSync(
      path.join(root, 'agents', 'AGENT_half.md'),
      '---\ntools: Read\n\nDo things.\n',
    );
    const agents = await ralph(root, ['agents']);
    expect(agents.code).toBe(2);
    expect(agents.stdout + agents.stderr).toMatch(
      /AGENT_half\.md: the frontmatter .* is never closed/,
    );
  });
});

describe('messages a person can act on', () => {
  it('one bad flag: one line and a pointer to the help, not the whole help', async () => {
    const root = await makeWorkspace();
    const result = await ralph(root, ['add', 'x', '--bogus']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/unknown option '--bogus'/);
    expect(result.stderr).toMatch(/ralph help <command>/);
    expect(result.stderr).not.toMatch(/Options:/);
  });

  it('names flags, not schema paths or zod wording', async () => {
    const root = await makeWorkspace();
    const turns = await ralph(root, ['add', 'x', '--max-turns', '0']);
    expect(turns.stderr).toMatch(/--max-turns: must be more than 0/);
    expect(turns.stderr).not.toMatch(/Too small|expected number to be/);
    const title = await ralph(root, ['add', ' ']);
    expect(title.stderr).toMatch(/the title: a title is required/);
    expect(title.stderr).not.toMatch(/--title/);
    const file = await ralph(root, ['add', 'x', '--file', 'missing.txt']);
    expect(file.stderr).toMatch(
      /--file missing\.txt: cannot be read: it does not exist .*\(ENOENT\)/,
    );
    expect(file.stderr).not.toMatch(/Error:|no such file or directory/);
  });

  it('logs of an item without sessions says so; sessions refuses an unknown status', async () => {
    const root = await makeWorkspace();
    await ralph(root, ['add', 'x', '--id', 'quiet']);
    const logs = await ralph(root, ['logs', 'quiet']);
    expect(logs.code).toBe(2);
    expect(logs.stderr).toMatch(/item "quiet" has no session yet \(it is pending\)/);
    const sessions = await ralph(root, ['sessions', '--status', 'bogus']);
    expect(sessions.code).toBe(2);
    expect(sessions.stderr).toMatch(/--status: no status or outcome "bogus"/);
  });

  it('doctor shows control bytes as escapes', async () => {
    const root = await makeWorkspace();
    fs.writeFileSync(state(root, 'interrupt-request.txt'), 'why\x1b[2J\x07\n');
    const doctor = await ralph(root, ['doctor']);
    expect(doctor.stdout).toContain('paused: why\\x1b[2J\\x07');
    expect(doctor.stdout.includes('\x1b') || doctor.stdout.includes('\x07')).toBe(false);
  });

  it('init in another directory says to cd there; commands find the workspace from a subdirectory', async () => {
    const parent = await tempDir();
    fs.mkdirSync(path.join(parent, 'app'));
    const { stdout } = await exec(process.execPath, [RALPH_BIN, 'init', 'ws', '--project', 'app'], {
      cwd: parent,
    });
    expect(stdout).toContain('Next: cd ws && ralph add');
    const sub = path.join(parent, 'ws', 'docs', 'sessions');
    await exec(process.execPath, [RALPH_BIN, 'add', 'From below', '--id', 'below'], { cwd: sub });
    expect(readQueue(path.join(parent, 'ws')).items.map((i) => i.id)).toEqual(['below']);
  });

  it('replay --exec spends money: it asks first, and without a terminal needs --yes', async () => {
    const { root, env } = await guardedWorkspace();
    await ralph(root, ['add', 'x', '--id', 'x'], env);
    await ralph(root, ['run', '--drain'], env);
    const refused = await ralph(root, ['replay', 'x', '--exec'], env);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/spends up to \$5: add --yes to confirm/);
    expect((await ralph(root, ['replay', 'x', '--exec', '--yes'], env)).code).toBe(0);
  });
});

describe('the live status line', () => {
  it("counts the night's items, not its sessions: a retry is the same item", async () => {
    const { root, env } = await guardedWorkspace({ run: { retryBackoffCap: 0 } });
    await ralph(root, ['add', 'a', '--id', 'a', '--body', '#behave: fail-once'], env);
    for (const id of ['b', 'c', 'd', 'e']) await ralph(root, ['add', id, '--id', id], env);
    const output = captureOutput(true);
    const code = await runCommand(root, { drain: true }, output, {
      PATH: process.env.PATH,
      ...env,
    });
    expect(code).toBe(0);
    const shown = new Set(output.stdout.join('').match(/▶ item \d+ of \d+: \w/g));
    // a's retry is item 1 again; every line says a five-item night.
    expect([...shown].sort()).toEqual(
      ['1 of 5: a', '2 of 5: b', '3 of 5: c', '4 of 5: d', '5 of 5: e'].map((s) => `▶ item ${s}`),
    );
  });

  it('says which item of how many, the cost so far, and keeps its width when none is known', () => {
    const output = captureOutput(true);
    const display = runConsole(output, () => 0);
    const startedAt = new Date().toISOString();
    const progress = {
      time: startedAt,
      level: 'info' as const,
      event: 'session_progress' as const,
      item: 'a-rather-long-item-id',
      itemTitle: 't',
      session: 's',
      startedAt,
      queued: 2,
      toolCalls: 0,
    };
    display.show(progress);
    display.show({
      ...progress,
      toolCalls: 3,
      lastTool: 'Bash',
      costUsd: 0.25,
      lastActivityAt: startedAt,
    });
    display.close();
    const line = output.stdout.filter((l) => l.includes('▶')).at(-1) ?? '';
    expect(line).toMatch(
      /▶ item 1 of 3: a-rather-long-item-id · .* · last: Bash \(3 tool calls\) · \$0\.2500 \(run \$0\.25\)/,
    );
  });

  it('shows every running session with --workers, and the gate one is checked by', () => {
    const output = captureOutput(true);
    const display = runConsole(output, () => 300);
    const startedAt = new Date().toISOString();
    const progress = (item: string, session: string, lastTool?: string) => ({
      time: startedAt,
      level: 'info' as const,
      event: 'session_progress' as const,
      item,
      itemTitle: 't',
      session,
      startedAt,
      queued: 5,
      toolCalls: lastTool === undefined ? 0 : 1,
      lastTool,
      lastActivityAt: startedAt,
      costUsd: 0.1,
    });
    display.show(progress('a', 's1', 'Bash'));
    display.show(progress('b', 's2', 'Edit'));
    display.show(progress('c', 's3'));
    display.show({
      time: startedAt,
      level: 'info',
      event: 'gate_started',
      item: 'a',
      session: 's1',
      gate: 'npm test',
    });
    const line = output.stdout.filter((l) => l.includes('▶')).at(-1) ?? '';
    expect(line).toMatch(
      /▶ 3 running \(3 of 8 started\) · a .* gate: npm test · b .* last: Edit \(1 tool call\) · c .* no tool call yet · \$0\.3000/,
    );
    display.show({
      time: startedAt,
      level: 'warn',
      event: 'gate_ended',
      item: 'a',
      session: 's1',
      gate: 'npm test',
      passed: false,
      exitCode: 1,
      timedOut: false,
      durationMs: 10,
    });
    display.close();
    expect(output.stderr.join('\n')).toContain('gate ended: a: npm test FAILED (exit 1)');
  });

  it('says where the dashboard is while a server runs', () => {
    const output = captureOutput(true);
    const display = runConsole(
      output,
      () => 200,
      () => 'http://127.0.0.1:7420/',
    );
    const startedAt = new Date().toISOString();
    display.show({
      time: startedAt,
      level: 'info',
      event: 'session_progress',
      item: 'x',
      itemTitle: 't',
      session: 's',
      startedAt,
      queued: 0,
      toolCalls: 0,
    });
    display.close();
    expect(output.stdout.filter((l) => l.includes('▶')).at(-1)).toMatch(
      /· http:\/\/127\.0\.0\.1:7420\/$/,
    );
  });
});
