// End-to-end: ralph drives the real Claude Code CLI (pinned devDependency) against a fake
// Anthropic API on 127.0.0.1. These prove the argv, the environment, the stdout-to-file archive
// and the outcome classification against the real binary's behaviour.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { lastIsToolResult, requestText, systemText } from '../support/fake-anthropic.js';
import { closeFakeApiAfterEach, realClaudeWorkspace } from '../support/real-claude.js';
import { ralph, readQueue, readSessions, runningRecords, tempDir } from '../support/workspace.js';

closeFakeApiAfterEach();
const setup = (respond: Parameters<typeof realClaudeWorkspace>[0]) => realClaudeWorkspace(respond);

function sessionFile(root: string, id: string, suffix: string): string {
  return path.join(root, 'docs', 'sessions', `${id}${suffix}`);
}

function ndjsonLines(root: string, id: string): Record<string, unknown>[] {
  return fs
    .readFileSync(sessionFile(root, id, '.ndjson'), 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe('ralph with the real claude CLI', () => {
  it('archives a plain text answer as a completed session', async () => {
    const { root, env, api } = await setup(() => ({
      kind: 'text',
      text: 'Hello from the fake API.',
    }));
    expect(
      (await ralph(root, ['add', 'Say hello', '--id', 'hello', '--body', 'Greet the user.'], env))
        .code,
    ).toBe(0);
    const run = await ralph(root, ['run', '--drain'], env);
    expect(run.code, run.stderr).toBe(0);

    const [item] = readQueue(root).items;
    expect(item).toMatchObject({ id: 'hello', status: 'done', attempts: 1 });
    const [record] = readSessions(root);
    expect(record).toMatchObject({
      status: 'completed',
      outcome: { kind: 'success' },
      itemId: 'hello',
    });
    const id = String(record?.sessionId);
    // The --session-id we passed is the id the CLI reports in system/init.
    expect(record?.conversationId).toBe(id);
    const lines = ndjsonLines(root, id);
    expect(lines[0]).toMatchObject({ type: 'system', subtype: 'init', session_id: id });
    const result = lines.find((l) => l.type === 'result');
    expect(result).toMatchObject({
      subtype: 'success',
      is_error: false,
      result: 'Hello from the fake API.',
    });
    const cost = (record?.result as { costUsd: number }).costUsd;
    expect(cost).toBeGreaterThan(0);
    expect(cost).toBe(result?.total_cost_usd);
    expect(item?.costUsd).toBe(cost);
    expect((record?.tokens as { input: number }).input).toBeGreaterThan(0);
    const budget = JSON.parse(fs.readFileSync(path.join(root, 'state', 'budget.json'), 'utf8')) as {
      totalCostUsd: number;
    };
    expect(budget.totalCostUsd).toBe(cost);

    // The prompt reached the API with the rendered templates in it: its part without the item's
    // appended to the system prompt (the same bytes for every item), the assignment in the first
    // message.
    const prompt = fs.readFileSync(sessionFile(root, id, '-prompt.md'), 'utf8');
    expect(prompt).toContain(`# Work session ${id}`);
    expect(prompt).toContain('Greet the user.');
    expect(prompt).not.toMatch(/\{\{[A-Z_]+\}\}/);
    const system = fs.readFileSync(sessionFile(root, id, '-system.md'), 'utf8');
    expect(system).toContain('# Instructions');
    expect(system).not.toContain(id);
    expect(prompt.startsWith(system.trimEnd())).toBe(true);
    const messageRequest = api.requests.find((r) => r.method === 'POST');
    expect(systemText(messageRequest!)).toContain(system.trim());
    expect(requestText(messageRequest!)).toContain(
      prompt.slice(prompt.indexOf('# Assignment')).trim(),
    );
    for (const suffix of ['.ndjson', '.err', '.json', '-summary.md', '-prompt.md']) {
      expect(fs.existsSync(sessionFile(root, id, suffix)), suffix).toBe(true);
    }
    expect(fs.readFileSync(sessionFile(root, id, '-summary.md'), 'utf8')).toContain(
      'Hello from the fake API.',
    );
    expect(runningRecords(root)).toEqual([]);
  });

  it('lets the model run an allowed Bash command in the work dir', async () => {
    const { root, env } = await setup((request) =>
      lastIsToolResult(request)
        ? { kind: 'text', text: 'Created the file.' }
        : {
            kind: 'tool_use',
            name: 'Bash',
            input: { command: 'echo made-by-agent > made.txt', description: 'make a file' },
          },
    );
    const work = await tempDir('ralph-work-');
    await ralph(
      root,
      [
        'add',
        'Make a file',
        '--id',
        'bash',
        '--work-dir',
        work,
        '--allowed-tools',
        'Bash,Read',
        '--max-attempts',
        '1',
      ],
      env,
    );
    const run = await ralph(root, ['run', '--drain'], env);
    expect(run.code, run.stderr).toBe(0);
    expect(fs.readFileSync(path.join(work, 'made.txt'), 'utf8').trim()).toBe('made-by-agent');
    const [record] = readSessions(root);
    expect(record).toMatchObject({
      status: 'completed',
      workDir: work,
      heartbeat: { toolCalls: 1 },
    });
    expect(readQueue(root).items[0]).toMatchObject({ status: 'done' });
  });

  it('records a tool refused by the permission mode as a permission denial, not a success', async () => {
    const { root, env } = await setup((request) =>
      lastIsToolResult(request)
        ? { kind: 'text', text: 'I could not run it.' }
        : {
            kind: 'tool_use',
            name: 'Bash',
            input: { command: 'touch forbidden.txt', description: 'try' },
          },
    );
    const work = await tempDir('ralph-work-');
    await ralph(
      root,
      ['add', 'Try Bash', '--id', 'denied', '--work-dir', work, '--allowed-tools', 'Read'],
      env,
    );
    const run = await ralph(root, ['run', '--drain'], env);
    expect(run.code).toBe(0);
    expect(fs.existsSync(path.join(work, 'forbidden.txt'))).toBe(false);
    const [record] = readSessions(root);
    expect(record).toMatchObject({
      status: 'failed',
      outcome: { kind: 'permission_denied', retryable: false },
      exit: { code: 0 },
      result: { subtype: 'success', isError: false, permissionDenials: [{ toolName: 'Bash' }] },
    });
    // The task is left undone: parked for a person, who allows the tool or says how to go on.
    const [parked] = readQueue(root).items;
    expect(parked?.status).toBe('needs_input');
    expect(String(parked?.question)).toContain('tools refused by the permission mode: Bash');
  });

  it('classifies the turn limit as max_turns', async () => {
    const { root, env } = await setup(() => ({
      kind: 'tool_use',
      name: 'Bash',
      input: { command: 'true', description: 'loop' },
    }));
    await ralph(
      root,
      ['add', 'Loop forever', '--id', 'turns', '--max-turns', '1', '--max-attempts', '1'],
      env,
    );
    const run = await ralph(root, ['run', '--drain'], env);
    expect(run.code).toBe(1);
    const [record] = readSessions(root);
    expect(record).toMatchObject({
      status: 'failed',
      outcome: { kind: 'max_turns' },
      result: { subtype: 'error_max_turns' },
    });
    expect(readQueue(root).items[0]).toMatchObject({
      status: 'failed',
      lastOutcome: 'max_turns',
      attempts: 1,
    });
  });

  it('classifies an API error reported with subtype success as an api_error', async () => {
    const { root, env } = await setup(() => ({
      kind: 'error',
      status: 500,
      type: 'api_error',
      message: 'Internal server error',
    }));
    await ralph(root, ['add', 'Meet an API error', '--id', 'apierr', '--max-attempts', '1'], env);
    const run = await ralph(root, ['run', '--drain'], env);
    expect(run.code).toBe(1);
    const [record] = readSessions(root);
    expect(record).toMatchObject({
      status: 'failed',
      outcome: { kind: 'api_error' },
      result: { subtype: 'success', isError: true, apiErrorStatus: 500 },
      exit: { code: 1 },
    });
    expect(readQueue(root).items[0]).toMatchObject({ status: 'failed', lastOutcome: 'api_error' });
  });

  it('archives a 10 MB text delta whole and still parses the result', async () => {
    const big = 'y'.repeat(10 * 1024 * 1024);
    const { root, env } = await setup(() => ({ kind: 'text', text: big }));
    await ralph(root, ['add', 'Write a lot', '--id', 'huge'], env);
    const run = await ralph(root, ['run', '--drain'], env);
    expect(run.code, run.stderr).toBe(0);
    const [record] = readSessions(root);
    expect(record).toMatchObject({ status: 'completed', result: { subtype: 'success' } });
    const lines = ndjsonLines(root, String(record?.sessionId));
    const result = lines.find((l) => l.type === 'result');
    expect(result?.result).toBe(big);
    const assistant = lines.find((l) => l.type === 'assistant') as {
      message: { content: { text: string }[] };
    };
    expect(assistant.message.content[0]?.text).toBe(big);
    expect((record?.streamIssues as Record<string, number>).oversize).toBeGreaterThanOrEqual(2);
  });
});
