// T02w, kill -9 chaos with workers: the built runner, 3 workers in git mode, SIGKILLed at random
// moments and restarted until the queue drains, on the file queue and on a Postgres queue.
// Nothing may be lost, stuck or left running, and every item's work must be on its own branch,
// with no worktree left behind.
// WORKERS_CHAOS_ITEMS and WORKERS_CHAOS_KILLS scale it (npm run test:stress).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { Item } from '../../src/queue/item.js';
import { filesAt, git, makeRepo } from '../support/git.js';
import { guardedWorkspace } from '../support/guarded.js';
import { startPostgres, type Postgres } from '../support/postgres.js';
import { ralph } from '../support/workspace.js';
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
// Kills come sooner than T02's: a queue in a database drains fast, and 100 kills must land.
const MAX_INTERVAL_MS = scale('WORKERS_CHAOS_MAX_INTERVAL_MS', 1500);
const BEHAVIOURS = [
  'work ms=150',
  'work commit=1 ms=300',
  'work ms=900',
  'fail-once',
  'work commit=1',
];

let postgres: Postgres | undefined;
afterAll(() => postgres?.close());

/** The queue of a workspace: its file's, or (with a database) one it imports its items to. */
async function queueOf(backend: 'file' | 'postgres'): Promise<{
  config: Record<string, unknown>;
  env: Record<string, string>;
  items?: () => Promise<Item[]>;
}> {
  if (backend === 'file') return { config: {}, env: {} };
  postgres ??= await startPostgres();
  const url = await postgres.database();
  const items = async (): Promise<Item[]> => {
    const db = new pg.Client({ connectionString: url });
    await db.connect();
    try {
      return (await db.query<{ doc: Item }>('SELECT doc FROM ralph_items ORDER BY seq')).rows.map(
        (r) => r.doc,
      );
    } finally {
      await db.end();
    }
  };
  return { config: { queue: { backend: 'postgres' } }, env: { RALPH_DATABASE_URL: url }, items };
}

/** The land gate: the merged tree has the project and every item file in it is an item's work. */
const LAND_GATE = [
  'sh',
  '-c',
  'test -f README.md && ! grep -L "^work of" w*.txt 2>/dev/null | grep .',
];

