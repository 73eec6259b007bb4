// T40 and T41, the fleet: three runners of three workspaces share one Postgres queue.
// T40: runners SIGKILLed at random and restarted at random, and the database itself stopped
// and started again twice, until the queue drains: nothing lost or stuck, no item done twice
// unless it was running at a kill, every attempt counted, every late settle fenced and logged.
// T41: ten `ralph add` processes on two workspaces while the three runners drain: none lost.
// FLEET_ITEMS, FLEET_KILLS, FLEET_OUTAGE_MS and FLEET_ADDS scale them (npm run test:stress).
// Each may take minutes on a loaded machine: their limit is the fleet draining, not a clock.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Item } from '../../src/queue/item.js';
import { sessionSurvivors } from '../support/processes.js';
import { guardedWorkspace } from '../support/guarded.js';
import { startPostgres, type Postgres } from '../support/postgres.js';
import { RALPH_BIN, ralph, tempDir } from '../support/workspace.js';
import { killRunners, recordFigures, scale, startRunner, type RunnerProcess } from './harness.js';

const ITEMS = scale('FLEET_ITEMS', 30);
const KILLS = scale('FLEET_KILLS', 6);
const OUTAGE_MS = scale('FLEET_OUTAGE_MS', 3000);
const ADDS = scale('FLEET_ADDS', 5);
const BEHAVIOURS = ['work ms=150', 'work ms=600', 'fail-once', 'work ms=300', 'work ms=1200'];

let postgres: Postgres;
beforeAll(async () => {
  postgres = await startPostgres();
});
afterAll(() => postgres.close());
afterEach(killRunners);

/** Three workspaces on one new database, their fake agents writing one ledger. */
async function fleet() {
  const url = await postgres.database();
  const shared = await tempDir('ralph-fleet-');
  const workspaces = [];
  for (let i = 0; i < 3; i++) {
    const { root, env } = await guardedWorkspace({
      queue: { backend: 'postgres', lease: '45s' },
      run: {
        maxConsecutiveFailures: 0,
        failureBackoffCap: 0,
        retryBackoffCap: 0,
        killGrace: '0.2s',
        pollInterval: '0.5s',
        workers: 2,
      },
    });
    workspaces.push({
      root,
      env: {
        ...env,
        RALPH_DATABASE_URL: url,
        FAKE_CLAUDE_LEDGER: path.join(shared, 'ledger.txt'),
        FAKE_CLAUDE_CALLS: path.join(shared, 'calls.jsonl'),
        FAKE_CLAUDE_STATE: shared,
      },
    });
  }
  const first = workspaces[0]!;
  const migrated = await ralph(first.root, ['db', 'migrate'], first.env);
  expect(migrated.code, migrated.stderr).toBe(0);
  // A connection each time: the database goes away and comes back.
  const items = async (): Promise<Item[]> => {
    const db = new pg.Client({ connectionString: url });
    // An outage that ends the connection mid-query also emits it as an event: the query's own
    // rejection says so, and an unheard event would crash the test process.
    db.on('error', () => undefined);
    await db.connect();
    try {
      const { rows } = await db.query<{ doc: Item }>('SELECT doc FROM ralph_items ORDER BY seq');
      return rows.map((r) => r.doc);
    } finally {
      await db.end();
    }
  };
  return { url, shared, workspaces, items };
}

const ledgerOf = (shared: string) => {
  const file = path.join(shared, 'ledger.txt');
  return fs.existsSync(file)
    ? fs
        .readFileSync(file, 'utf8')
        .trim()
        .split('\n')
        .filter(Boolean)
        .map((line) => line.split(' '))
    : [];
};

/** Whether every item is done or failed (false while the database cannot be read). */
async function finished(items: () => Promise<Item[]>): Promise<boolean> {
  const all = await items().catch(() => []);
  return all.length > 0 && all.every((i) => i.status === 'done' || i.status === 'failed');
}

