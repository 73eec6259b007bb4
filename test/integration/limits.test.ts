// Usage limits, API errors, budgets, deadlines and windows, on an injected clock: the runner's
// waits move the fake clock instead of sleeping.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { calls, guardedWorkspace, logEvents } from '../support/guarded.js';
import { fakeTime } from '../support/fake-time.js';
import { runOnClock } from '../support/runner.js';
import { ralph, readQueue, readSessions } from '../support/workspace.js';

const RESETS_AT =
  Number(
    /"resetsAt":(\d+)/.exec(
      fs.readFileSync(
        new URL('../fixtures/transcripts/usage-limit-rejected.ndjson', import.meta.url),
        'utf8',
      ),
    )?.[1],
  ) * 1000;

const run = runOnClock;

/** An item whose first session meets the recorded usage limit, and whose second succeeds. */
async function addLimited(root: string, env: Record<string, string>) {
  const added = await ralph(
    root,
    [
      'add',
      'Limited',
      '--id',
      'lim',
      '--body',
      '#behave: sequence steps=replay:usage-limit-rejected,ok',
    ],
    env,
  );
  expect(added.code, added.stderr).toBe(0);
}

describe('limits from the stream', () => {
  it('waits until a rejected usage limit resets, then runs the same item without spending an attempt', async () => {
    const { root, env } = await guardedWorkspace({
      run: { limitMargin: '30s', maxConsecutiveFailures: 1 },
    });
    await addLimited(root, env);
    const time = fakeTime(RESETS_AT - 3_600_000);
    const { code } = await run(root, env, time);
    expect(code).toBe(0);
    const limitWait = logEvents(root).find((e) => e.event === 'limit_wait');
    expect(limitWait).toMatchObject({ until: new Date(RESETS_AT + 30_000).toISOString() });
    expect(time.now()).toBeGreaterThanOrEqual(RESETS_AT + 30_000);
    const [limited, ok] = readSessions(root);
    expect(limited).toMatchObject({ outcome: { kind: 'rate_limited' } });
    expect(ok).toMatchObject({ outcome: { kind: 'success' } });
    // One consecutive failure would have tripped the breaker: a usage limit is not a failure.
    expect(fs.existsSync(path.join(root, 'state', 'interrupt-request.txt'))).toBe(false);
    expect(readQueue(root).items[0]).toMatchObject({ status: 'done', attempts: 1 });
    expect(fs.existsSync(path.join(root, 'state', 'waiting.json'))).toBe(false);
  });

  it('backs off from a usage limit whose reset is already past, instead of meeting it again at once', async () => {
    const { root, env } = await guardedWorkspace({ run: { limitMargin: 0 } });
    await addLimited(root, env);
    // The API's reset is an hour behind this runner's clock.
    const start = RESETS_AT + 3_600_000;
    const time = fakeTime(start);
    const { code } = await run(root, env, time);
    expect(code).toBe(0);
    const limitWait = logEvents(root).find((e) => e.event === 'limit_wait');
    // run.rateLimitBackoff (60 s) from the limit, not the past reset.
    expect(Date.parse(String(limitWait?.until))).toBeGreaterThanOrEqual(start + 60_000);
    expect(readSessions(root).map((s) => (s.outcome as { kind: string }).kind)).toEqual([
      'rate_limited',
      'success',
    ]);
  });

  it('retries a transient 429 after a backoff', async () => {
    const { root, env } = await guardedWorkspace();
    await ralph(
      root,
      [
        'add',
        'Flaky API',
        '--id',
        'flaky',
        '--body',
        '#behave: sequence steps=replay:api-error-429,ok',
      ],
      env,
    );
    const start = Date.parse('2026-11-22T01:00:00Z');
    const time = fakeTime(start);
    expect((await run(root, env, time)).code).toBe(0);
    expect(readSessions(root).map((r) => (r.outcome as { kind: string }).kind)).toEqual([
      'api_error',
      'success',
    ]);
    expect(readQueue(root).items[0]).toMatchObject({ status: 'done', attempts: 2 });
    expect(time.now() - start).toBeGreaterThanOrEqual(60_000);
  });

  it.each([
    ['credit-exhausted', 'credit_exhausted', /credit exhausted: Credit balance is too low/],
    ['auth-401', 'auth_error', /authentication failed \(401\)/],
  ])('pauses the night with the interrupt file on %s', async (transcript, kind, reason) => {
    const { root, env } = await guardedWorkspace();
    await ralph(
      root,
      ['add', 'Needs money', '--id', 'm', '--body', `#behave: replay file=${transcript}`],
      env,
    );
    await ralph(root, ['add', 'Other', '--id', 'other'], env);
    const time = fakeTime(Date.parse('2026-11-22T01:00:00Z'));
    const done = run(root, env, time, { maxIterations: '1' });
    expect((await done).code).toBe(0);
    expect(readSessions(root)[0]).toMatchObject({ outcome: { kind } });
    expect(fs.readFileSync(path.join(root, 'state', 'interrupt-request.txt'), 'utf8')).toMatch(
      reason,
    );
    expect(readQueue(root).items.map((i) => [i.id, i.status, i.attempts])).toEqual([
      ['m', 'pending', 0],
      ['other', 'pending', 0],
    ]);
  });
});

