// `--drain` and `--once` end when the night is paused or a usage limit is far away, instead of
// waiting for a person who is asleep; on an injected clock, so a wait would spin the clock on.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCommand } from '../../src/cli/commands/run.js';
import type { RunnerEvent } from '../../src/runner/index.js';
import { guardedWorkspace, logEvents } from '../support/guarded.js';
import { captureOutput } from '../support/output.js';
import { fakeTime } from '../support/fake-time.js';
import { ralph, readQueue } from '../support/workspace.js';

const START = Date.parse('2026-11-22T01:00:00Z');

async function run(root: string, env: Record<string, string>, options: Record<string, unknown>) {
  const output = captureOutput();
  const time = fakeTime(START);
  const events: RunnerEvent[] = [];
  const code = await runCommand(
    root,
    options,
    output,
    { PATH: process.env.PATH, ...env },
    { ...time, listen: (event) => events.push(event) },
  );
  return { code, stderr: output.stderr.join('\n'), time, events };
}

const interruptFile = (root: string) => path.join(root, 'state', 'interrupt-request.txt');

describe('a run meant to end, when the night is paused', () => {
  it.each([[{ drain: true }], [{ once: true }]])(
    'ends with exit 6, the reason and how to resume, on a failed authentication (%o)',
    async (options) => {
      const { root, env } = await guardedWorkspace();
      await ralph(
        root,
        ['add', 'Auth', '--id', 'a', '--body', '#behave: replay file=auth-401'],
        env,
      );
      const { code, stderr } = await run(root, env, options);
      expect(code).toBe(6);
      expect(stderr).toMatch(/the night is paused: .*authentication failed \(401\)/);
      expect(stderr).toContain('ralph resume');
      expect(fs.readFileSync(interruptFile(root), 'utf8')).toMatch(/authentication failed/);
      expect(readQueue(root).items[0]).toMatchObject({ id: 'a', status: 'pending', attempts: 0 });
    },
  );

  it('ends at once when a person paused before the run, and runs nothing', async () => {
    const { root, env } = await guardedWorkspace();
    await ralph(root, ['add', 'Waiting', '--id', 'w'], env);
    await ralph(root, ['pause', 'deploy freeze'], env);
    const { code, stderr, events } = await run(root, env, { drain: true });
    expect(code).toBe(6);
    expect(stderr).toContain('the night is paused: deploy freeze');
    // The typed events a subscriber sees, in order, on the injected clock.
    expect(events.map((e) => e.event)).toEqual([
      'run_started',
      'night_planned',
      'paused',
      'run_finished',
    ]);
    const paused = events.find((e) => e.event === 'paused');
    expect(paused?.event === 'paused' && paused.reason).toBe('deploy freeze');
    expect(events.every((e) => e.time === new Date(START).toISOString())).toBe(true);
    expect(fs.existsSync(path.join(root, 'ledger.txt'))).toBe(false);
    expect(readQueue(root).items[0]).toMatchObject({ status: 'pending', attempts: 0 });
  });

  it('ends when the circuit breaker pauses the night', async () => {
    const { root, env } = await guardedWorkspace({
      run: { maxConsecutiveFailures: 2, failureBackoffCap: 0 },
    });
    for (const id of ['f1', 'f2', 'f3'])
      await ralph(root, ['add', id, '--id', id, '--body', '#behave: no-result'], env);
    const { code, stderr } = await run(root, env, { drain: true });
    expect(code).toBe(6);
    expect(stderr).toMatch(/2 consecutive failures/);
  });
});

describe('a run that waits', () => {
  it('says once that it waits, and for what', async () => {
    const { root, env } = await guardedWorkspace();
    const until = new Date(START + 60_000).toISOString();
    const { code, events } = await run(root, env, { until });
    expect(code).toBe(0);
    const idle = events.filter((e) => e.event === 'idle');
    expect(idle).toHaveLength(1);
    expect(idle[0]?.event === 'idle' && idle[0].waitingFor).toBe('new items (ralph add)');
  });
});

