// Stopping one running item while the night goes on: `ralph stop` ends its session by the kill
// ladder (every process reaped) and parks it ("not now") with its attempt given back, puts it
// back in line (--requeue), or cancels it; `ralph cancel` and `ralph rm` of a running item stop
// it the same way first.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { expectNoSurvivors, guardedWorkspace, ledger, logEvents } from '../support/guarded.js';
import { startRunner } from '../support/runner.js';
import { eventually } from '../support/wait.js';
import { addInOwnDir, ralph, readQueue, readSessions } from '../support/workspace.js';

const item = (root: string, id: string) => readQueue(root).items.find((i) => i.id === id);

const running = (root: string, ...ids: string[]) =>
  ids.every((id) => item(root, id)?.status === 'running');

describe('ralph stop', () => {
  it('stops one of two running items while the other runs to its end; the stopped one is parked until resumed, its attempt given back', async () => {
    const { root, env } = await guardedWorkspace();
    const gate = path.join(root, 'gate');
    await addInOwnDir(root, 'a', '#behave: sequence steps=hang,ok');
    await addInOwnDir(root, 'b', `#behave: gated gate=${gate}`);
    const runner = startRunner(root, env, '--drain', '--workers', '2');
    onTestFinished(() => void runner.child.kill('SIGKILL'));
    // Both agents started (the fake's ledger): a's first call is counted, its next one ends.
    await eventually(
      () =>
        running(root, 'a', 'b') &&
        ['a', 'b'].every((id) => ledger(root).some((l) => l.startsWith(`start ${id} `))),
      20_000,
      'both items run',
    );
    const stop = await ralph(root, ['stop', 'a'], env);
    expect(stop.code, stop.stderr).toBe(0);
    expect(stop.stdout).toMatch(
      /^a: stopped and parked, its attempt given back: it waits until "ralph resume a"/,
    );
    // "Not now": it stays out of line, however long the night goes on.
    expect(item(root, 'a')).toMatchObject({ status: 'parked', attempts: 0 });
    expect((await ralph(root, ['status'], env)).stdout).toMatch(/1 parked/);
    // The other worker's item is untouched by it.
    expect(item(root, 'b')).toMatchObject({ status: 'running', attempts: 1 });
    const resumed = await ralph(root, ['resume', 'a'], env);
    expect(resumed.stdout).toBe('a: back in line (pending)');
    fs.writeFileSync(gate, '');
    expect(await runner.exited).toBe(0);
    expect(item(root, 'a')).toMatchObject({ status: 'done', attempts: 1 });
    expect(item(root, 'b')).toMatchObject({ status: 'done', attempts: 1 });
    const first = readSessions(root).find(
      (s) => s.itemId === 'a' && (s.outcome as { kind: string }).kind === 'stopped',
    );
    expect(first).toMatchObject({ stopReason: 'requested' });
    expect(logEvents(root).filter((e) => e.event === 'item_stopped')).toEqual([
      expect.objectContaining({ item: 'a', by: 'cli', itemStatus: 'parked' }),
    ]);
    expect(fs.readdirSync(path.join(root, 'state', 'stop'))).toEqual([]);
    await expectNoSurvivors(root);
  });

  it('puts the item back in line at once with --requeue', async () => {
    const { root, env } = await guardedWorkspace();
    await addInOwnDir(root, 'r', '#behave: sequence steps=hang,ok');
    const runner = startRunner(root, env, '--drain');
    onTestFinished(() => void runner.child.kill('SIGKILL'));
    await eventually(
      () => running(root, 'r') && ledger(root).some((l) => l.startsWith('start r ')),
      20_000,
      'the item runs',
    );
    const stop = await ralph(root, ['stop', 'r', '--requeue'], env);
    expect(stop.stdout).toBe('r: stopped; back in line with its attempt given back');
    expect(await runner.exited).toBe(0);
    expect(item(root, 'r')).toMatchObject({ status: 'done', attempts: 1 });
    const both = await ralph(root, ['stop', 'r', '--requeue', '--cancel'], env);
    expect(both.code).toBe(2);
  });

  it('cancels with --cancel; ralph cancel and ralph rm of a running item stop it first', async () => {
    const { root, env } = await guardedWorkspace();
    for (const id of ['c', 'd', 'e']) await addInOwnDir(root, id, '#behave: hang');
    const runner = startRunner(root, env, '--workers', '3');
    onTestFinished(() => void runner.child.kill('SIGKILL'));
    await eventually(() => running(root, 'c', 'd', 'e'), 20_000, 'three items run');
    const stop = await ralph(root, ['stop', 'c', '--cancel'], env);
    expect(stop.stdout).toBe('c: stopped and cancelled');
    const cancel = await ralph(root, ['cancel', 'd'], env);
    expect(cancel.code, cancel.stderr).toBe(0);
    expect(item(root, 'd')).toMatchObject({ status: 'cancelled', attempts: 0 });
    const removed = await ralph(root, ['rm', 'e'], env);
    expect(removed.code, removed.stderr).toBe(0);
    expect(item(root, 'e')).toBeUndefined();
    expect(item(root, 'c')).toMatchObject({ status: 'cancelled', attempts: 0 });
    // Nothing else to stop: a clear refusal.
    const again = await ralph(root, ['stop', 'c'], env);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('c is cancelled, not running: nothing to stop');
    runner.child.kill('SIGTERM');
    expect(await runner.exited).toBe(143);
    await expectNoSurvivors(root);
  });
});