/** Events of one kind in the logs of the workspaces. */
function logged(roots: string[], event: string): Record<string, unknown>[] {
  return roots.flatMap((root) => {
    const dir = path.join(root, 'state');
    return fs
      .readdirSync(dir)
      .filter((name) => name.startsWith('iteration.log'))
      .flatMap((name) => fs.readFileSync(path.join(dir, name), 'utf8').split('\n'))
      .filter((line) => line.includes(`"event":"${event}"`))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  });
}

/**
 * Keeps one `ralph run --drain` alive per workspace until `done()`: one that ends is started
 * again; `kills` of them are SIGKILLed at random moments and restarted after a random pause.
 */
async function keepRunning(
  workspaces: { root: string; env: Record<string, string> }[],
  done: () => Promise<boolean>,
  options: { kills: number; during?: () => Promise<void> },
): Promise<{ kills: number; exits: string[]; hung: string[] }> {
  const runners: (RunnerProcess | undefined)[] = workspaces.map(() => undefined);
  const exits: string[] = [];
  let kills = 0;
  let stopping = false;
  const start = (i: number) => {
    const { root, env } = workspaces[i]!;
    const runner = startRunner(root, env);
    runners[i] = runner;
    void runner.exited.then(({ code, signal }) => {
      if (runners[i] === runner) runners[i] = undefined;
      if (!stopping && signal !== 'SIGKILL' && code !== 0)
        exits.push(`${code}: ${runner.stderr()}`);
    });
  };
  workspaces.forEach((_, i) => start(i));
  const during = options.during?.();
  const deadline = Date.now() + 20 * 60_000;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error('the fleet did not drain in 20 minutes');
    await new Promise((resolve) => setTimeout(resolve, 200 + Math.random() * 800));
    const i = Math.floor(Math.random() * workspaces.length);
    const runner = runners[i];
    if (runner !== undefined && kills < options.kills && Math.random() < 0.4) {
      runner.child.kill('SIGKILL');
      kills++;
      await runner.exited;
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 1000));
    }
    workspaces.forEach((_, j) => runners[j] === undefined && start(j));
  }
  await during;
  stopping = true;
  // A drained run ends by itself once nothing is left, outages or not: one still running long
  // after (minutes, against a poll interval of a fraction of a second) never would.
  const hung: string[] = [];
  await Promise.all(
    runners.map(async (runner, i) => {
      if (runner === undefined) return;
      const ended = await Promise.race([
        runner.exited.then(() => true),
        new Promise<false>((resolve) => setTimeout(() => resolve(false), DRAINED_EXIT_MS)),
      ]);
      if (!ended) hung.push(`the runner of workspace ${i} did not end after the queue drained`);
    }),
  );
  for (const runner of runners) runner?.child.kill('SIGTERM');
  await Promise.all(runners.flatMap((runner) => (runner === undefined ? [] : [runner.exited])));
  return { kills, exits, hung };
}

/** How long a drained run may take to see that nothing is left and end: far past its polls. */
const DRAINED_EXIT_MS = 120_000;

