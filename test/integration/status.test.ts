import { spawn } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { StatusReport } from '../../src/workspace/status.js';
import { agentTalking, guardedWorkspace, logEvents } from '../support/guarded.js';
import { waitUntil } from '../support/wait.js';
import { RALPH_BIN, ralph } from '../support/workspace.js';

const status = async (root: string) =>
  JSON.parse((await ralph(root, ['status', '--json'])).stdout) as StatusReport;

describe('ralph status', () => {
  it('shows the running session, then a pause', async () => {
    const { root, env } = await guardedWorkspace();
    await ralph(
      root,
      ['add', 'Busy', '--id', 'busy', '--body', '#behave: chatty every=200 onresume=ok'],
      env,
    );
    await ralph(root, ['add', 'Next', '--id', 'next'], env);
    // Without --drain: a drained run would end at the pause.
    const running = ralph(root, ['run', '--max-iterations', '3'], env);
    await waitUntil(path.join(root, 'docs', 'sessions'), agentTalking(root), 10_000, 'the agent');
    const during = await status(root);
    expect(during).toMatchObject({
      runner: { pid: process.pid },
      queue: { running: 1, pending: 1 },
      running: [{ itemId: 'busy', itemTitle: 'Busy', status: 'running' }],
    });
    expect((await ralph(root, ['status'])).stdout).toMatch(
      /Running: busy "Busy" on claude, session [0-9a-f-]{36}\n\s+\d+(\.\d)?s elapsed/,
    );

    await ralph(root, ['pause', 'lunch']);
    await waitUntil(
      path.join(root, 'state'),
      () => logEvents(root).some((e) => e.event === 'paused'),
      10_000,
      'the pause',
    );
    expect(await status(root)).toMatchObject({
      paused: { reason: 'lunch' },
      queue: { interrupted: 1 },
    });
    expect((await ralph(root, ['status'])).stdout).toContain(
      'Paused:  lunch (ralph resume to go on)',
    );
    await ralph(root, ['resume']);
    expect((await running).code).toBe(0);
  });

  it('refreshes with --watch until stopped', async () => {
    const { root } = await guardedWorkspace();
    const watcher = spawn(process.execPath, [RALPH_BIN, '-C', root, 'status', '--watch'], {
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    let seen = '';
    watcher.stdout.on('data', (chunk: Buffer) => (seen += chunk.toString()));
    await waitUntil(root, () => seen.split('Workspace ').length > 2, 10_000, 'two frames');
    watcher.kill('SIGTERM');
    expect(seen).toMatch(/Runner: {2}not running\nQueue: {3}0 pending/);
  });

  it('shows a usage-limit wait and until when', async () => {
    const { root, env } = await guardedWorkspace({ run: { limitMargin: '3s' } });
    const resetsAt = Math.floor(Date.now() / 1000);
    await ralph(
      root,
      [
        'add',
        'Limited',
        '--id',
        'lim',
        '--body',
        `#behave: sequence steps=rate-limited,ok resetsAt=${resetsAt}`,
      ],
      env,
    );
    const running = ralph(root, ['run', '--drain'], env);
    await waitUntil(
      path.join(root, 'state'),
      () => logEvents(root).some((e) => e.event === 'limit_wait'),
      10_000,
      'the wait',
    );
    const report = await status(root);
    expect(report.waiting).toMatchObject({
      event: 'limit_wait',
      until: new Date(resetsAt * 1000 + 3000).toISOString(),
    });
    expect(report.waiting?.reason).toMatch(/usage limit reached/);
    expect((await ralph(root, ['status'])).stdout).toMatch(/Waiting: usage limit reached.*until/);
    expect((await running).code).toBe(0);
    expect((await status(root)).waiting).toBeUndefined();
  });
});
