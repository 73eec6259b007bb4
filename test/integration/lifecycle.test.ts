// The runner's own life: signals, a second runner, a crash and the recovery after it.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { processStartTime } from '../../src/lib/procfs.js';
import {
  agentTalking,
  expectNoSurvivors,
  guardedWorkspace,
  ledger,
  logEvents,
} from '../support/guarded.js';
import { isAlive } from '../support/processes.js';
import { waitUntil } from '../support/wait.js';
import { startRunner } from '../support/runner.js';
import { ralph, readQueue, readSessions, runningRecords } from '../support/workspace.js';

const running = (root: string) => () => runningRecords(root)[0]?.status === 'running';
const currentPid = (root: string) => runningRecords(root)[0]!.pid;

describe('the runner and its signals', () => {
  it('T09 stops gracefully on SIGINT: the item goes back without spending an attempt, exit 130', async () => {
    const { root, env } = await guardedWorkspace();
    await ralph(root, ['add', 'Hang', '--id', 'h', '--body', '#behave: hang'], env);
    const runner = startRunner(root, env, '--drain');
    await waitUntil(path.join(root, 'state'), running(root), 10_000, 'the session');
    const agent = currentPid(root);
    runner.child.kill('SIGINT');
    expect(await runner.exited).toBe(130);
    expect(await isAlive(agent)).toBe(false);
    expect(readQueue(root).items[0]).toMatchObject({ status: 'pending', attempts: 0 });
    expect(readSessions(root)[0]).toMatchObject({ status: 'killed', outcome: { kind: 'stopped' } });
    expect(fs.existsSync(path.join(root, 'state', 'runner.lock.lock'))).toBe(false);
    await expectNoSurvivors(root);
  });

  it('T09 forces at once on a second SIGINT, even against an agent that ignores signals', async () => {
    const { root, env } = await guardedWorkspace({
      run: { killGrace: '60s', maxConsecutiveFailures: 0 },
    });
    await ralph(root, ['add', 'Deaf', '--id', 'd', '--body', '#behave: ignore-signals'], env);
    const runner = startRunner(root, env, '--drain');
    await waitUntil(path.join(root, 'docs', 'sessions'), agentTalking(root), 10_000, 'the agent');
    runner.child.kill('SIGINT');
    await waitUntil(
      path.join(root, 'state'),
      () => logEvents(root).some((e) => e.event === 'stopping'),
      10_000,
      'the first stop',
    );
    runner.child.kill('SIGINT');
    expect(await runner.exited).toBe(130);
    expect(readSessions(root)[0]).toMatchObject({ exit: { signal: 'SIGKILL' } });
    await expectNoSurvivors(root);
  });

  it('refuses a second runner on the same workspace', async () => {
    const { root, env } = await guardedWorkspace();
    const first = startRunner(root, env);
    await waitUntil(
      path.join(root, 'state'),
      () => logEvents(root).some((e) => e.event === 'run_started'),
      10_000,
      'the first runner',
    );
    const second = await ralph(root, ['run', '--drain'], env);
    expect(second.code).toBe(3);
    expect(second.stderr).toMatch(
      /another ralph runner \(pid \d+, since .*\) is running this workspace/,
    );
    first.child.kill('SIGTERM');
    expect(await first.exited).toBe(143);
  });
});

describe('crash recovery', () => {
  it('reaps the orphan of a runner killed with SIGKILL and requeues its item with the attempt counted', async () => {
    const { root, env } = await guardedWorkspace();
    const pidfile = path.join(root, 'escaped.pid');
    await ralph(
      root,
      [
        'add',
        'Crashy',
        '--id',
        'c',
        '--body',
        `#behave: sequence steps=setsid-child,ok then=hang pidfile=${pidfile}`,
      ],
      env,
    );
    const runner = startRunner(root, env, '--drain');
    const pidWritten = () => fs.existsSync(pidfile) && fs.readFileSync(pidfile, 'utf8') !== '';
    await waitUntil(
      root,
      () => pidWritten() && running(root)(),
      10_000,
      'the agent and its escaped child',
    );
    const agent = currentPid(root);
    const escaped = Number(fs.readFileSync(pidfile, 'utf8'));
    runner.child.kill('SIGKILL');
    await runner.exited;
    expect(await isAlive(agent)).toBe(true);
    expect(await isAlive(escaped)).toBe(true);
    expect(readQueue(root).items[0]).toMatchObject({ status: 'running', attempts: 1 });

    const again = await ralph(root, ['run', '--drain'], env);
    expect(again.code).toBe(0);
    expect(await isAlive(agent)).toBe(false);
    expect(await isAlive(escaped)).toBe(false);
    const [dead, fresh] = readSessions(root);
    expect(dead).toMatchObject({ status: 'killed', outcome: { kind: 'runner_died' } });
    expect(fresh).toMatchObject({ status: 'completed' });
    expect(readQueue(root).items[0]).toMatchObject({ status: 'done', attempts: 2 });
    expect(logEvents(root).map((e) => e.event)).toEqual(
      expect.arrayContaining(['orphan_session_recovered', 'items_requeued_after_crash']),
    );
    expect(ledger(root).filter((l) => l.startsWith('start'))).toHaveLength(2);
    await expectNoSurvivors(root);
  });

  it('T31 never signals a recorded pid that now belongs to another process', async () => {
    const { root, env } = await guardedWorkspace();
    const stranger = spawn('sleep', ['30'], { stdio: 'ignore' });
    try {
      const pid = stranger.pid!;
      expect(await processStartTime(pid)).toBeDefined();
      const sessionId = '0b8a0ab2-1111-4222-8333-444455556666';
      fs.mkdirSync(path.join(root, 'state', 'running'), { recursive: true });
      fs.writeFileSync(
        path.join(root, 'state', 'running', `${sessionId}.json`),
        JSON.stringify({
          sessionId,
          itemId: 'gone',
          itemTitle: 'gone',
          iteration: 1,
          attempt: 1,
          status: 'running',
          startedAt: new Date().toISOString(),
          runner: { pid: 999_999 },
          pid,
          processStartTime: '1',
          workDir: root,
          command: ['claude'],
          yolo: false,
          heartbeat: {
            events: 0,
            assistantMessages: 0,
            toolCalls: 0,
            stdoutBytes: 0,
            stderrBytes: 0,
          },
          files: { stdout: '', stderr: '', prompt: '', summary: '', record: '' },
        }),
      );
      expect((await ralph(root, ['run', '--drain'], env)).code).toBe(0);
      expect(await isAlive(pid)).toBe(true);
      expect(readSessions(root)[0]).toMatchObject({ sessionId, status: 'killed' });
      expect(runningRecords(root)).toEqual([]);
    } finally {
      stranger.kill('SIGKILL');
    }
  });
});
