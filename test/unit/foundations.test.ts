// Small pure parts every other test leans on: durations, dependency checks, the session
// record's lifecycle, and redaction of a stream whose secret straddles the 1 MB hold.
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import {
  endedSession,
  orphanedSession,
  runningSession,
  spawnFailed,
  spawningSession,
} from '../../src/archive/session.js';
import { sessionFiles } from '../../src/archive/paths.js';
import { parseDuration } from '../../src/lib/duration.js';
import { Redactor } from '../../src/lib/redact.js';
import { redactingStream } from '../../src/lib/redact-stream.js';
import { dependencyProblem, unrunnableItems } from '../../src/queue/dependencies.js';
import { emptySummary } from '../../src/stream/summary.js';
import { queueItem } from '../support/items.js';

describe('parseDuration', () => {
  it.each([
    ['90', 90],
    ['1.5', 1.5],
    ['250ms', 0.25],
    ['90s', 90],
    ['15m', 900],
    ['2h', 7200],
    ['1d', 86_400],
    ['1h30m', 5400],
    [' 2m ', 120],
    [0, 0],
    [12.5, 12.5],
  ])('reads %j as %d seconds', (text, seconds) => {
    expect(parseDuration(text)).toBe(seconds);
  });

  it.each(['', 'soon', '-5', '5 m', 'm5', '1h 30m', '1w', '1e3', '5s!'])('refuses %j', (text) => {
    expect(parseDuration(text)).toBeUndefined();
  });

  it('refuses a negative or infinite number', () => {
    expect(parseDuration(-1)).toBeUndefined();
    expect(parseDuration(Number.POSITIVE_INFINITY)).toBeUndefined();
  });
});

describe('dependency checks', () => {
  const item = (id: string, dependsOn: string[], status = 'pending') => ({
    ...queueItem(id),
    dependsOn,
    status: status as 'pending',
  });

  it('says why dependencies can never be met: itself, missing, failed or cancelled, a cycle', () => {
    const items = [
      item('self', ['self']),
      item('orphan', ['gone']),
      item('after-failed', ['failed'], 'pending'),
      item('failed', [], 'failed'),
      item('a', ['b']),
      item('b', ['c']),
      item('c', ['a']),
      item('fine', ['done']),
      item('done', [], 'done'),
    ];
    const byId = new Map(items.map((i) => [i.id, i]));
    const problem = (id: string) => dependencyProblem(byId.get(id)!, byId);
    expect(problem('self')).toBe('it depends on itself');
    expect(problem('orphan')).toBe('it depends on gone, which is not in the queue');
    expect(problem('after-failed')).toBe('it depends on failed, which is failed');
    expect(problem('a')).toBe('its dependencies form a cycle: a → b → c → a');
    expect(problem('fine')).toBeUndefined();
  });

  it('counts as unrunnable what waits, however deep, on an item that cannot run', () => {
    const items = [
      item('failed', [], 'failed'),
      item('first', ['failed']),
      item('second', ['first']),
      item('third', ['second']),
      item('free', []),
    ];
    expect(unrunnableItems(items)).toEqual([
      { id: 'first', reason: 'it depends on failed, which is failed' },
      { id: 'second', reason: 'it depends on first, which cannot run' },
      { id: 'third', reason: 'it depends on second, which cannot run' },
    ]);
  });
});

describe('the session record', () => {
  const spawning = () =>
    spawningSession({
      sessionId: 's1',
      itemId: 'i1',
      itemTitle: 'One',
      iteration: 1,
      attempt: 1,
      startedAt: 0,
      runner: { pid: 1 },
      workDir: '/w',
      cli: 'claude',
      command: ['claude'],
      yolo: false,
      limits: { timeoutSeconds: 60, idleTimeoutSeconds: 30 },
      files: sessionFiles('/sessions', 's1'),
    });
  const progress = { summary: emptySummary(), stdoutBytes: 0, stderrBytes: 0, lastActivityAt: 0 };
  const ending = (status: 'completed' | 'timeout') => ({
    status,
    outcome: { kind: 'success', message: 'done', retryable: false },
    exit: { code: 0, signal: null },
    killedProcesses: [],
    progress,
    now: 1000,
  });

  it('goes spawning → running → completed, and refuses a move its lifecycle has not', () => {
    const running = runningSession(spawning(), 42, '99');
    expect(running).toMatchObject({ status: 'running', pid: 42 });
    const ended = endedSession(running, ending('completed'));
    expect(ended).toMatchObject({ status: 'completed', endedAt: new Date(1000).toISOString() });
    expect(() => runningSession(ended, 43, undefined)).toThrow(
      'session s1: no transition from completed to running',
    );
    expect(() => endedSession(ended, ending('timeout'))).toThrow(/no transition from completed/);
  });

  it('fails a session whose binary could not start, and keeps a finished one as it ended when its runner died after', () => {
    expect(spawnFailed(spawning(), 'ENOENT', false, 5)).toMatchObject({
      status: 'failed',
      outcome: { kind: 'spawn_failed', retryable: false },
    });
    const orphan = orphanedSession(runningSession(spawning(), 42, '99'), {
      summary: emptySummary(),
      stdoutBytes: 0,
      killedProcesses: [],
      now: 2000,
    });
    expect(orphan).toMatchObject({ status: 'killed', outcome: { kind: 'runner_died' } });
    const ended = endedSession(runningSession(spawning(), 42, '99'), ending('completed'));
    const late = orphanedSession(ended, {
      summary: emptySummary(),
      stdoutBytes: 0,
      killedProcesses: [],
      now: 2000,
    });
    expect(late.status).toBe('completed');
  });
});

describe('a redacted stream', () => {
  it('masks a secret that straddles the 1 MB a huge line is held back for', async () => {
    const secret = 'sk-live-0123456789abcdefghij';
    const redactor = new Redactor([secret]);
    for (const before of [1024 * 1024 - 10, 1024 * 1024 - 1, 1024 * 1024, 1024 * 1024 + 3]) {
      const text = `${'x'.repeat(before)}${secret}${'y'.repeat(100)}\n`;
      // Chunks of 64 KiB and a last odd one: the cut falls anywhere in the secret.
      const bytes = Buffer.from(text);
      const chunks: Buffer[] = [];
      for (let at = 0; at < bytes.length; at += 65_536)
        chunks.push(bytes.subarray(at, at + 65_536));
      let out = '';
      for await (const piece of Readable.from(chunks).pipe(redactingStream(redactor)))
        out += String(piece);
      expect(out).not.toContain(secret.slice(0, 12));
      expect(out).toBe(`${'x'.repeat(before)}***${'y'.repeat(100)}\n`);
    }
  });
});
