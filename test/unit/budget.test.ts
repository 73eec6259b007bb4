// The workspace's budget counts every session, those that end side by side too (a worker's and
// a reviewer's): its changes are made one after another.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readBudget, recordSpend, startRun } from '../../src/control/budget.js';
import { tempDir } from '../support/workspace.js';

describe('the budget', () => {
  it('counts each of 20 sessions that end at once, and their cost', async () => {
    const file = path.join(await tempDir('ralph-budget-'), 'budget.json');
    await startRun(file, { now: 0 });
    await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        recordSpend(file, { costUsd: 0.25, outcome: i % 2 === 0 ? 'success' : 'failed', now: i }),
      ),
    );
    const budget = await readBudget(file);
    expect(budget.iterations).toBe(20);
    expect(budget.run).toMatchObject({ iterations: 20, costUsd: 5 });
    expect(budget.outcomes).toEqual({ success: 10, failed: 10 });
  });
});