describe('a fleet of three runners on one Postgres queue', () => {
  it(`T40 loses nothing over ${ITEMS} items, ${KILLS} kills and two database outages`, async () => {
    const { shared, workspaces, items } = await fleet();
    const all = Array.from({ length: ITEMS }, (_, i) => ({
      id: `f${i}`,
      title: `fleet ${i}`,
      body: `#behave: ${BEHAVIOURS[i % BEHAVIOURS.length]}`,
      maxAttempts: 50,
      createdAt: new Date(Date.now() + i).toISOString(),
    }));
    const file = path.join(shared, 'items.json');
    fs.writeFileSync(file, JSON.stringify({ version: 1, items: all }));
    const first = workspaces[0]!;
    expect((await ralph(first.root, ['queue', 'import', file], first.env)).code).toBe(0);

    let outages = 0;
    const { kills, exits, hung } = await keepRunning(workspaces, () => finished(items), {
      kills: KILLS,
      // Two outages, once a third and once two thirds of the items are done.
      during: async () => {
        for (const share of [1 / 3, 2 / 3]) {
          while ((await doneCount()) < ITEMS * share) await pause(300);
          postgres.stop();
          outages++;
          await pause(OUTAGE_MS);
          postgres.start();
        }
      },
    });
    async function doneCount() {
      return (await items().catch(() => [])).filter((i) => i.status === 'done').length;
    }
    const after = await items();

    const ids = new Set(after.map((i) => i.id));
    const lost = all.filter((i) => !ids.has(i.id)).length;
    const stuck = after.filter((i) => i.status !== 'done').length;
    const ledger = ledgerOf(shared);
    const problems: string[] = [...exits.map((e) => `a runner exited ${e}`), ...hung];
    const roots = workspaces.map((w) => w.root);
    // Items a kill cut off: requeued by their workspace's next runner, or taken back at the
    // expiry of their lease.
    const cutOff = new Set([
      ...logged(roots, 'items_requeued_after_crash').flatMap((e) => e.items as string[]),
      ...logged(roots, 'leases_expired').flatMap((e) => e.items as string[]),
    ]);
    let duplicates = 0;
    for (const item of after) {
      const starts = ledger.filter(([what, id]) => what === 'start' && id === item.id).length;
      const dones = ledger.filter(([what, id]) => what === 'done' && id === item.id);
      if (starts > item.sessions.length)
        problems.push(`${item.id}: ${starts} starts for ${item.sessions.length} claims`);
      // Done twice only when an earlier attempt was cut off by a kill.
      if (dones.length > 1) {
        duplicates++;
        if (!cutOff.has(item.id)) problems.push(`${item.id} done twice, never cut off by a kill`);
      }
      // The item's result is its last attempt's, never a fenced-off one's.
      if (!dones.some(([, , attempt]) => Number(attempt) === item.attempts))
        problems.push(`${item.id}: no done for its attempt ${item.attempts}`);
    }
    let orphans = 0;
    for (const sessionId of new Set(after.flatMap((i) => i.sessions)))
      orphans += (await sessionSurvivors(sessionId)).length;
    const fenced = logged(roots, 'settle_fenced');
    for (const event of fenced) {
      const item = after.find((i) => i.id === event.item);
      if (item === undefined || Number(event.attempt) >= item.attempts)
        problems.push(`a fenced settle of ${String(event.item)} was not for an older attempt`);
    }
    recordFigures({
      scenario: 'T40 fleet chaos, 2 outages',
      items: ITEMS,
      kills,
      lost,
      stuck,
      duplicates,
      orphans,
    });
    expect(outages).toBe(2);
    expect(logged(roots, 'queue_unreachable').length).toBeGreaterThan(0);
    expect({ lost, stuck, orphans, problems }).toEqual({
      lost: 0,
      stuck: 0,
      orphans: 0,
      problems: [],
    });
  }, 600_000);

  it(`T41 keeps every item of 10 concurrent adders on two workspaces while three runners drain`, async () => {
    const { workspaces, items } = await fleet();
    const adders = Array.from({ length: 10 }, (_, p) => {
      const { root, env } = workspaces[p % 2]!;
      return (async () => {
        for (let n = 0; n < ADDS; n++) {
          const code = await new Promise<number | null>((resolve) => {
            const child = spawn(
              process.execPath,
              [
                RALPH_BIN,
                '-C',
                root,
                'add',
                `Added ${p}-${n}`,
                '--id',
                `a${p}-${n}`,
                '--body',
                '#behave: work ms=50',
              ],
              { env: { ...process.env, ...env }, stdio: 'ignore' },
            );
            child.on('exit', resolve);
          });
          if (code !== 0) throw new Error(`ralph add a${p}-${n} exited ${code}`);
        }
      })();
    });
    let adding = true;
    const added = Promise.all(adders).finally(() => (adding = false));
    const { exits } = await keepRunning(
      workspaces,
      async () => !adding && (await finished(items)),
      { kills: 0 },
    );
    await added;
    const after = await items();
    const expected = 10 * ADDS;
    const lost = expected - new Set(after.map((i) => i.id)).size;
    const stuck = after.filter((i) => i.status !== 'done').length;
    recordFigures({ scenario: 'T41 fleet, 10 adders', items: expected, lost, stuck });
    expect({ lost, stuck, exits }).toEqual({ lost: 0, stuck: 0, exits: [] });
  }, 600_000);
});

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
