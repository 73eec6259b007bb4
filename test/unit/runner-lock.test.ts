// The workspace lock tells the next runner whether the last one ended or died holding it: only
// after a death is there anything of its (a git it started) to look for in /proc.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { acquireRunnerLock, liveRunner } from '../../src/control/runner-lock.js';
import { tempDir } from '../support/workspace.js';

describe('the runner lock', () => {
  it('says whether the last runner died holding it, and a runner that ended is not live', async () => {
    const file = path.join(await tempDir('ralph-lock-'), 'runner.lock');

    const first = await acquireRunnerLock(file, Date.now());
    expect(first.lastRunnerDied).toBe(false);
    expect(await liveRunner(file)).toMatchObject({ pid: process.pid });
    await first.release();
    expect(await liveRunner(file)).toBeUndefined();

    const second = await acquireRunnerLock(file, Date.now());
    expect(second.lastRunnerDied).toBe(false);
    // Killed: its lock left as it was (here, with no live holder: taken over at once).
    const identity = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>;
    fs.writeFileSync(file, JSON.stringify({ ...identity, pid: 2 ** 22 + 1 }));

    const third = await acquireRunnerLock(file, Date.now());
    expect(third.lastRunnerDied).toBe(true);
    expect(third.reclaimedFrom).toMatchObject({ pid: 2 ** 22 + 1 });
    await third.release();
    await second.release();
  });

  it('counts a lock of an older release, which wrote no end, as left by a death', async () => {
    const file = path.join(await tempDir('ralph-lock-'), 'runner.lock');
    fs.writeFileSync(file, JSON.stringify({ pid: 2 ** 22 + 1, startedAt: '2026-11-20T00:00:00Z' }));
    const lock = await acquireRunnerLock(file, Date.now());
    expect(lock.lastRunnerDied).toBe(true);
    await lock.release();
  });
});
