// The guards against the real Claude Code CLI (fake Anthropic API on 127.0.0.1): a stalled API,
// a Bash tool's process that escapes the CLI's process group, and a subscription usage limit.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { findSessionProcesses } from '../../src/lib/procfs.js';
import { SESSION_MARKER } from '../../src/agent/env.js';
import { logEvents } from '../support/guarded.js';
import { lastIsToolResult, usageLimitReply } from '../support/fake-anthropic.js';
import { closeFakeApiAfterEach, realClaudeWorkspace } from '../support/real-claude.js';
import { eventually, waitUntil } from '../support/wait.js';
import { ralph, readQueue, readSessions, runningRecords } from '../support/workspace.js';

closeFakeApiAfterEach();
const setup = (respond: Parameters<typeof realClaudeWorkspace>[0]) =>
  realClaudeWorkspace(respond, {
    run: { killGrace: '1s', maxConsecutiveFailures: 0, failureBackoffCap: 0, limitMargin: 0 },
  });

function sessionMarkerProcesses(sessionId: string): Promise<number[]> {
  return findSessionProcesses(undefined, { name: SESSION_MARKER, value: sessionId });
}

function cmdline(pid: number): string {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
  } catch {
    return '';
  }
}

describe('guards with the real claude CLI', () => {
  it('ends a session whose API stream stalls with the idle timeout', async () => {
    const { root, env } = await setup(() => ({ kind: 'stall' }));
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
    expect(await sessionMarkerProcesses(String(record?.sessionId))).toEqual([]);
  });

  it('leaves no `sleep 600` of a Bash tool alive after an interrupt', async () => {
    const { root, env } = await setup((request) =>
      lastIsToolResult(request)
        ? { kind: 'text', text: 'done' }
        : {
            kind: 'tool_use',
            name: 'Bash',
            input: { command: "sh -c 'sleep 600'", description: 'wait a long time' },
          },
    );
    await ralph(root, ['add', 'Sleep', '--id', 'sleeper', '--allowed-tools', 'Bash'], env);
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
        sleeper = (await sessionMarkerProcesses(sessionId)).find((pid) =>
          cmdline(pid).startsWith('sleep 600'),
        );
        return sleeper !== undefined;
      },
      30_000,
      'the Bash tool to start sleep 600',
    );
    expect((await ralph(root, ['pause', 'stop the sleeper'])).code).toBe(0);
    // --once ends with the night paused: exit 6.
    expect((await running).code).toBe(6);
    const [record] = readSessions(root);
    expect(record).toMatchObject({ status: 'interrupted', outcome: { kind: 'interrupted' } });
    expect(await sessionMarkerProcesses(sessionId)).toEqual([]);
    expect(cmdline(sleeper!)).not.toContain('sleep 600');
    expect(readQueue(root).items[0]).toMatchObject({
      status: 'interrupted',
      attempts: 0,
      conversationId: sessionId,
    });
  });

  it('waits for a subscription usage limit to reset instead of failing the item', async () => {
    let limited = false;
    const { root, env } = await setup(() => {
      if (!limited) {
        limited = true;
        return usageLimitReply(Math.floor(Date.now() / 1000) + 2);
      }
      return { kind: 'text', text: 'Back after the limit.' };
    });
    const { ANTHROPIC_API_KEY: _key, ...rest } = env;
    const subscription = { ...rest, CLAUDE_CODE_OAUTH_TOKEN: 'sk-ant-oat-test-dummy-token' };
    await ralph(root, ['add', 'Limited', '--id', 'lim'], subscription);
    const run = await ralph(root, ['run', '--drain'], subscription);
    expect(run.code, run.stderr).toBe(0);
    const records = readSessions(root);
    expect(records.map((r) => (r.outcome as { kind: string }).kind)).toEqual([
      'rate_limited',
      'success',
    ]);
    expect(logEvents(root).some((e) => e.event === 'limit_wait')).toBe(true);
    expect(readQueue(root).items[0]).toMatchObject({ status: 'done', attempts: 1 });
  });
});
