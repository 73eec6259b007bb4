// End-to-end: ralph drives the real codex CLI (pinned devDependency) against a fake OpenAI
// Responses API on 127.0.0.1, through a model provider of codex's own configuration.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { findSessionProcesses } from '../../src/agent/procfs.js';
import { SESSION_MARKER } from '../../src/agent/env.js';
import { hasToolOutput, inputItems, lastToolOutput } from '../support/fake-openai.js';
import { logEvents } from '../support/guarded.js';
import {
  OPENAI_TEST_KEY,
  closeFakeOpenAiAfterEach,
  realCodexWorkspace,
} from '../support/real-codex.js';
import { eventually, waitUntil } from '../support/wait.js';
import { ralph, readQueue, readSessions, runningRecords, tempDir } from '../support/workspace.js';

closeFakeOpenAiAfterEach();

/** Quick limits, so that failures, waits and kills take seconds. */
const RUN = {
  killGrace: '1s',
  maxConsecutiveFailures: 0,
  failureBackoffCap: '1s',
  retryBackoffCap: '1s',
  limitMargin: 0,
};
/** USD per million tokens, for the estimate. */
const PRICE = { input: 1.25, cachedInput: 0.125, output: 10 };

const setup = (respond: Parameters<typeof realCodexWorkspace>[0]) =>
  realCodexWorkspace(respond, {
    run: { ...RUN, rateLimitBackoff: '1s' },
    prices: { codex: PRICE },
  });

function archived(root: string, sessionId: string, suffix: string): string {
  return fs.readFileSync(path.join(root, 'docs', 'sessions', `${sessionId}${suffix}`), 'utf8');
}

const markerProcesses = (sessionId: string) =>
  findSessionProcesses(undefined, { name: SESSION_MARKER, value: sessionId });

function cmdline(pid: number): string {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
  } catch {
    return '';
  }
}

