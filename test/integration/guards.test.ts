// The guards of an unattended night against hostile fake agents: timeouts, the kill ladder,
// grandchildren, escaped tool processes, and agents that linger after their result.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { expectNoSurvivors, guardedWorkspace } from '../support/guarded.js';
import { isAlive } from '../support/processes.js';
import { ralph, readQueue, readSessions } from '../support/workspace.js';

describe('hostile agents', () => {
  it('T10–T14, T22 end in the right recorded outcome, and leave nothing alive', async () => {
    const { root, env } = await guardedWorkspace();
    const pidfile = (name: string) => path.join(root, `${name}.pid`);
    const cases: [string, string, string[], Record<string, unknown>][] = [
      [
        'silent',
        'hang',
        ['--idle-timeout', '1s'],
        { status: 'timeout', outcome: { kind: 'idle_timeout' }, stopReason: 'idle_timeout' },
      ],
      [
        'chatty',
        'chatty every=100',
        ['--timeout', '2s', '--idle-timeout', '10s'],
        { status: 'timeout', outcome: { kind: 'timeout' }, stopReason: 'timeout' },
      ],
      [
        'deaf',
        'ignore-signals',
        ['--idle-timeout', '1s'],
        { status: 'timeout', outcome: { kind: 'idle_timeout' }, exit: { signal: 'SIGKILL' } },
      ],
      [
        'holder',
        `grandchild pidfile=${pidfile('holder')}`,
        [],
        { status: 'completed', outcome: { kind: 'success' } },
      ],
      [
        'lingerer',
        'hang-after-result',
        [],
        { status: 'completed', outcome: { kind: 'success' }, stopReason: 'after_result' },
      ],
      [
        'segv',
        'exit-signal',
        [],
        { status: 'failed', outcome: { kind: 'signal_exit' }, exit: { signal: 'SIGSEGV' } },
      ],
      [
        'mute',
        'no-result code=0',
        [],
        { status: 'failed', outcome: { kind: 'no_result' }, exit: { code: 0 } },
      ],
      [
        'liar',
        'is-error status=500',
        [],
        {
          status: 'failed',
          outcome: { kind: 'api_error' },
          result: { subtype: 'success', isError: true },
        },
      ],
      [
        'escapee',
        `setsid-child pidfile=${pidfile('escapee')}`,
        [],
        { status: 'completed', outcome: { kind: 'success' } },
      ],
    ];
    for (const [id, behaviour, flags] of cases) {
      await ralph(
        root,
        ['add', id, '--id', id, '--body', `#behave: ${behaviour}`, '--max-attempts', '1', ...flags],
        env,
      );
    }
    await ralph(root, ['run', '--drain'], env);
    const records = new Map(readSessions(root).map((r) => [r.itemId, r]));
    for (const [id, , , expected] of cases) expect(records.get(id), id).toMatchObject(expected);
    expect(records.get('holder')?.killedProcesses).toHaveLength(1);
    expect(records.get('escapee')?.killedProcesses).toHaveLength(1);
    for (const name of ['holder', 'escapee']) {
      expect(await isAlive(Number(fs.readFileSync(pidfile(name), 'utf8'))), name).toBe(false);
    }
    expect(readQueue(root).items.map((i) => [i.id, i.status])).toEqual(
      cases.map(([id, , , expected]) => [id, expected.status === 'completed' ? 'done' : 'failed']),
    );
    await expectNoSurvivors(root);
  });
});

describe('a flooding agent', () => {
  it('T19 is stopped at the output cap, and the item fails with output_limit', async () => {
    const { root, env } = await guardedWorkspace({ run: { maxOutputBytes: 20 * 1024 * 1024 } });
    await ralph(
      root,
      ['add', 'Flood', '--id', 'flood', '--body', '#behave: flood', '--max-attempts', '1'],
      env,
    );
    expect((await ralph(root, ['run', '--drain'], env)).code).toBe(1);
    const [record] = readSessions(root);
    expect(record).toMatchObject({
      status: 'failed',
      outcome: { kind: 'output_limit' },
      stopReason: 'output_limit',
    });
    expect((record?.heartbeat as { stdoutBytes: number }).stdoutBytes).toBeGreaterThan(
      20 * 1024 * 1024,
    );
    expect(readQueue(root).items[0]).toMatchObject({
      status: 'failed',
      lastOutcome: 'output_limit',
    });
    await expectNoSurvivors(root);
  });
});
