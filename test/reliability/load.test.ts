// A. Load held: T01 (a long queue: no leak of memory or descriptors) and T03 (producers
// adding while the runner consumes). LOAD_ITEMS, PRODUCERS and PRODUCER_ADDS scale them.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCommand } from '../../src/cli/commands/run.js';
import type { Wait } from '../../src/runner/wait.js';
import { fakeTime } from '../support/fake-time.js';
import { guardedWorkspace } from '../support/guarded.js';
import { captureOutput } from '../support/output.js';
import { waitUntil } from '../support/wait.js';
import { RALPH_BIN, listFiles, ralph, readQueue, readSessions } from '../support/workspace.js';
import {
  checkInvariants,
  killRunners,
  processUsage,
  recordFigures,
  scale,
  snapshot,
  startRunner,
} from './harness.js';

afterEach(killRunners);

const LOAD_ITEMS = scale('LOAD_ITEMS', 30);
const PRODUCERS = scale('PRODUCERS', 4);
const PRODUCER_ADDS = scale('PRODUCER_ADDS', 10);

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

describe('A. load', () => {
  it(`T01 runs ${LOAD_ITEMS} items with steady memory and descriptors`, async () => {
    const { root, env } = await guardedWorkspace();
    const items = Array.from({ length: LOAD_ITEMS }, (_, i) => ({
      id: `l${i}`,
      title: `load ${i}`,
      body: `#behave: slow ms=${50 + ((i * 97) % 450)}`,
      createdAt: new Date(Date.now() + i).toISOString(),
    }));
    fs.writeFileSync(path.join(root, 'state', 'queue.json'), JSON.stringify({ version: 1, items }));
    const before = snapshot(root);
    const runner = startRunner(root, env);
    const samples: { rssBytes: number; fds: number }[] = [];
    const sampler = setInterval(() => {
      const usage = processUsage(runner.child.pid ?? 0);
      if (usage !== undefined) samples.push(usage);
    }, 100);
    const { code } = await runner.exited;
    clearInterval(sampler);
    expect(code, runner.stderr()).toBe(0);
    const report = await checkInvariants(root, {
      ids: items.map((i) => i.id),
      before,
      cleanExit: true,
    });
    recordFigures({ scenario: 'T01 long queue', items: LOAD_ITEMS, ...report });
    expect(report.problems).toEqual([]);
    // The first quarter is start-up; compare the second quarter with the last one. Medians:
    // a leak raises every sample, while a sample taken mid-scan of /proc or mid-spawn is a
    // passing peak.
    const quarter = Math.max(1, Math.floor(samples.length / 4));
    const early = samples.slice(quarter, 2 * quarter);
    const late = samples.slice(-quarter);
    expect(median(late.map((s) => s.fds))).toBeLessThanOrEqual(median(early.map((s) => s.fds)) + 2);
    expect(median(late.map((s) => s.rssBytes))).toBeLessThan(
      median(early.map((s) => s.rssBytes)) + 40 * 1024 ** 2,
    );
  }, 900_000);

  // At full size the runner works through 4000 items (one agent process each) while 4000
  // `ralph add` processes start beside it: about half an hour on two cores.
  it(`T03 keeps every add of ${PRODUCERS} producers adding while the runner consumes`, async () => {
    const { root, env } = await guardedWorkspace({ run: { pollInterval: '0.2s' } });
    const runner = startRunner(root, env, ['run']);
    const versions: number[] = [];
    const sampler = setInterval(() => {
      try {
        versions.push(readQueue(root).version);
      } catch {
        // Between a rename and nothing: atomic writes mean this does not happen; ignore a race.
      }
    }, 50);
    const producer = (p: number) =>
      new Promise<{ code: number | null; stderr: string }>((resolve) => {
        // One shell-free node process per producer, running `ralph add` PRODUCER_ADDS times.
        const script = `
          const { execFileSync } = require('node:child_process');
          for (let i = 0; i < ${PRODUCER_ADDS}; i++) {
            execFileSync(process.execPath, [${JSON.stringify(RALPH_BIN)}, '-C', ${JSON.stringify(root)},
              'add', 'item ' + i, '--id', 'p${p}-' + i, '--body', '#behave: ok'], { stdio: ['ignore', 'ignore', 'inherit'] });
          }`;
        const child = spawn(process.execPath, ['-e', script], {
          stdio: ['ignore', 'ignore', 'pipe'],
        });
        let stderr = '';
        child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
        child.on('exit', (code) => resolve({ code, stderr }));
      });
    const results = await Promise.all(Array.from({ length: PRODUCERS }, (_, p) => producer(p)));
    for (const result of results) expect(result.code, result.stderr).toBe(0);
    const ids = Array.from({ length: PRODUCERS }, (_, p) =>
      Array.from({ length: PRODUCER_ADDS }, (_, i) => `p${p}-${i}`),
    ).flat();
    await waitUntil(
      path.join(root, 'state'),
      () => readQueue(root).items.filter((i) => i.status === 'done').length === ids.length,
      3_000_000,
      'every item done',
    );
    clearInterval(sampler);
    runner.child.kill('SIGTERM');
    expect((await runner.exited).code).toBe(143);
    const report = await checkInvariants(root, { ids, cleanExit: true });
    recordFigures({ scenario: 'T03 concurrent adds', items: ids.length, ...report });
    expect(report.problems).toEqual([]);
    expect(readQueue(root).items).toHaveLength(ids.length);
    for (let i = 1; i < versions.length; i++)
      expect(versions[i]).toBeGreaterThanOrEqual(versions[i - 1] ?? 0);
    expect(results.map((r) => r.stderr).join('')).not.toMatch(/compromised|lost the lock/i);
  }, 3_600_000);

  it('T05 keeps a half-hourly schedule over 8 compressed hours, a missed stretch firing once', async () => {
    const cap = 8 * 1024;
    // A long poll: the fake clock jumps straight to each next run instead of every half second.
    const { root, env } = await guardedWorkspace({
      log: { maxBytes: cap },
      run: { pollInterval: '1h', maxConsecutiveFailures: 0 },
    });
    // --not-before: the first run at the start of the compressed night, then every half hour.
    await ralph(
      root,
      [
        'add',
        'half-hourly',
        '--id',
        'cron',
        '--schedule',
        '*/30 * * * *',
        '--not-before',
        '2026-11-23T00:00:00Z',
      ],
      env,
    );
    for (let i = 0; i < 20; i++) await ralph(root, ['add', `queued ${i}`, '--id', `q${i}`], env);
    const start = Date.parse('2026-11-23T00:00:00Z');
    const time = fakeTime(start);
    // The machine sleeps from 3:00 to 5:40: the runs of 3:30 to 5:30 are missed.
    let slept = false;
    const wait: Wait = (options) => {
      if (!slept && time.now() >= start + 3 * 3_600_000) {
        slept = true;
        return time.wait({ ...options, ms: options.ms + 130 * 60_000 });
      }
      return time.wait(options);
    };
    const code = await runCommand(
      root,
      { until: new Date(start + 8 * 3_600_000).toISOString() },
      captureOutput(),
      { PATH: process.env.PATH, ...env },
      { clock: time.clock, wait },
    );
    expect(code).toBe(0);
    const runs = readSessions(root)
      .filter((r) => r.itemId === 'cron')
      .map((r) => Date.parse(String(r.startedAt)) - start);
    const slot = 30 * 60_000;
    // One run per slot, none early, none twice; the missed stretch fires once.
    const slots = runs.map((t) => Math.floor(t / slot));
    expect(new Set(slots).size).toBe(runs.length);
    expect(runs.filter((t) => t > 3 * 3_600_000 && t < 6 * 3_600_000)).toHaveLength(1);
    expect(runs.filter((t) => t % slot === 0).length).toBeGreaterThanOrEqual(runs.length - 1);
    expect(runs.length).toBe(12);
    expect(readQueue(root).items.filter((i) => i.status === 'done')).toHaveLength(20);
    // Log rotation keeps the log within twice its cap.
    const logs = listFiles(path.join(root, 'state')).filter((f) => f.startsWith('iteration.log'));
    const bytes = logs.reduce((n, f) => n + fs.statSync(path.join(root, 'state', f)).size, 0);
    expect(bytes).toBeLessThanOrEqual(2 * cap + 4096);
  });
});
