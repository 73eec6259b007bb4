// End-to-end: ralph drives the real pi CLI (pinned devDependency) against a fake
// OpenAI-compatible chat API on 127.0.0.1 (a provider of its own in ~/.pi/agent/models.json).
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { findSessionProcesses } from '../../src/agent/procfs.js';
import { SESSION_MARKER } from '../../src/agent/env.js';
import {
  hasToolOutput,
  inFirstSession,
  inputItems,
  lastToolOutput,
} from '../support/fake-openai.js';
import { logEvents } from '../support/guarded.js';
import { OPENAI_TEST_KEY } from '../support/real-codex.js';
import { closeFakePiApiAfterEach, realPiWorkspace } from '../support/real-pi.js';
import { eventually, waitUntil } from '../support/wait.js';
import { ralph, readQueue, readSessions, runningRecords, tempDir } from '../support/workspace.js';

closeFakePiApiAfterEach();

/** Quick limits, so that failures, waits and kills take seconds. */
const RUN = {
  killGrace: '1s',
  maxConsecutiveFailures: 0,
  failureBackoffCap: '1s',
  retryBackoffCap: '1s',
  limitMargin: 0,
  rateLimitBackoff: '1s',
};

const setup = (respond: Parameters<typeof realPiWorkspace>[0]) =>
  realPiWorkspace(respond, { run: RUN });

const conversationOf = (request: Parameters<typeof inputItems>[0]) =>
  JSON.stringify(inputItems(request));

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

