// The end-to-end scenarios every agent CLI besides claude goes through, its real binary against
// a fake of its model API on 127.0.0.1: a text answer, a shell command allowed and one refused,
// what the CLI cannot honour, the turn and budget limits, an API error, a rate limit, a stall,
// an interrupt and the resumed session. One test file per CLI calls them.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { findSessionProcesses } from '../../src/lib/procfs.js';
import { SESSION_MARKER } from '../../src/agent/env.js';
import { inFirstSession, type CliHarness } from './agent-clis.js';
import { logEvents } from './guarded.js';
import { eventually, waitUntil } from './wait.js';
import { ralph, readQueue, readSessions, runningRecords, tempDir } from './workspace.js';

/** Quick limits, so that failures, waits and kills take seconds. */
export const RUN = {
  killGrace: '1s',
  maxConsecutiveFailures: 0,
  failureBackoffCap: '1s',
  retryBackoffCap: '1s',
  limitMargin: 0,
  rateLimitBackoff: '1s',
};

export function archived(root: string, sessionId: string, suffix: string): string {
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

const outcomes = (root: string) =>
  readSessions(root).map((r) => (r.outcome as { kind: string }).kind);

/** The shared scenarios, for one CLI. */
export function scenarios(cli: CliHarness): void {
  const setup = (respond: Parameters<CliHarness['setup']>[0]) =>
    cli.setup(respond, { run: RUN, ...(cli.prices ? { prices: cli.prices } : {}) });
  const ranTool = (request: Parameters<CliHarness['toolOutput']>[0]) =>
    cli.toolOutput(request) !== undefined;

  describe(`ralph with the real ${cli.name} CLI`, () => {
    cli.closeAfterEach();

    it('completes a text answer, with its tokens and cost, the whole prompt reaching the model', async () => {
      const { root, env, api } = await setup(() => ({
        kind: 'text',
        text: `Hello from ${cli.name}.`,
      }));
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
        cli: cli.name,
        status: 'completed',
        outcome: { kind: 'success' },
        result: { subtype: 'success' },
      });
      const result = record?.result as { costUsd: number; costEstimated?: boolean };
      expect(result.costUsd).toBeCloseTo(cli.replyCost.usd, 10);
      expect(result.costEstimated === true).toBe(cli.replyCost.estimated);
      expect(item?.costUsd).toBeCloseTo(cli.replyCost.usd, 10);
      // Every CLI's tokens, in ralph's names, in the record and in the index.
      const tokens = record?.tokens as { input: number; output: number } | undefined;
      expect(tokens?.input).toBeGreaterThan(0);
      expect(tokens?.output).toBeGreaterThan(0);
      const listed = await ralph(root, ['sessions', '--json'], env);
      expect(JSON.parse(listed.stdout)).toMatchObject([{ sessionId, tokens }]);
      const conversationId = String(record?.conversationId);
      if (cli.sessionId === 'ralph') expect(conversationId).toBe(sessionId);
      else expect(conversationId).toMatch(cli.sessionId);
      // The whole prompt reached the model; the CLI's own key reached it, and no archive.
      expect(cli.conversation(api.requests[0]!)).toContain('Greet the user.');
      expect(cli.auth(api.requests[0]!)).toBe(cli.authValue);
      const key = cli.authValue.replace(/^Bearer /, '');
      for (const suffix of ['.ndjson', '.json', '-summary.md'])
        expect(archived(root, sessionId, suffix)).not.toContain(key);
      expect(archived(root, sessionId, '-summary.md')).toContain(`Hello from ${cli.name}.`);
      expect(runningRecords(root)).toEqual([]);
    });

    it('runs an allowed shell command in the work dir, with the session marker and no other secret', async () => {
      const { root, env, api } = await setup((request) =>
        ranTool(request)
          ? { kind: 'text', text: 'Made the file.' }
          : { kind: 'shell', command: 'echo made-by-agent > made.txt; env' },
      );
      const work = await tempDir('ralph-work-');
      const secret = 'deploy-token-withheld-0123456789';
      await ralph(root, ['add', 'Make a file', '--id', 'shell', '--work-dir', work], env);
      const run = await ralph(root, ['run', '--drain'], { ...env, DEPLOY_TOKEN: secret });
      expect(run.code, run.stderr).toBe(0);
      expect(fs.readFileSync(path.join(work, 'made.txt'), 'utf8').trim()).toBe('made-by-agent');
      const [record] = readSessions(root);
      const sessionId = String(record?.sessionId);
      expect(record).toMatchObject({ status: 'completed', heartbeat: { toolCalls: 1 } });
      const output = cli.toolOutput(api.requests.at(-1)!) ?? '';
      expect(output).toContain(`${SESSION_MARKER}=${sessionId}`);
      expect(output).not.toContain(secret);
      const logs = await ralph(root, ['logs', 'shell'], env);
      expect(logs.stdout).toContain('echo made-by-agent > made.txt');
      expect(logs.stdout).toContain('Made the file.');
    });

    it('records a shell command its rules refuse as a refusal, not a success', async () => {
      // codex has no tool rules: its sandbox refuses a write outside the work dir.
      const forbidden = cli.name === 'codex' ? `/usr/ralph-forbidden-${process.pid}` : 'forbidden';
      const { root, env } = await setup((request) =>
        ranTool(request)
          ? { kind: 'text', text: 'I could not run it.' }
          : { kind: 'shell', command: `touch ${forbidden}` },
      );
      const work = await tempDir('ralph-work-');
      const rules = cli.name === 'codex' ? [] : ['--allowed-tools', 'Read'];
      await ralph(root, ['add', 'Try', '--id', 'denied', '--work-dir', work, ...rules], env);
      const run = await ralph(root, ['run', '--drain'], env);
      expect(run.code).toBe(0);
      expect(fs.existsSync(path.resolve(work, forbidden))).toBe(false);
      const [record] = readSessions(root);
      expect(record).toMatchObject({
        status: 'failed',
        outcome: { kind: 'permission_denied', retryable: false },
        result: { permissionDenials: [{ toolName: cli.shellTool }] },
      });
      // Its task is left undone: parked for a person, the refusal as its question.
      expect(readQueue(root).items[0]).toMatchObject({ status: 'needs_input' });
    });

    it(`refuses at \`ralph add\` what ${cli.name} cannot honour`, async () => {
      const { root, env } = await setup(() => ({ kind: 'text', text: 'unused' }));
      for (const [flags, message] of cli.refusedAtAdd) {
        const add = await ralph(root, ['add', 'Refused', ...flags], env);
        expect(add.code).toBe(2);
        expect(add.stderr).toContain(message);
      }
      expect(readQueue(root).items).toEqual([]);
    });

    it('stops a session past its turn limit (ralph counts the turns)', async () => {
      // A second a turn: ralph checks its count every second, before the CLI gives up itself.
      const { root, env } = await setup(() => ({ kind: 'shell', command: 'sleep 1' }));
      await ralph(
        root,
        ['add', 'Loop', '--id', 'turns', '--max-turns', '2', '--max-attempts', '1'],
        env,
      );
      expect((await ralph(root, ['run', '--drain'], env)).code).toBe(1);
      expect(readSessions(root)[0]).toMatchObject({
        status: 'failed',
        outcome: { kind: 'max_turns' },
      });
    });

    it.runIf(cli.holdsBudget)(
      'stops a session past its budget, from the cost it reports',
      async () => {
        const { root, env } = await setup(() => ({ kind: 'shell', command: 'sleep 1' }));
        // Each reply costs $0.00182: the third passes $0.005.
        await ralph(
          root,
          ['add', 'Spend', '--id', 'spend', '--max-budget-usd', '0.005', '--max-attempts', '1'],
          env,
        );
        expect((await ralph(root, ['run', '--drain'], env)).code).toBe(1);
        const [record] = readSessions(root);
        expect(record).toMatchObject({ status: 'failed', outcome: { kind: 'max_budget' } });
        expect((record?.heartbeat as { costUsd: number }).costUsd).toBeGreaterThan(0.005);
      },
    );

    it('retries an API error with backoff, then completes', async () => {
      const first = inFirstSession(cli);
      const { root, env } = await setup((request) =>
        first(request)
          ? { kind: 'error', status: 500, message: 'Internal server error', type: 'server_error' }
          : { kind: 'text', text: 'Recovered.' },
      );
      await ralph(root, ['add', 'Flaky API', '--id', 'flaky'], env);
      const run = await ralph(root, ['run', '--drain'], env);
      expect(run.code, run.stderr).toBe(0);
      expect(outcomes(root)).toEqual(['api_error', 'success']);
      expect(readSessions(root)[0]).toMatchObject({
        result: { isError: true, apiErrorStatus: 500 },
      });
      expect(logEvents(root).some((e) => e.event === 'failure_backoff')).toBe(true);
      expect(readQueue(root).items[0]).toMatchObject({ status: 'done', attempts: 2 });
    });

    it('waits out a rate limit and gives the attempt back', async () => {
      const first = inFirstSession(cli);
      const { root, env } = await setup((request) =>
        first(request)
          ? {
              kind: 'error',
              status: 429,
              message: 'Rate limit reached',
              type: 'rate_limit_exceeded',
            }
          : { kind: 'text', text: 'Back after the limit.' },
      );
      await ralph(root, ['add', 'Limited', '--id', 'lim'], env);
      const run = await ralph(root, ['run', '--drain'], env);
      expect(run.code, run.stderr).toBe(0);
      expect(outcomes(root)).toEqual(['rate_limited', 'success']);
      expect(logEvents(root).some((e) => e.event === 'limit_wait')).toBe(true);
      expect(readQueue(root).items[0]).toMatchObject({ status: 'done', attempts: 1 });
    });

    it('ends a stalled session at the idle timeout and reaps what its shell started', async () => {
      const { root, env } = await setup((request) =>
        ranTool(request)
          ? { kind: 'stall' }
          : { kind: 'shell', command: 'nohup sleep 1000 > /dev/null 2>&1 & echo started' },
      );
      await ralph(
        root,
        [
          'add',
          'Stalled',
          '--id',
          'stall',
          '--idle-timeout',
          cli.idleTimeout,
          '--max-attempts',
          '1',
        ],
        env,
      );
      expect((await ralph(root, ['run', '--drain'], env)).code).toBe(1);
      const [record] = readSessions(root);
      expect(record).toMatchObject({
        status: 'timeout',
        outcome: { kind: 'idle_timeout' },
        heartbeat: { toolCalls: 1 },
      });
      expect(await markerProcesses(String(record?.sessionId))).toEqual([]);
    });

    it('interrupts a session during a tool call, then resumes the same conversation', async () => {
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
      const conversationId = String(interrupted?.conversationId);

      expect((await ralph(root, ['resume'])).code).toBe(0);
      const resumed = await ralph(root, ['run', '--drain'], env);
      expect(resumed.code, resumed.stderr).toBe(0);
      const last = readSessions(root).at(-1);
      expect(last).toMatchObject({ status: 'completed', resumedFrom: conversationId });
      expect(last?.command).toEqual(expect.arrayContaining([cli.resumeFlag, conversationId]));
      // The resumed request carries the conversation so far: the first session's prompt (or the
      // resumed one's, where the CLI builds its system prompt anew), and the shell call it was
      // interrupted in where the CLI keeps it.
      const conversation = cli.conversation(api.requests.at(-1)!);
      expect(conversation).toContain(
        `Session: ${cli.renewsSystemPrompt ? String(last?.sessionId) : sessionId}`,
      );
      if (cli.keepsInterruptedCall) expect(conversation).toContain('sleep 600');
      expect(readQueue(root).items[0]).toMatchObject({ status: 'done', attempts: 1 });
    });
  });
}
