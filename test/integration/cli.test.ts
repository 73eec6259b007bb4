import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { captureOutput } from '../support/output.js';
import { listFiles, makeWorkspace, ralph, readQueue, tempDir } from '../support/workspace.js';

describe('ralph init', () => {
  it('creates the workspace, 0700 directories and 0600 files, and never overwrites', async () => {
    const root = await tempDir();
    const first = captureOutput();
    expect(await main(['node', 'ralph', 'init', root], first)).toBe(0);
    expect(listFiles(root)).toEqual([
      'prompts/bootstrap.md',
      'prompts/instructions.md',
      'ralph.config.json',
      'state/.queue.json.sha1',
      'state/queue.json',
    ]);
    expect(fs.statSync(path.join(root, 'state')).mode & 0o777).toBe(0o700);
    expect(fs.statSync(path.join(root, 'docs', 'sessions')).mode & 0o777).toBe(0o700);
    expect(fs.statSync(path.join(root, 'state', 'queue.json')).mode & 0o777).toBe(0o600);
    expect(first.text()).toContain('created ralph.config.json');
    const config = JSON.parse(
      fs.readFileSync(path.join(root, 'ralph.config.json'), 'utf8'),
    ) as Record<string, unknown>;
    expect(config).toMatchObject({
      defaults: { permissionMode: 'dontAsk', maxTurns: 50 },
      clis: { claude: { command: ['claude'] } },
    });

    fs.writeFileSync(path.join(root, 'prompts', 'bootstrap.md'), 'mine {{ITEM_BODY}}');
    const second = captureOutput();
    expect(await main(['node', 'ralph', 'init', root], second)).toBe(0);
    expect(fs.readFileSync(path.join(root, 'prompts', 'bootstrap.md'), 'utf8')).toBe(
      'mine {{ITEM_BODY}}',
    );
    expect(second.text()).toContain('kept    prompts/bootstrap.md');
  });
});

