// T02w, kill -9 chaos with workers: the built runner, 3 workers in git mode, SIGKILLed at random
// moments and restarted until the queue drains. Nothing may be lost, stuck or left running, and
// every item's work must be on its own branch, with no worktree left behind.
// WORKERS_CHAOS_ITEMS and WORKERS_CHAOS_KILLS scale it (npm run test:stress).
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { filesAt, git, makeRepo } from '../support/git.js';
import { guardedWorkspace } from '../support/guarded.js';
import {
  checkInvariants,
  explainItems,
  killRunners,
  killUntilDrained,
  recordFigures,
  scale,
  snapshot,
} from './harness.js';

afterEach(killRunners);

const ITEMS = scale('WORKERS_CHAOS_ITEMS', 24);
const KILLS = scale('WORKERS_CHAOS_KILLS', 10);
const MAX_INTERVAL_MS = scale('CHAOS_MAX_INTERVAL_MS', 1500);
const BEHAVIOURS = [
  'work ms=150',
  'work commit=1 ms=300',
  'work ms=900',
  'fail-once',
  'work commit=1',
];

describe('T02w kill -9 chaos with 3 workers in git mode', () => {
  it(`loses nothing over ${ITEMS} items and up to ${KILLS} kills, each item's work on its branch`, async () => {
    const repo = await makeRepo();
    const head = git(repo, 'rev-parse', 'HEAD');
    const { root, env } = await guardedWorkspace({
      defaults: { workDir: repo },
      git: { enabled: true },
      run: {
        maxConsecutiveFailures: 0,
        failureBackoffCap: 0,
        retryBackoffCap: 0,
        killGrace: '0.2s',
        workers: 3,
      },
    });
    const items = Array.from({ length: ITEMS }, (_, i) => ({
      id: `w${i}`,
      title: `chaos ${i}`,
      body: `#behave: ${BEHAVIOURS[i % BEHAVIOURS.length]}`,
      maxAttempts: 50,
      createdAt: new Date(Date.now() + i).toISOString(),
    }));
    fs.writeFileSync(path.join(root, 'state', 'queue.json'), JSON.stringify({ version: 1, items }));
    const before = snapshot(root);
    const schedule = await killUntilDrained(root, env, KILLS, MAX_INTERVAL_MS);
    const kills = schedule.killed;
    const report = await checkInvariants(root, {
      ids: items.map((i) => i.id),
      before,
      cleanExit: true,
      terminal: ['done'],
    });
    recordFigures({ scenario: 'T02w kill -9, 3 workers, git', items: ITEMS, kills, ...report });
    // A broken invariant explains itself: the items, their state, and the schedule to replay.
    expect(
      report.problems,
      `CHAOS_SEED=${schedule.seed}, kills after ${schedule.killedAfterMs.join(', ')} ms\n${explainItems(root, report.problems)}`,
    ).toEqual([]);

    // Each item's work on its branch and on no other; the repository's checkout untouched.
    for (const item of items) {
      const files = filesAt(repo, `ralph/${item.id}`).filter((f) => f !== 'README.md');
      expect(files, item.id).toEqual(item.body.includes('work') ? [`${item.id}.txt`] : []);
    }
    expect(git(repo, 'rev-parse', 'main')).toBe(head);
    expect(git(repo, 'status', '--porcelain')).toBe('');
    expect(fs.readdirSync(path.join(root, 'worktrees'))).toEqual([]);
    expect(git(repo, 'worktree', 'list').split('\n')).toHaveLength(1);
  }, 900_000);
});