describe('a run meant to end, on a usage limit', () => {
  it('waits for a reset within run.maxLimitWait and ends with exit 7 on one past it', async () => {
    const { root, env } = await guardedWorkspace({ run: { maxLimitWait: '1h' } });
    const far = Math.floor(START / 1000) + 3 * 3600;
    await ralph(
      root,
      ['add', 'Limited', '--id', 'l', '--body', `#behave: rate-limited resetsAt=${far}`],
      env,
    );
    const { code, stderr, time } = await run(root, env, { drain: true });
    expect(code).toBe(7);
    expect(stderr).toContain(`resets at ${new Date(far * 1000).toISOString()}`);
    expect(time.now()).toBeLessThan(far * 1000);
    expect(logEvents(root).some((e) => e.event === 'limit_too_far')).toBe(true);
    expect(readQueue(root).items[0]).toMatchObject({ status: 'pending', attempts: 0 });
    expect(fs.existsSync(interruptFile(root))).toBe(false);
  });

  it("ends with exit 7 on an item's retry past run.maxLimitWait, never waiting for it", async () => {
    const { root, env } = await guardedWorkspace({ run: { maxLimitWait: '1h' } });
    await ralph(root, ['add', 'Later', '--id', 'later', '--body', '#behave: ok'], env);
    // Given back by a usage limit that resets in three hours: its retry waits for it.
    const queue = readQueue(root);
    const retryAfter = new Date(START + 3 * 3600_000).toISOString();
    for (const i of queue.items) i.retryAfter = retryAfter;
    fs.writeFileSync(path.join(root, 'state', 'queue.json'), JSON.stringify(queue));
    const { code, stderr, time } = await run(root, env, { drain: true });
    expect(code).toBe(7);
    expect(stderr).toContain(`the next item may be retried at ${retryAfter}`);
    expect(time.now()).toBeLessThan(Date.parse(retryAfter));
    expect(readQueue(root).items[0]).toMatchObject({ status: 'pending', attempts: 0 });
  });

  it('keeps the hold in state/holds.json past the run: status shows it, the next run spares the CLI', async () => {
    const { root, env } = await guardedWorkspace({ run: { maxLimitWait: '1h' } });
    const far = Math.floor(Date.now() / 1000) + 2 * 3600;
    const body = `#behave: rate-limited resetsAt=${far}`;
    await ralph(root, ['add', 'Limited', '--id', 'l', '--body', body], env);
    expect((await ralph(root, ['run', '--drain'], env)).code).toBe(7);
    const status = JSON.parse((await ralph(root, ['status', '--json'], env)).stdout) as {
      heldClis?: { cli: string; kind: string; reason: string }[];
    };
    expect(status.heldClis).toEqual([
      expect.objectContaining({
        cli: 'claude',
        kind: 'limit',
        reason: expect.stringContaining(new Date(far * 1000).toISOString()) as string,
      }),
    ]);
    // A new item: the next run does not start claude for it before the reset.
    await ralph(root, ['add', 'Next', '--id', 'n'], env);
    const calls = fs.readFileSync(env.FAKE_CLAUDE_CALLS, 'utf8');
    const again = await ralph(root, ['run', '--drain'], env);
    expect(again.code).toBe(7);
    // claude was not started again before its reset.
    expect(fs.readFileSync(env.FAKE_CLAUDE_CALLS, 'utf8')).toBe(calls);
    expect(fs.existsSync(path.join(root, 'state', 'holds.json'))).toBe(true);
    // A person who knows better lifts it.
    expect((await ralph(root, ['resume'], env)).stdout).toMatch(/Lifted the hold on claude/);
    expect(fs.existsSync(path.join(root, 'state', 'holds.json'))).toBe(false);
  });

  it('--once does not wait for a reset: exit 7', async () => {
    const { root, env } = await guardedWorkspace();
    const soon = Math.floor(START / 1000) + 600;
    await ralph(
      root,
      ['add', 'Limited', '--id', 'l', '--body', `#behave: rate-limited resetsAt=${soon}`],
      env,
    );
    const { code } = await run(root, env, { once: true });
    expect(code).toBe(7);
  });
});