describe('ralph with the real codex CLI', () => {
  it('completes a text answer, with its tokens and an estimated cost, the prompt read from stdin', async () => {
    const { root, env, api } = await setup(() => ({ kind: 'text', text: 'Hello from codex.' }));
    const add = await ralph(
      root,
      ['add', 'Say hello', '--id', 'hello', '--body', 'Greet the user in one line.'],
      { ...env, ANTHROPIC_API_KEY: 'sk-ant-not-for-codex-0123456789' },
    );
    expect(add.code, add.stderr).toBe(0);
    const run = await ralph(root, ['run', '--drain'], env);
    expect(run.code, run.stderr).toBe(0);

    const [item] = readQueue(root).items;
    expect(item).toMatchObject({ id: 'hello', status: 'done', attempts: 1 });
    const [record] = readSessions(root);
    // 800 fresh and 200 cached input tokens, 100 output tokens, at the configured price.
    const cost = (800 * 1.25 + 200 * 0.125 + 100 * 10) / 1e6;
    expect(record).toMatchObject({
      cli: 'codex',
      status: 'completed',
      outcome: { kind: 'success' },
      result: { subtype: 'success', costEstimated: true },
    });
    expect((record?.result as { costUsd: number }).costUsd).toBeCloseTo(cost, 10);
    expect(item?.costUsd).toBeCloseTo(cost, 10);
    const threadId = String(record?.claudeSessionId);
    expect(threadId).toMatch(/^[0-9a-f-]{36}$/);
    expect(record?.command).toEqual(expect.arrayContaining(['exec', '--json', '-']));

    // The whole prompt went to the model as the user's message, through stdin.
    const sessionId = String(record?.sessionId);
    const prompt = archived(root, sessionId, '-prompt.md');
    expect(prompt).toContain('Greet the user in one line.');
    expect(JSON.stringify(inputItems(api.requests[0]!))).toContain('Greet the user in one line.');
    // codex's own key reached it; nothing of it is in the archive.
    expect(api.requests[0]?.headers.authorization).toBe(`Bearer ${OPENAI_TEST_KEY}`);
    for (const suffix of ['.ndjson', '.json', '-summary.md'])
      expect(archived(root, sessionId, suffix)).not.toContain(OPENAI_TEST_KEY);
    expect(archived(root, sessionId, '-summary.md')).toContain('Hello from codex.');
    expect(runningRecords(root)).toEqual([]);
  });

  it('runs a shell command in the work dir, with the session marker and without other secrets', async () => {
    const { root, env, api } = await setup((request) =>
      hasToolOutput(request)
        ? { kind: 'text', text: 'Made the file.' }
        : { kind: 'shell', command: 'echo made-by-codex > made.txt; env' },
    );
    const work = await tempDir('ralph-work-');
    const secret = 'sk-ant-withheld-from-codex-0123456789';
    await ralph(root, ['add', 'Make a file', '--id', 'shell', '--work-dir', work], env);
    const run = await ralph(root, ['run', '--drain'], { ...env, ANTHROPIC_API_KEY: secret });
    expect(run.code, run.stderr).toBe(0);
    expect(fs.readFileSync(path.join(work, 'made.txt'), 'utf8').trim()).toBe('made-by-codex');
    const [record] = readSessions(root);
    expect(record).toMatchObject({
      status: 'completed',
      workDir: work,
      heartbeat: { toolCalls: 1 },
    });
    const toolOutput = lastToolOutput(api.requests[1]!) ?? '';
    expect(toolOutput).toContain(`${SESSION_MARKER}=${String(record?.sessionId)}`);
    expect(toolOutput).not.toContain(secret);
    // The transcript shows the command and its output.
    const logs = await ralph(root, ['logs', 'shell'], env);
    expect(logs.stdout).toContain('echo made-by-codex > made.txt');
    expect(logs.stdout).toContain('Made the file.');
  });

  it("records a command its sandbox refused as a refusal, not a success (from codex's own log)", async () => {
    const forbidden = `/usr/ralph-forbidden-${process.pid}`;
    const { root, env } = await setup((request) =>
      hasToolOutput(request)
        ? { kind: 'text', text: 'I could not write it.' }
        : { kind: 'shell', command: `touch ${forbidden}` },
    );
    const work = await tempDir('ralph-work-');
    await ralph(root, ['add', 'Write outside', '--id', 'outside', '--work-dir', work], env);
    const run = await ralph(root, ['run', '--drain'], env);
    expect(run.code).toBe(1);
    expect(fs.existsSync(forbidden)).toBe(false);
    const [record] = readSessions(root);
    expect(record).toMatchObject({
      status: 'failed',
      outcome: { kind: 'permission_denied', retryable: false },
      result: { subtype: 'success', permissionDenials: [{ toolName: 'shell' }] },
    });
    expect(readQueue(root).items[0]).toMatchObject({ status: 'failed' });
  });

  it('keeps a read-only item from writing: "plan" is codex\'s read-only sandbox', async () => {
    const { root, env, api } = await setup((request) =>
      hasToolOutput(request)
        ? { kind: 'text', text: 'I could not write it.' }
        : { kind: 'shell', command: 'echo written > forbidden.txt' },
    );
    const work = await tempDir('ralph-work-');
    await ralph(
      root,
      ['add', 'Try to write', '--id', 'ro', '--work-dir', work, '--permission-mode', 'plan'],
      env,
    );
    const run = await ralph(root, ['run', '--drain'], env);
    expect(run.code).toBe(1);
    expect(fs.existsSync(path.join(work, 'forbidden.txt'))).toBe(false);
    expect(lastToolOutput(api.requests[1]!)).toMatch(/read-only file system/i);
    const [record] = readSessions(root);
    expect(record?.command).toEqual(expect.arrayContaining(['sandbox_mode="read-only"']));
    expect(record).toMatchObject({ outcome: { kind: 'permission_denied' } });
  });

  it('refuses at `ralph add` what codex cannot honour', async () => {
    const { root, env } = await setup(() => ({ kind: 'text', text: 'unused' }));
    const budget = await ralph(root, ['add', 'Budget', '--max-budget-usd', '1'], env);
    expect(budget.code).toBe(2);
    expect(budget.stderr).toContain('maxBudgetUsd cannot be honoured');
    const tools = await ralph(root, ['add', 'Tools', '--allowed-tools', 'Read'], env);
    expect(tools.code).toBe(2);
    expect(tools.stderr).toContain('codex has no per-tool rules');
    expect(readQueue(root).items).toEqual([]);
  });

  it('stops a session past its turn limit (ralph counts the turns)', async () => {
    // A second a turn: ralph checks its count every second, before the CLI gives up on its own.
    const { root, env } = await setup(() => ({ kind: 'shell', command: 'sleep 1' }));
    await ralph(
      root,
      ['add', 'Loop', '--id', 'turns', '--max-turns', '2', '--max-attempts', '1'],
      env,
    );
    const run = await ralph(root, ['run', '--drain'], env);
    expect(run.code).toBe(1);
    const [record] = readSessions(root);
    expect(record).toMatchObject({ status: 'failed', outcome: { kind: 'max_turns' } });
  });

  it('retries an API error with backoff, then completes', async () => {
    const { root, env } = await setup((_request, index) =>
      index === 0
        ? { kind: 'error', status: 500, message: 'Internal server error', type: 'server_error' }
        : { kind: 'text', text: 'Recovered.' },
    );
    await ralph(root, ['add', 'Flaky API', '--id', 'flaky'], env);
    const run = await ralph(root, ['run', '--drain'], env);
    expect(run.code, run.stderr).toBe(0);
    const records = readSessions(root);
    expect(records.map((r) => (r.outcome as { kind: string }).kind)).toEqual([
      'api_error',
      'success',
    ]);
    expect(records[0]).toMatchObject({ result: { isError: true, apiErrorStatus: 500 } });
    expect(logEvents(root).some((e) => e.event === 'failure_backoff')).toBe(true);
    expect(readQueue(root).items[0]).toMatchObject({ status: 'done', attempts: 2 });
  });

  it('waits out a rate limit and gives the attempt back', async () => {
    const { root, env } = await setup((_request, index) =>
      index === 0
        ? { kind: 'error', status: 429, message: 'Rate limit reached', type: 'rate_limit_exceeded' }
        : { kind: 'text', text: 'Back after the limit.' },
    );
    await ralph(root, ['add', 'Limited', '--id', 'lim'], env);
    const run = await ralph(root, ['run', '--drain'], env);
    expect(run.code, run.stderr).toBe(0);
    const records = readSessions(root);
    expect(records.map((r) => (r.outcome as { kind: string }).kind)).toEqual([
      'rate_limited',
      'success',
    ]);
    expect(logEvents(root).some((e) => e.event === 'limit_wait')).toBe(true);
    expect(readQueue(root).items[0]).toMatchObject({ status: 'done', attempts: 1 });
  });

  it('ends a stalled session at the idle timeout and reaps what its shell started', async () => {
    const { root, env } = await setup((request) =>
      hasToolOutput(request)
        ? { kind: 'stall' }
        : { kind: 'shell', command: 'nohup sleep 1000 > /dev/null 2>&1 & echo started' },
    );
    await ralph(
      root,
      ['add', 'Stalled', '--id', 'stall', '--idle-timeout', '3s', '--max-attempts', '1'],
      env,
    );
    const run = await ralph(root, ['run', '--drain'], env);
    expect(run.code).toBe(1);
    const [record] = readSessions(root);
    expect(record).toMatchObject({
      status: 'timeout',
      outcome: { kind: 'idle_timeout' },
      stopReason: 'idle_timeout',
    });
    expect(await markerProcesses(String(record?.sessionId))).toEqual([]);
  });

  it('interrupts a session during a tool call, then resumes the same codex thread', async () => {
    const { root, env, api } = await setup((request, index) =>
      index === 0
        ? { kind: 'shell', command: 'sleep 600' }
        : hasToolOutput(request) || index > 0
          ? { kind: 'text', text: 'Resumed and finished.' }
          : { kind: 'stall' },
    );
    await ralph(root, ['add', 'Sleep', '--id', 'sleeper'], env);
    const running = ralph(root, ['run', '--once'], env);
    await waitUntil(
      path.join(root, 'state'),
      () => runningRecords(root).length > 0,
      20_000,
      'the session',
    );
    const sessionId = runningRecords(root)[0]!.sessionId;
    let sleeper: number | undefined;
    await eventually(
      async () => {
        sleeper = (await markerProcesses(sessionId)).find((pid) =>
          cmdline(pid).startsWith('sleep 600'),
        );
        return sleeper !== undefined;
      },
      30_000,
      'the shell tool to start sleep 600',
    );
    expect((await ralph(root, ['pause', 'stop the sleeper'])).code).toBe(0);
    expect((await running).code).toBe(6);
    expect(await markerProcesses(sessionId)).toEqual([]);
    const [interrupted] = readSessions(root);
    expect(interrupted).toMatchObject({ status: 'interrupted', outcome: { kind: 'interrupted' } });
    const threadId = String(interrupted?.claudeSessionId);
    expect(readQueue(root).items[0]).toMatchObject({
      status: 'interrupted',
      attempts: 0,
      claudeSessionId: threadId,
    });

    expect((await ralph(root, ['resume'])).code).toBe(0);
    const resumed = await ralph(root, ['run', '--drain'], env);
    expect(resumed.code, resumed.stderr).toBe(0);
    const last = readSessions(root).at(-1);
    expect(last).toMatchObject({
      status: 'completed',
      resumedFrom: threadId,
      claudeSessionId: threadId,
    });
    expect(last?.command).toEqual(expect.arrayContaining(['resume', threadId]));
    // The resumed request carries the conversation so far: the interrupted shell call.
    const history = JSON.stringify(inputItems(api.requests.at(-1)!));
    expect(history).toContain('sleep 600');
    expect(readQueue(root).items[0]).toMatchObject({ status: 'done', attempts: 1 });
  });
});