describe.each([
  { backend: 'file', landing: false },
  { backend: 'postgres', landing: false },
  { backend: 'file', landing: true },
] as const)(
  'T02w kill -9 chaos with 3 workers in git mode, $backend queue, landing $landing',
  ({ backend, landing }) => {
    it(`loses nothing over ${ITEMS} items and up to ${KILLS} kills, each item's work on its branch`, async () => {
      const repo = await makeRepo();
      const head = git(repo, 'rev-parse', 'HEAD');
      const queue = await queueOf(backend);
      const workspace = await guardedWorkspace({
        ...queue.config,
        defaults: { workDir: repo },
        git: { enabled: true },
        // Landing: each item's branch merged onto ralph/landed, the runner killed in landings too.
        ...(landing ? { land: { enabled: true, gates: [LAND_GATE] } } : {}),
        run: {
          maxConsecutiveFailures: 0,
          failureBackoffCap: 0,
          retryBackoffCap: 0,
          killGrace: '0.2s',
          workers: 3,
        },
      });
      const { root } = workspace;
      const env = { ...workspace.env, ...queue.env };
      const items = Array.from({ length: ITEMS }, (_, i) => ({
        id: `w${i}`,
        title: `chaos ${i}`,
        body: `#behave: ${BEHAVIOURS[i % BEHAVIOURS.length]}`,
        // Each restarted runner claims the first item in line first: on a loaded machine one
        // slow item can take most kills (a stress run saw w7 take 50 of 100, each attempt
        // counted, and fail). The poison-item bound is T32's to prove; here no item may fail
        // for the harness's kills alone.
        maxAttempts: KILLS + 10,
        // From main, as without landing: each branch holds its own work alone.
        ...(landing ? { base: 'main' } : {}),
        createdAt: new Date(Date.now() + i).toISOString(),
      }));
      const file = path.join(backend === 'file' ? path.join(root, 'state') : root, 'queue.json');
      fs.writeFileSync(file, JSON.stringify({ version: 1, items }));
      if (backend === 'postgres') {
        for (const args of [
          ['db', 'migrate'],
          ['queue', 'import', file],
        ]) {
          const done = await ralph(root, args, env);
          expect(done.code, done.stderr).toBe(0);
        }
        fs.rmSync(file);
      }
      const before = snapshot(root);
      const schedule = await killUntilDrained(root, env, KILLS, MAX_INTERVAL_MS);
      const kills = schedule.killed;
      const queued = await queue.items?.();
      const report = await checkInvariants(root, {
        ids: items.map((i) => i.id),
        before,
        cleanExit: true,
        terminal: ['done'],
        items: queued,
      });
      recordFigures({
        scenario: `T02w kill -9, 3 workers, git${backend === 'file' ? '' : ', pg'}${landing ? ', landing' : ''}`,
        items: ITEMS,
        kills,
        ...report,
      });
      // A broken invariant explains itself: the items, their state, and the schedule to replay.
      expect(
        report.problems,
        `CHAOS_SEED=${schedule.seed}, kills after ${schedule.killedAfterMs.join(', ')} ms\n${explainItems(root, report.problems, queued)}`,
      ).toEqual([]);

      // Each item's work on its branch and on no other; the repository's checkout untouched.
      for (const item of items) {
        const files = filesAt(repo, `ralph/${item.id}`).filter((f) => f !== 'README.md');
        expect(files, item.id).toEqual(item.body.includes('work') ? [`${item.id}.txt`] : []);
      }
      expect(git(repo, 'rev-parse', 'main')).toBe(head);
      expect(git(repo, 'status', '--porcelain')).toBe('');
      expect(fs.readdirSync(path.join(root, 'worktrees'))).toEqual([]);
      // The repository's checkout, and the worktree ralph keeps of the landing target.
      expect(git(repo, 'worktree', 'list').split('\n')).toHaveLength(landing ? 2 : 1);
      if (landing) expectLandedOnce(repo, root, items, queued);
    }, 900_000);
  },
);

/**
 * After a chaos night with landing: the target holds every item's work exactly once (one landed
 * commit a session, each item's landed commit on it), and its land gate passes on every commit
 * the target moved to.
 */
function expectLandedOnce(
  repo: string,
  root: string,
  items: readonly { id: string; body: string }[],
  queued: Item[] | undefined,
): void {
  const target = 'ralph/landed';
  const final =
    queued ??
    (
      JSON.parse(fs.readFileSync(path.join(root, 'state', 'queue.json'), 'utf8')) as {
        items: Item[];
      }
    ).items;
  const trailers = git(
    repo,
    'log',
    '--first-parent',
    '--format=%(trailers:key=Ralph-Session,valueonly)',
    target,
  )
    .split('\n')
    .filter(Boolean);
  expect(new Set(trailers).size, 'a session landed twice').toBe(trailers.length);
  // An item that changed nothing lands as it is, without a commit.
  expect(trailers).toHaveLength(items.filter((i) => i.body.includes('work')).length);
  const files = filesAt(repo, target).filter((f) => f !== 'README.md');
  expect(files).toEqual(
    items
      .filter((i) => i.body.includes('work'))
      .map((i) => `${i.id}.txt`)
      .sort(),
  );
  const history = git(repo, 'rev-list', '--first-parent', target).split('\n');
  for (const item of final) expect(history, item.id).toContain(item.landedCommit);
  const check = fs.mkdtempSync(path.join(os.tmpdir(), 'ralph-land-check-'));
  try {
    for (const commit of git(repo, 'rev-list', '--first-parent', `main..${target}`).split('\n')) {
      git(repo, 'worktree', 'add', '-q', '--detach', check, commit);
      const ran = spawnSync(LAND_GATE[0] as string, LAND_GATE.slice(1), { cwd: check });
      expect(ran.status, `the land gate on ${commit}`).toBe(0);
      git(repo, 'worktree', 'remove', '--force', check);
    }
  } finally {
    fs.rmSync(check, { recursive: true, force: true });
    git(repo, 'worktree', 'prune');
  }
}
