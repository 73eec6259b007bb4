// A. Load held: T01 (a long queue: no leak of memory or descriptors) and T03 (producers
// adding while the runner consumes). LOAD_ITEMS, PRODUCERS and PRODUCER_ADDS scale them.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { guardedWorkspace } from '../support/guarded.js';
import { waitUntil } from '../support/wait.js';
import { RALPH_BIN, readQueue } from '../support/workspace.js';
import {
  checkInvariants,
  processUsage,
  recordFigures,
  scale,
  snapshot,
  startRunner,
} from './harness.js';

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
    // The first tenth is start-up; compare the second quarter with the last one.
    const quarter = Math.max(1, Math.floor(samples.length / 4));
    const early = samples.slice(quarter, 2 * quarter);
    const late = samples.slice(-quarter);
    expect(Math.max(...late.map((s) => s.fds))).toBeLessThanOrEqual(
      Math.max(...early.map((s) => s.fds)) + 2,
    );
    expect(median(late.map((s) => s.rssBytes))).toBeLessThan(
      median(early.map((s) => s.rssBytes)) + 40 * 1024 ** 2,
    );
  }, 900_000);

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
      600_000,
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
  }, 1_800_000);
});