describe('ralph add', () => {
  it('stores every per-item option with camelCase names and prints the id', async () => {
    const root = await makeWorkspace();
    // What the item names must exist: a persona, a work dir and its dependencies.
    fs.mkdirSync(path.join(root, 'sub'));
    fs.writeFileSync(path.join(root, 'agents', 'AGENT_coder.md'), 'Code well.\n');
    for (const id of ['a', 'b', 'c']) await ralph(root, ['add', id, '--id', id]);
    const added = await ralph(root, [
      'add',
      'Fix',
      'the',
      'login',
      '--body',
      'Make the login work.',
      '--priority',
      '3',
      '--max-attempts',
      '2',
      '--max-turns',
      '12',
      '--max-budget-usd',
      '1.5',
      '--timeout',
      '15m',
      '--idle-timeout',
      '90s',
      '--model',
      'claude-sonnet',
      '--work-dir',
      'sub',
      '--agent',
      'coder',
      '--tools',
      'Read,Grep',
      '--allowed-tools',
      'Bash(git *),Read',
      '--disallowed-tools',
      'Write',
      '--permission-mode',
      'acceptEdits',
      '--depends-on',
      'a,b',
      '--depends-on',
      'c',
      '--not-before',
      '2026-12-01T08:00:00Z',
      '--schedule',
      '0 3 * * *',
      '--var',
      'TICKET=ABC-1',
      '--var',
      'EMPTY=',
    ]);
    expect(added.code, added.stderr).toBe(0);
    expect(added.stdout).toMatch(/^fix-the-login-[0-9a-f]{4}$/);
    expect(readQueue(root).items[3]).toMatchObject({
      id: added.stdout,
      title: 'Fix the login',
      body: 'Make the login work.',
      priority: 3,
      status: 'pending',
      attempts: 0,
      maxAttempts: 2,
      maxTurns: 12,
      maxBudgetUsd: 1.5,
      timeout: 900,
      idleTimeout: 90,
      model: 'claude-sonnet',
      workDir: 'sub',
      agent: 'coder',
      tools: ['Read', 'Grep'],
      allowedTools: ['Bash(git *)', 'Read'],
      disallowedTools: ['Write'],
      permissionMode: 'acceptEdits',
      dependsOn: ['a', 'b', 'c'],
      notBefore: '2026-12-01T08:00:00.000Z',
      schedule: '0 3 * * *',
      vars: { TICKET: 'ABC-1', EMPTY: '' },
    });
  });

  it('reads the body from a file', async () => {
    const root = await makeWorkspace();
    const file = path.join(root, 'task.md');
    fs.writeFileSync(file, '# Task\nDo it.\n');
    await ralph(root, ['add', 'From file', '--id', 'f', '--file', file]);
    expect(readQueue(root).items[0]?.body).toBe('# Task\nDo it.\n');
  });

  it.each([
    [['--id', '../x'], /--id: an id is 1 to 100 ASCII letters/],
    [['--id', 'a/b'], /--id/],
    [['--max-turns', 'ten'], /--max-turns: expected a whole number, got "ten"/],
    [['--timeout', 'soon'], /--timeout: expected a duration/],
    [['--schedule', ''], /--schedule: a cron expression cannot be empty/],
    [['--var', 'NOEQUALS'], /--var: expected KEY=VALUE/],
    [['--var', 'ITEM_ID=x'], /--var/],
    [['--not-before', 'tomorrowish'], /--not-before: expected a time such as/],
    [['--permission-mode', 'bypassPermissions'], /needs "yolo": true/],
  ])('refuses %j with a clear message and leaves the queue alone', async (flags, message) => {
    const root = await makeWorkspace();
    const before = fs.readFileSync(path.join(root, 'state', 'queue.json'), 'utf8');
    const result = await ralph(root, ['add', 'Bad', ...flags]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(fs.readFileSync(path.join(root, 'state', 'queue.json'), 'utf8')).toBe(before);
  });

  it('refuses a duplicate id unless --replace', async () => {
    const root = await makeWorkspace();
    await ralph(root, ['add', 'One', '--id', 'dup']);
    const again = await ralph(root, ['add', 'Two', '--id', 'dup']);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('already queued');
    expect((await ralph(root, ['add', 'Two', '--id', 'dup', '--replace'])).code).toBe(0);
    expect(readQueue(root).items.map((i) => i.title)).toEqual(['Two']);
  });

  it('says how to start when the directory is not a workspace', async () => {
    const result = await ralph(await tempDir(), ['add', 'x']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('ralph init');
  });
});

describe('ralph queue', () => {
  it('lists items as a table and as JSON', async () => {
    const root = await makeWorkspace();
    await ralph(root, ['add', 'First', '--id', 'first']);
    await ralph(root, ['add', 'Second', '--id', 'second', '--depends-on', 'first']);
    const table = await ralph(root, ['ls']);
    expect(table.stdout).toMatch(/ID\s+STATUS/);
    expect(table.stdout).toMatch(/second\s+pending.*depends on first/);
    const json = JSON.parse((await ralph(root, ['queue', '--json'])).stdout) as { id: string }[];
    expect(json.map((i) => i.id)).toEqual(['first', 'second']);
  });
});

describe('configuration', () => {
  it('rejects an unknown key, naming the file and the key, and changes nothing', async () => {
    const root = await makeWorkspace({ defaults: { maxTurn: 5 } });
    const before = listFiles(root);
    const result = await ralph(root, ['run', '--drain']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(path.join(root, 'ralph.config.json'));
    expect(result.stderr).toContain('defaults: unknown key "maxTurn"');
    expect(listFiles(root)).toEqual(before);
  });

  it('rejects a wrong type, naming the field', async () => {
    const result = await ralph(await makeWorkspace({ defaults: { maxTurns: 'lots' } }), ['ls']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/defaults\.maxTurns: expected a number, got the text "lots"/);
  });

  it('refuses bypassPermissions without the yolo opt-in', async () => {
    const result = await ralph(
      await makeWorkspace({ defaults: { permissionMode: 'bypassPermissions' } }),
      ['ls'],
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      /defaults\.permissionMode: "bypassPermissions" skips every permission check/,
    );
  });
});