describe('limits of the run', () => {
  it('stops claiming once --max-cost is spent and caps the last session with what is left', async () => {
    const { root, env } = await guardedWorkspace();
    for (const id of ['a', 'b', 'c', 'd'])
      await ralph(root, ['add', id, '--id', id, '--body', '#behave: ok cost=0.4'], env);
    const time = fakeTime(Date.parse('2026-11-22T01:00:00Z'));
    const { code } = await run(root, env, time, { maxCost: '1' });
    expect(code).toBe(0);
    expect(readQueue(root).items.map((i) => i.status)).toEqual(['done', 'done', 'done', 'pending']);
    const budgets = calls(root).map((argv) => Number(argv[argv.indexOf('--max-budget-usd') + 1]));
    expect(budgets[0]).toBe(1);
    expect(budgets[2]).toBeCloseTo(0.2);
    expect(logEvents(root).find((e) => e.event === 'run_limit_reached')?.reason).toMatch(
      /spent \$1\.2000 of its \$1 limit/,
    );
    const budget = JSON.parse(fs.readFileSync(path.join(root, 'state', 'budget.json'), 'utf8')) as {
      run: { costUsd: number; maxCostUsd: number };
    };
    expect(budget.run).toMatchObject({ maxCostUsd: 1 });
    expect(budget.run.costUsd).toBeCloseTo(1.2);
  });

  it('starts nothing after the --until deadline', async () => {
    const { root, env } = await guardedWorkspace();
    await ralph(root, ['add', 'Late', '--id', 'late'], env);
    const time = fakeTime(Date.parse('2026-11-22T07:30:00Z'));
    const { code } = await run(root, env, time, { until: '2026-11-22T07:00:00Z' });
    expect(code).toBe(0);
    expect(readQueue(root).items[0]?.status).toBe('pending');
    expect(logEvents(root).find((e) => e.event === 'run_limit_reached')?.reason).toMatch(
      /deadline/,
    );
  });

  it('waits outside the run windows until one opens', async () => {
    const { root, env } = await guardedWorkspace({
      run: { windows: ['* 22-23,0-5 * * *'], timeZone: 'UTC' },
    });
    await ralph(root, ['add', 'Night only', '--id', 'n'], env);
    const time = fakeTime(Date.parse('2026-11-22T15:10:00Z'));
    expect((await run(root, env, time)).code).toBe(0);
    expect(logEvents(root).find((e) => e.event === 'window_wait')).toMatchObject({
      until: '2026-11-22T22:00:00.000Z',
    });
    expect(readSessions(root)[0]?.startedAt).toBe('2026-11-22T22:00:00.000Z');
  });

  it('runs dependencies first and requeues a scheduled item at its next time', async () => {
    const { root, env } = await guardedWorkspace();
    await ralph(root, ['add', 'Setup', '--id', 'setup'], env);
    // A scheduled item waits for its next time; --not-before in the past runs it at once.
    await ralph(
      root,
      [
        'add',
        'Nightly report',
        '--id',
        'nightly',
        '--schedule',
        '30 2 * * *',
        '--not-before',
        '2026-11-22T00:00:00Z',
        '--depends-on',
        'setup',
      ],
      env,
    );
    const time = fakeTime(Date.parse('2026-11-22T01:00:00Z'));
    expect((await run(root, env, time)).code).toBe(0);
    expect(readSessions(root).map((r) => r.itemId)).toEqual(['setup', 'nightly']);
    expect(readQueue(root).items[1]).toMatchObject({
      id: 'nightly',
      status: 'pending',
      attempts: 0,
    });
    expect(Date.parse(String(readQueue(root).items[1]?.notBefore))).toBeGreaterThan(
      Date.parse('2026-11-22T01:00:00Z'),
    );
  });
});
