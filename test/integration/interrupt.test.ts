import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  agentTalking,
  calls,
  expectNoSurvivors,
  guardedWorkspace,
  ledger,
  logEvents,
} from '../support/guarded.js';
import { waitUntil } from '../support/wait.js';
import { RALPH_BIN, ralph, readQueue, readSessions } from '../support/workspace.js';

const stateDir = (root: string) => path.join(root, 'state');
const hasEvent = (root: string, event: string, count = 1) =>
  logEvents(root).filter((e) => e.event === event).length >= count;

describe('the interrupt file', () => {
  it('stops a running agent, keeps the context, waits, and resumes the item with --resume', async () => {
    const { root, env } = await guardedWorkspace();
    await ralph(
      root,
      ['add', 'Long job', '--id', 'long', '--body', '#behave: chatty every=200 onresume=ok'],
      env,
    );
    // Without --drain: a drained run would end at the pause.
    const running = ralph(root, ['run', '--max-iterations', '2'], env);
    await waitUntil(
      path.join(root, 'docs', 'sessions'),
      agentTalking(root),
      10_000,
      'the agent to start talking',
    );
    expect((await ralph(root, ['pause', 'need', 'a', 'human'])).stdout).toContain('Paused');
    await waitUntil(stateDir(root), () => hasEvent(root, 'paused'), 10_000, 'the pause');

    const [first] = readSessions(root);
    expect(first).toMatchObject({
      status: 'interrupted',
      outcome: { kind: 'interrupted', message: 'interrupted: need a human' },
    });
    expect(readQueue(root).items[0]).toMatchObject({
      status: 'interrupted',
      attempts: 0,
      conversationId: first?.sessionId,
    });
    const context = JSON.parse(
      fs.readFileSync(
        path.join(root, 'docs', 'sessions', `${String(first?.sessionId)}-context.json`),
        'utf8',
      ),
    ) as Record<string, unknown>;
    expect(context).toMatchObject({
      itemId: 'long',
      resumeWith: first?.sessionId,
      reason: 'interrupted: need a human',
    });
    expect(ledger(root).filter((l) => l.startsWith('start'))).toHaveLength(1);

    expect((await ralph(root, ['resume'])).stdout).toContain('Resumed');
    expect((await running).code).toBe(0);
    const argv = calls(root)[1] ?? [];
    expect(argv[argv.indexOf('--resume') + 1]).toBe(first?.sessionId);
    expect(argv).not.toContain('--session-id');
    expect(readQueue(root).items[0]).toMatchObject({ status: 'done', attempts: 1 });
    await expectNoSurvivors(root);
    // The resumed session's transcript names ralph's own session and the one it continues.
    const second = readSessions(root)[1];
    const logs = (await ralph(root, ['logs', 'long'], env)).stdout;
    expect(logs.split('\n')[0]).toBe(
      `── ralph session ${String(second?.sessionId)} · item long "Long job" · attempt 1 · resumes claude session ${String(first?.sessionId)}`,
    );
    // show lists the files the session has: the resumed one left no context file.
    const shown = (await ralph(root, ['show', String(second?.sessionId)], env)).stdout;
    expect(shown).not.toMatch(/^ {2}context /m);
    expect((await ralph(root, ['show', String(first?.sessionId)], env)).stdout).toMatch(
      /^ {2}context .*-context\.json$/m,
    );
  });

  it('keeps a runner started while the file exists from claiming anything until it is removed', async () => {
    const { root, env } = await guardedWorkspace();
    await ralph(root, ['add', 'Wait for me', '--id', 'w'], env);
    await ralph(root, ['pause', 'before the night starts']);
    // Without --drain: a drained run would end at the pause.
    const running = ralph(root, ['run', '--max-iterations', '1'], env);
    await waitUntil(stateDir(root), () => hasEvent(root, 'paused'), 10_000, 'the pause');
    // Removed and re-created at once: still paused. The runner says the new reason once it
    // has read it; had it claimed in between, its one worker would be running the item.
    const file = path.join(root, 'state', 'interrupt-request.txt');
    fs.rmSync(file);
    fs.writeFileSync(file, 'still paused\n');
    await waitUntil(
      stateDir(root),
      () => logEvents(root).some((e) => e.event === 'paused' && e.reason === 'still paused'),
      10_000,
      'the new reason',
    );
    expect(ledger(root)).toEqual([]);
    expect(readQueue(root).items[0]).toMatchObject({ status: 'pending', attempts: 0 });
    await ralph(root, ['resume']);
    expect((await running).code).toBe(0);
    expect(readQueue(root).items[0]).toMatchObject({ status: 'done' });
  });

  it('can be written by the agent itself', async () => {
    const { root, env } = await guardedWorkspace();
    await ralph(
      root,
      ['add', 'Ask for help', '--id', 'helpme', '--body', '#behave: write-interrupt onresume=ok'],
      env,
    );
    // Without --drain: a drained run would end at the pause.
    const running = ralph(root, ['run', '--max-iterations', '2'], env);
    await waitUntil(stateDir(root), () => hasEvent(root, 'paused'), 10_000, 'the pause');
    expect(readSessions(root)[0]).toMatchObject({
      status: 'interrupted',
      outcome: { message: 'interrupted: agent needs a human' },
    });
    await ralph(root, ['resume']);
    expect((await running).code).toBe(0);
    expect(readQueue(root).items[0]).toMatchObject({ status: 'done' });
  });

  it('falls back to a fresh session when the interrupted one cannot be resumed', async () => {
    const { root, env } = await guardedWorkspace();
    await ralph(
      root,
      [
        'add',
        'Resume me',
        '--id',
        'r',
        '--body',
        '#behave: sequence steps=write-interrupt,no-conversation,ok',
      ],
      env,
    );
    // Without --drain: a drained run would end at the pause.
    const running = ralph(root, ['run', '--max-iterations', '3'], env);
    await waitUntil(stateDir(root), () => hasEvent(root, 'paused'), 10_000, 'the pause');
    await ralph(root, ['resume']);
    expect((await running).code).toBe(0);
    expect(readSessions(root).map((r) => (r.outcome as { kind: string }).kind)).toEqual([
      'interrupted',
      'resume_failed',
      'success',
    ]);
    const [, resumed, fresh] = calls(root);
    expect(resumed).toContain('--resume');
    expect(fresh).toContain('--session-id');
    expect(logEvents(root).some((e) => e.event === 'resume_failed')).toBe(true);
    expect(readQueue(root).items[0]).toMatchObject({ status: 'done', attempts: 1 });
  });

  it('pause --after-current lets the running item finish, then pauses', async () => {
    const { root, env } = await guardedWorkspace();
    await ralph(
      root,
      ['add', 'First', '--id', 'first', '--priority', '1', '--body', '#behave: slow ms=1500'],
      env,
    );
    await ralph(root, ['add', 'Second', '--id', 'second'], env);
    // Without --drain: a drained run would end at the pause.
    const running = ralph(root, ['run', '--max-iterations', '2'], env);
    await waitUntil(
      stateDir(root),
      () => hasEvent(root, 'session_started'),
      10_000,
      'the first session',
    );
    expect((await ralph(root, ['pause', '--after-current', 'stop after this'])).stdout).toContain(
      'when its current item ends',
    );
    await waitUntil(stateDir(root), () => hasEvent(root, 'paused'), 10_000, 'the pause');
    expect(readQueue(root).items.map((i) => [i.id, i.status])).toEqual([
      ['first', 'done'],
      ['second', 'pending'],
    ]);
    await ralph(root, ['resume']);
    expect((await running).code).toBe(0);
    expect(readQueue(root).items.map((i) => i.status)).toEqual(['done', 'done']);
  });
});