describe('ralph with the real pi CLI', () => {
  it('completes a text answer, with the cost pi reports, the prompt read from stdin', async () => {
    const { root, env, api } = await setup(() => ({ kind: 'text', text: 'Hello from pi.' }));
    const add = await ralph(
      root,
      ['add', 'Say hello', '--id', 'hello', '--body', 'Greet the user.'],
      env,
    );
    expect(add.code, add.stderr).toBe(0);
    const run = await ralph(root, ['run', '--drain'], env);
    expect(run.code, run.stderr).toBe(0);

    const [item] = readQueue(root).items;
    expect(item).toMatchObject({ id: 'hello', status: 'done', attempts: 1 });
    const [record] = readSessions(root);
    const sessionId = String(record?.sessionId);
    expect(record).toMatchObject({
      cli: 'pi',
      status: 'completed',
      outcome: { kind: 'success' },
      result: { subtype: 'success' },
    });
    expect(String(record?.claudeSessionId)).toMatch(/^[0-9a-f-]{36}$/);
    // pi's own figure (800 fresh, 200 cached, 100 out at its model's cost): no estimate.
    expect((record?.result as { costEstimated?: boolean }).costEstimated).toBeUndefined();
    const cost = (800 * 1 + 200 * 0.1 + 100 * 10) / 1e6;
    expect((record?.result as { costUsd: number }).costUsd).toBeCloseTo(cost, 10);
    expect(conversationOf(api.requests[0]!)).toContain('Greet the user.');
    expect(api.requests[0]?.headers.authorization).toBe(`Bearer ${OPENAI_TEST_KEY}`);
    for (const suffix of ['.ndjson', '.json', '-summary.md'])
      expect(archived(root, sessionId, suffix)).not.toContain(OPENAI_TEST_KEY);
    expect(archived(root, sessionId, '-summary.md')).toContain('Hello from pi.');
    expect(runningRecords(root)).toEqual([]);
  });

  it('runs an allowed shell command: only the allowed tools are given to pi', async () => {
    const { root, env, api } = await setup((request) =>
      hasToolOutput(request)
        ? { kind: 'text', text: 'Made the file.' }
        : { kind: 'shell', command: 'echo made-by-pi > made.txt; env' },
    );
    const work = await tempDir('ralph-work-');
    // Not a credential of pi's (its provider keys reach it): withheld.
    const secret = 'deploy-token-withheld-from-pi-0123456789';
    await ralph(root, ['add', 'Make a file', '--id', 'shell', '--work-dir', work], env);
    const run = await ralph(root, ['run', '--drain'], { ...env, DEPLOY_TOKEN: secret });
    expect(run.code, run.stderr).toBe(0);
    expect(fs.readFileSync(path.join(work, 'made.txt'), 'utf8').trim()).toBe('made-by-pi');
    const [record] = readSessions(root);
    const sessionId = String(record?.sessionId);
    expect(record).toMatchObject({ status: 'completed', heartbeat: { toolCalls: 1 } });
    const output = lastToolOutput(api.requests[1]!) ?? '';
    expect(output).toContain(`${SESSION_MARKER}=${sessionId}`);
    expect(output).not.toContain(secret);
    const logs = await ralph(root, ['logs', 'shell'], env);
    expect(logs.stdout).toContain('echo made-by-pi > made.txt');
    expect(logs.stdout).toContain('Made the file.');
  });

  it('records a shell command its rules do not allow as a refusal, not a success', async () => {
    const { root, env } = await setup((request) =>
      hasToolOutput(request)
        ? { kind: 'text', text: 'I could not run it.' }
        : { kind: 'shell', command: 'touch forbidden.txt' },
    );
    const work = await tempDir('ralph-work-');
    await ralph(
      root,
      ['add', 'Try', '--id', 'denied', '--work-dir', work, '--allowed-tools', 'Read'],
      env,
    );
    const run = await ralph(root, ['run', '--drain'], env);
    expect(run.code).toBe(1);
    expect(fs.existsSync(path.join(work, 'forbidden.txt'))).toBe(false);
    const [record] = readSessions(root);
    expect(record).toMatchObject({
      status: 'failed',
      outcome: { kind: 'permission_denied', retryable: false },
      result: { permissionDenials: [{ toolName: 'bash' }] },
    });
    expect(readQueue(root).items[0]).toMatchObject({ status: 'failed' });
  });

  it('refuses at `ralph add` what pi cannot honour: rules with paths or commands', async () => {
    const { root, env } = await setup(() => ({ kind: 'text', text: 'unused' }));
    const rule = await ralph(root, ['add', 'Rule', '--allowed-tools', 'Bash(git *)'], env);
    expect(rule.code).toBe(2);
    expect(rule.stderr).toContain('pi cannot hold Bash to "git *"');
    // The workspace default, Edit(./**), is a path pi cannot hold edits to either.
    const defaults = await ralph(
      root,
      ['add', 'Defaults', '--allowed-tools', 'Read,Edit(./**)'],
      env,
    );
    expect(defaults.code).toBe(2);
    expect(readQueue(root).items).toEqual([]);
  });

  it('stops a session past its budget, from the cost pi reports each message', async () => {
    const { root, env } = await setup(() => ({ kind: 'shell', command: 'sleep 1' }));
    // Each step costs $0.00182: the third passes $0.005.
    await ralph(
      root,
      ['add', 'Spend', '--id', 'spend', '--max-budget-usd', '0.005', '--max-attempts', '1'],
      env,
    );
    const run = await ralph(root, ['run', '--drain'], env);
    expect(run.code).toBe(1);
    const [record] = readSessions(root);
    expect(record).toMatchObject({ status: 'failed', outcome: { kind: 'max_budget' } });
    expect((record?.heartbeat as { costUsd: number }).costUsd).toBeGreaterThan(0.005);
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
    const first = inFirstSession();
    const { root, env } = await setup((request) =>
      first(request)
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
    const first = inFirstSession();
    const { root, env } = await setup((request) =>
      first(request)
        ? {
            kind: 'error',
            status: 429,
            message: 'Rate limit reached for requests',
            type: 'rate_limit_exceeded',
          }
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
      ['add', 'Stalled', '--id', 'stall', '--idle-timeout', '4s', '--max-attempts', '1'],
      env,
    );
    const run = await ralph(root, ['run', '--drain'], env);
    expect(run.code).toBe(1);
    const [record] = readSessions(root);
    expect(record).toMatchObject({
      status: 'timeout',
      outcome: { kind: 'idle_timeout' },
      heartbeat: { toolCalls: 1 },
    });
    expect(await markerProcesses(String(record?.sessionId))).toEqual([]);
  });

  it('interrupts a session during a tool call, then resumes the same pi session', async () => {
    const { root, env, api } = await setup((_request, index) =>
      index === 0
        ? { kind: 'shell', command: 'sleep 600' }
        : { kind: 'text', text: 'Resumed and finished.' },
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
    await eventually(
      async () =>
        (await markerProcesses(sessionId)).some((pid) => cmdline(pid).includes('sleep 600')),
      30_000,
      'the shell tool to start sleep 600',
    );
    expect((await ralph(root, ['pause', 'stop the sleeper'])).code).toBe(0);
    expect((await running).code).toBe(6);
    expect(await markerProcesses(sessionId)).toEqual([]);
    const interrupted = readQueue(root).items[0];
    expect(interrupted).toMatchObject({ status: 'interrupted', attempts: 0 });
    const piSession = String(interrupted?.claudeSessionId);
    expect(piSession).toMatch(/^[0-9a-f-]{36}$/);

    expect((await ralph(root, ['resume'])).code).toBe(0);
    const resumed = await ralph(root, ['run', '--drain'], env);
    expect(resumed.code, resumed.stderr).toBe(0);
    const last = readSessions(root).at(-1);
    expect(last).toMatchObject({ status: 'completed', resumedFrom: piSession });
    expect(last?.command).toEqual(expect.arrayContaining(['--session', piSession]));
    // The resumed request carries the conversation so far: the first prompt and the shell call.
    const conversation = conversationOf(api.requests.at(-1)!);
    expect(conversation).toContain(`Session: ${sessionId}`);
    expect(conversation).toContain('sleep 600');
    expect(readQueue(root).items[0]).toMatchObject({ status: 'done', attempts: 1 });
  });
});