describe('a paused runner', () => {
  it('uses no measurable CPU', async () => {
    const { root, env } = await guardedWorkspace({ run: { pollInterval: '5s' } });
    await ralph(root, ['add', 'Later', '--id', 'later'], env);
    await ralph(root, ['pause', 'overnight freeze']);
    const child = spawn(process.execPath, [RALPH_BIN, '-C', root, 'run'], {
      env: { ...process.env, ...env },
      stdio: 'ignore',
    });
    try {
      await waitUntil(stateDir(root), () => hasEvent(root, 'paused'), 10_000, 'the pause');
      const cpuTicks = () => {
        const fields = fs
          .readFileSync(`/proc/${child.pid}/stat`, 'utf8')
          .split(') ')[1]!
          .split(' ');
        return Number(fields[11]) + Number(fields[12]);
      };
      await new Promise((resolve) => setTimeout(resolve, 1000)); // past start-up's last work
      const before = cpuTicks();
      await new Promise((resolve) => setTimeout(resolve, 3000)); // the measuring window
      // 3 ticks of 10 ms in 3 s: at most 1% of a core.
      expect(cpuTicks() - before).toBeLessThanOrEqual(3);
      expect(ledger(root)).toEqual([]);
    } finally {
      child.kill('SIGKILL');
    }
  });
});
