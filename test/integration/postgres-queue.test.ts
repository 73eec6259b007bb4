// What only the Postgres queue has: leases that expire and fence, the schema's versions, the
// notifications that wake runners, a database that goes away and comes back, and the
// commands that move a workspace onto it.
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { loadWorkspace } from '../../src/config/workspace.js';
import { UnavailableError } from '../../src/lib/errors.js';
import type { Item } from '../../src/queue/item.js';
import { openQueue } from '../../src/queue/open.js';
import { leaseOf } from '../../src/queue/lease.js';
import type { Queue } from '../../src/queue/queue.js';
import { inTransaction, openPool } from '../../src/queue/postgres/connection.js';
import { SCHEMA_VERSION, migrate } from '../../src/queue/postgres/migrations.js';
import { CLAIM } from '../../src/queue/postgres/claims.js';
import { claim } from '../../src/queue/transitions.js';
import { calls, guardedWorkspace, logEvents } from '../support/guarded.js';
import { git, makeRepo } from '../support/git.js';
import { brokenFileCi, startFakeGitHub } from '../support/fake-github.js';
import { startRunner } from '../support/runner.js';
import { queueItem } from '../support/items.js';
import { startPostgres, type Postgres } from '../support/postgres.js';
import { eventually } from '../support/wait.js';
import { isAlive } from '../support/processes.js';
import {
  makeWorkspace,
  ralph,
  readSessions,
  runningRecords,
  tempDir,
} from '../support/workspace.js';

const POLICY = { maxAttempts: 3, retryBackoffCapMs: 60_000, now: Date.now() };

const item = queueItem;

let postgres: Postgres;
beforeAll(async () => {
  postgres = await startPostgres();
});
afterAll(() => postgres.close());

async function migrated(url: string): Promise<void> {
  const pool = openPool(url, { backend: 'postgres', name: 'default', lease: 60 }, 1);
  await migrate(pool, 'test');
  await pool.end();
}

/** A Postgres workspace on a new database: its root, its env, and a way to open its queue. */
async function postgresWorkspace(queueConfig: Record<string, unknown> = {}) {
  const url = await postgres.database();
  await migrated(url);
  const root = await makeWorkspace({ queue: { backend: 'postgres', ...queueConfig } });
  const env = { RALPH_DATABASE_URL: url };
  const open = async (): Promise<Queue> => {
    const queue = await openQueue(await loadWorkspace(root), env, 2);
    onTestFinished(() => queue.close());
    return queue;
  };
  return { root, env, url, open };
}

const claimNow = (queue: Queue) =>
  queue.claim({
    sessionId: crypto.randomUUID(),
    now: Date.now(),
    busy: () => false,
    maxAttempts: 3,
  });

describe('the Postgres queue', () => {
  it('takes an item back when its lease expires, counts the attempt, and fences the late settle', async () => {
    const { open } = await postgresWorkspace({ lease: 3 });
    const [lost, next] = [await open(), await open()];
    await lost.importItems([item('a')]);
    const first = await claimNow(lost);
    expect(first.item).toMatchObject({ id: 'a', attempts: 1 });
    // Renewed every half second, the lease of 3 s holds past its length.
    for (let i = 0; i < 8; i++) {
      await new Promise((resolve) => setTimeout(resolve, 500));
      await lost.renew([leaseOf(first.item!)]);
      expect((await claimNow(next)).item).toBeUndefined();
    }
    // Its runner gone quiet, the next claim takes it back.
    let again: Awaited<ReturnType<typeof claimNow>> | undefined;
    await eventually(
      async () => {
        again = await claimNow(next);
        return again.item !== undefined;
      },
      20_000,
      'the expired lease taken back',
    );
    expect(again).toMatchObject({ expired: ['a'], item: { id: 'a', attempts: 2 } });
    const late = await lost.apply(first.item!.id, {
      kind: 'session_ended',
      lease: leaseOf(first.item!),
      settlement: { kind: 'succeeded', costUsd: 0 },
      policy: POLICY,
    });
    expect(late.kind).toBe('refused');
    const settled = await next.apply(again!.item!.id, {
      kind: 'session_ended',
      lease: leaseOf(again!.item!),
      settlement: { kind: 'succeeded', costUsd: 0 },
      policy: POLICY,
    });
    expect(settled).toMatchObject({ kind: 'applied', item: { status: 'done', attempts: 2 } });
  });

  it('claims in one statement exactly as the transition table claims an item', async () => {
    const { open } = await postgresWorkspace();
    const queue = await open();
    const past = new Date(Date.now() - 60_000).toISOString();
    const shapes = [
      item('interrupted', {
        status: 'interrupted',
        attempts: 1,
        sessions: ['s0'],
        conversationId: 'c1',
        costUsd: 0.25,
      }),
      item('retried', {
        attempts: 2,
        sessions: ['s1', 's2'],
        retryAfter: past,
        lastError: 'it failed',
        gateFailure: 'npm test: 1 failing',
      }),
      item('plain', { priority: -1, vars: { A: 'b' }, createdAt: past }),
    ];
    await queue.importItems(shapes);
    for (const before of shapes) {
      const sessionId = crypto.randomUUID();
      const now = Date.now();
      const claimed = await queue.claim({ sessionId, now, busy: () => false, maxAttempts: 3 });
      expect(claimed.item).toEqual(claim(before, sessionId, now));
    }
  });

  it('plans its claim once a connection: Postgres keeps a generic plan of it', async () => {
    // A claim planned anew each time (as a statement with an array parameter is, on a queue of
    // thousands) cost three times the claim itself.
    const { url, open } = await postgresWorkspace();
    const queue = await open();
    await queue.importItems(Array.from({ length: 5000 }, (_, i) => item(`i${i}`)));
    const db = new pg.Client({ connectionString: url });
    await db.connect();
    onTestFinished(() => db.end());
    await db.query('ANALYZE ralph_items');
    for (let i = 0; i < 10; i++) {
      const now = new Date();
      const { rows } = await db.query({
        name: 'ralph_claim',
        text: CLAIM,
        values: ['default', now, `s${i}`, 'runner', 'workspace', 60, now.toISOString()],
      });
      expect(rows).toHaveLength(1);
    }
    const { rows } = await db.query<{ generic_plans: string }>(
      "SELECT generic_plans FROM pg_prepared_statements WHERE name = 'ralph_claim'",
    );
    expect(Number(rows[0]?.generic_plans)).toBeGreaterThan(0);
  });

  it('puts back as it was an item whose work dir the runner uses, and claims the next', async () => {
    const { open } = await postgresWorkspace();
    const queue = await open();
    const past = new Date(Date.now() - 60_000).toISOString();
    const held = [
      item('held', { workDir: 'a', priority: 1 }),
      // What the claim overwrites, each field of it there to be put back.
      item('retried', {
        workDir: 'b',
        priority: 1,
        attempts: 1,
        sessions: ['s1'],
        retryAfter: past,
        startedAt: past,
        updatedAt: past,
        lastError: 'it failed',
      }),
      item('interrupted', { workDir: 'b', status: 'interrupted', attempts: 1, sessions: ['s2'] }),
    ];
    await queue.importItems([...held, item('free')]);
    const claimed = await queue.claim({
      sessionId: crypto.randomUUID(),
      now: Date.now(),
      busy: (i) => i.workDir === 'a' || i.workDir === 'b',
      maxAttempts: 3,
    });
    expect(claimed.item).toMatchObject({ id: 'free', attempts: 1 });
    const listed = await queue.list();
    for (const before of held) expect(listed.find((i) => i.id === before.id)).toEqual(before);
  });

  it('lets one runner of the fleet land onto a target at a time, and puts in line only from the status the table names', async () => {
    const { open } = await postgresWorkspace();
    const [a, b] = [await open(), await open()];
    const release = await a.lockAlone('ralph/landed');
    expect(release).toBeDefined();
    expect(await b.lockAlone('ralph/landed')).toBeUndefined();
    // Another target is another lock.
    const other = await b.lockAlone('main');
    expect(other).toBeDefined();
    await other?.();
    await release?.();
    const then = await b.lockAlone('ralph/landed');
    expect(then).toBeDefined();
    await then?.();
    await a.importItems([item('x', { status: 'done', branch: 'ralph/x' }), item('y')]);
    expect(await a.apply('y', { kind: 'sent_to_land', now: 0 })).toMatchObject({ kind: 'refused' });
    await a.apply('x', { kind: 'sent_to_land', now: 0 });
    expect((await b.inStatus('landing')).map((i) => i.id)).toEqual(['x']);
  });

  it('stops claiming, saying why, once the database is migrated past what it knows', async () => {
    const { open, url } = await postgresWorkspace();
    const queue = await open();
    await queue.importItems([item('a')]);
    const db = new pg.Client({ connectionString: url });
    await db.connect();
    await db.query(
      "INSERT INTO ralph_migrations (version, name) VALUES ($1, 'from a newer ralph')",
      [SCHEMA_VERSION + 1],
    );
    await db.end();
    await expect(claimNow(queue)).rejects.toThrow(
      `has schema version ${SCHEMA_VERSION + 1}, newer than this ralph knows (${SCHEMA_VERSION})`,
    );
    expect((await queue.list())[0]).toMatchObject({ status: 'pending', attempts: 0 });
  });

  it('holds at most its workers and two more connections, and one listener', async () => {
    const url = await postgres.database();
    await migrated(url);
    const { root, env } = await guardedWorkspace({
      ...postgresConfig(),
      run: { workers: 3, failureBackoffCap: 0, maxConsecutiveFailures: 0 },
    });
    const gate = path.join(root, 'gate');
    // Three work dirs: items sharing one never run at once.
    for (const id of ['a', 'b', 'c']) {
      fs.mkdirSync(path.join(root, id));
      const args = [
        'add',
        id,
        '--id',
        id,
        '--work-dir',
        id,
        '--body',
        `#behave: gated gate=${gate}`,
      ];
      await ralph(root, args, { ...env, RALPH_DATABASE_URL: url });
    }
    const runner = startRunner(root, { ...env, RALPH_DATABASE_URL: url }, '--drain');
    onTestFinished(() => void runner.child.kill('SIGKILL'));
    const db = new pg.Client({ connectionString: url });
    await db.connect();
    onTestFinished(() => db.end());
    const count = async () =>
      Number(
        (
          await db.query<{ n: string }>(
            "SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'ralph'",
          )
        ).rows[0]?.n,
      );
    await eventually(() => calls(root).length === 3, 20_000, 'three agents running');
    // 3 workers: a pool of 3 + 2, and the listener.
    expect(await count()).toBeLessThanOrEqual(6);
    fs.writeFileSync(gate, '');
    expect(await runner.exited).toBe(0);
  });

  it('migrates a pull request that waited for review to awaiting_merge, in its column and its document', async () => {
    const { url, open } = await postgresWorkspace();
    const queue = await open();
    await queue.importItems([queueItem('pr', { status: 'done' })]);
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    onTestFinished(() => admin.end());
    // As a database of schema 9 held it.
    await admin.query(
      `UPDATE ralph_items SET status = 'awaiting_review', doc = jsonb_set(doc, '{status}', '"awaiting_review"') WHERE id = 'pr'`,
    );
    await admin.query('DELETE FROM ralph_migrations WHERE version >= 10');
    await migrated(url);
    const { rows } = await admin.query<{ status: string; doc: { status: string } }>(
      "SELECT status, doc FROM ralph_items WHERE id = 'pr'",
    );
    expect(rows.map((row) => [row.status, row.doc.status])).toEqual([
      ['awaiting_merge', 'awaiting_merge'],
    ]);
    expect((await queue.inStatus('awaiting_merge')).map((item) => item.id)).toEqual(['pr']);
  });

  it('migrates under a lock once however many start at once, and refuses a schema it does not know', async () => {
    const url = await postgres.database();
    const config = { backend: 'postgres' as const, name: 'default', lease: 60 };
    const pools = Array.from({ length: 4 }, () => openPool(url, config, 1));
    const results = await Promise.all(pools.map((pool) => migrate(pool, 'test')));
    expect(results.flatMap((r) => r.applied)).toHaveLength(SCHEMA_VERSION);
    await Promise.all(pools.map((pool) => pool.end()));

    const root = await makeWorkspace({ queue: { backend: 'postgres' } });
    const env = { RALPH_DATABASE_URL: url };
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    onTestFinished(() => admin.end());
    await admin.query(
      "INSERT INTO ralph_migrations (version, name) VALUES (99, 'from the future')",
    );
    const newer = await ralph(root, ['queue'], env);
    expect(newer.code).toBe(2);
    expect(newer.stderr).toContain(
      `has schema version 99, newer than this ralph knows (${SCHEMA_VERSION}): upgrade ralph`,
    );
    await admin.query('DELETE FROM ralph_migrations');
    const older = await ralph(root, ['queue'], env);
    expect(older.stderr).toContain(
      `has schema version 0; this ralph needs ${SCHEMA_VERSION}: run "ralph db migrate"`,
    );
  });

  it('tells a subscriber at once when another process changes the queue', async () => {
    const { open } = await postgresWorkspace();
    const [runner, adder] = [await open(), await open()];
    const told: string[] = [];
    runner.subscribe((cause) => told.push(cause));
    // Said once on listening: changes may have been missed before.
    await eventually(() => told.includes('listening'), 20_000, 'listening');
    await adder.add(item('new'), {
      replace: false,
      replaceFlag: '--replace',
      check: () => undefined,
    });
    // Told by the database's NOTIFY, not by a listener that connected again.
    await eventually(() => told.includes('changed'), 20_000, 'a notification');
    expect(told.filter((cause) => cause === 'listening')).toHaveLength(1);
  });

  it('says the database cannot be reached, without its password, and works again once it is back', async () => {
    const { open, url } = await postgresWorkspace();
    const queue = await open();
    await queue.importItems([item('a')]);
    let told = 0;
    queue.subscribe(() => told++);
    await eventually(() => told >= 1, 20_000, 'a notification');
    postgres.stop();
    try {
      const error = await claimNow(queue).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(UnavailableError);
      const password = decodeURIComponent(new URL(url).password);
      expect((error as Error).message).toContain(
        "the queue's database postgres://ralph:***@127.0.0.1",
      );
      expect((error as Error).message).not.toContain(password);
    } finally {
      postgres.start();
    }
    const before = told;
    expect((await claimNow(queue)).item?.id).toBe('a');
    // The listener connected again, and said so (changes may have been missed meanwhile).
    await eventually(() => told > before, 20_000, 'a notification');
  });

  it('moves a workspace onto Postgres: db migrate, queue import, a drained run, queue export', async () => {
    const { root, env } = await guardedWorkspace();
    for (const id of ['one', 'two'])
      expect((await ralph(root, ['add', `Item ${id}`, '--id', id], env)).code).toBe(0);
    const url = await postgres.database();
    const config = path.join(root, 'ralph.config.json');
    const current = JSON.parse(fs.readFileSync(config, 'utf8')) as Record<string, unknown>;
    fs.writeFileSync(config, JSON.stringify({ ...current, queue: { backend: 'postgres' } }));
    const pgEnv = { ...env, RALPH_DATABASE_URL: url };

    const migration = await ralph(root, ['db', 'migrate'], pgEnv);
    expect(migration.code, migration.stderr).toBe(0);
    expect(migration.stdout).toMatch(/schema version 0 → \d+/);
    expect((await ralph(root, ['db', 'migrate'], pgEnv)).stdout).toMatch(/up to date/);
    const imported = await ralph(
      root,
      ['queue', 'import', path.join(root, 'state', 'queue.json')],
      pgEnv,
    );
    expect(imported.code, imported.stderr).toBe(0);
    expect(imported.stdout).toMatch(
      /^2 items imported into postgres:\/\/ralph:\*\*\*@127\.0\.0\.1:\d+\/\w+ \(queue "default"\)$/,
    );
    const run = await ralph(root, ['run', '--drain'], pgEnv);
    expect(run.code, run.stderr).toBe(0);
    const exported = await ralph(root, ['queue', 'export'], pgEnv);
    const { items } = JSON.parse(exported.stdout) as { items: Item[] };
    expect(items.map((i) => [i.id, i.status, i.attempts])).toEqual([
      ['one', 'done', 1],
      ['two', 'done', 1],
    ]);
    // The database URL is a secret: never in the agent's environment, nor in what ralph wrote.
    for (const call of calls(root)) expect(call).not.toContain('RALPH_DATABASE_URL');
    const password = decodeURIComponent(new URL(url).password);
    for (const out of [migration, imported, run, exported])
      expect(out.stdout + out.stderr).not.toContain(password);
    expect(fs.readFileSync(path.join(root, 'state', 'iteration.log'), 'utf8')).not.toContain(
      password,
    );
  });

  it("shows the fleet: its runners in status, every machine's sessions, where another's archive is", async () => {
    const url = await postgres.database();
    await migrated(url);
    const [a, b] = [
      await guardedWorkspace(postgresConfig()),
      await guardedWorkspace(postgresConfig()),
    ];
    const envA = { ...a.env, RALPH_DATABASE_URL: url };
    const envB = { ...b.env, RALPH_DATABASE_URL: url };
    expect((await ralph(a.root, ['add', 'First', '--id', 'first'], envA)).code).toBe(0);
    expect((await ralph(a.root, ['run', '--drain'], envA)).code).toBe(0);
    expect((await ralph(b.root, ['add', 'Second', '--id', 'second'], envB)).code).toBe(0);
    // A runner of B, left running (idle) to be seen in the runners table.
    const runner = startRunner(b.root, envB);
    onTestFinished(() => void runner.child.kill('SIGKILL'));
    await eventually(
      async () => {
        const report = JSON.parse((await ralph(a.root, ['status', '--json'], envA)).stdout) as {
          queue: { done: number };
          fleet: { runners: { items: string[] }[] };
        };
        return report.queue.done === 2 && report.fleet.runners.length === 1;
      },
      20_000,
      "B's item done, and B's runner in the runners table",
    );
    const status = await ralph(a.root, ['status'], envA);
    expect(status.stdout).toMatch(
      /^Queue: +0 pending, 0 running, 2 done, .* \(postgres:\/\/ralph:\*\*\*@127\.0\.0\.1:\d+\/\w+ \(queue "default"\)\)$/m,
    );
    expect(status.stdout).toMatch(
      new RegExp(
        `^Fleet: +1 runner\n +${os.hostname()} pid \\d+, 1 worker, ${b.root}: idle, heartbeat`,
        'm',
      ),
    );
    const sessions = await ralph(a.root, ['sessions'], envA);
    expect(sessions.stdout).toMatch(/^SESSION .* CLI +HOST$/m);
    expect(sessions.stdout.match(new RegExp(` claude +${os.hostname()}$`, 'gm'))).toHaveLength(2);
    const report = JSON.parse((await ralph(b.root, ['report', '--json'], envB)).stdout) as {
      byItem: { key: string }[];
    };
    expect(report.byItem.map((g) => g.key).sort()).toEqual(['first', 'second']);
    const elsewhere = await ralph(a.root, ['logs', 'second'], envA);
    expect(elsewhere.code).toBe(2);
    expect(elsewhere.stderr).toMatch(
      new RegExp(
        `ran on ${os.hostname()}, in another workspace: its archive is there, ${b.root}/docs/sessions/[0-9a-f-]{36}\\.ndjson`,
      ),
    );
    expect((await ralph(a.root, ['logs', 'first'], envA)).code).toBe(0);
  });

  it('pauses and resumes every runner of the fleet, and holds the fleet to its daily cap', async () => {
    const url = await postgres.database();
    await migrated(url);
    const { root, env } = await guardedWorkspace(postgresConfig({ maxDailyCostUsd: 0.015 }));
    const pgEnv = { ...env, RALPH_DATABASE_URL: url };
    for (const id of ['one', 'two', 'three'])
      expect(
        (
          await ralph(
            root,
            ['add', `Item ${id}`, '--id', id, '--body', '#behave: slow ms=300'],
            pgEnv,
          )
        ).code,
      ).toBe(0);
    const paused = await ralph(root, ['pause', '--fleet', 'maintenance'], pgEnv);
    expect(paused.stdout).toMatch(/^Paused the fleet of postgres:\/\/ralph:\*\*\*@/);
    // A drained run on a paused fleet ends at once, saying so (exit 6).
    const held = await ralph(root, ['run', '--drain'], pgEnv);
    expect(held.code).toBe(6);
    expect(held.stderr).toMatch(
      /the night is paused: ralph: the fleet is paused \(by .*@.*\): maintenance/,
    );
    expect((await ralph(root, ['resume', '--fleet'], pgEnv)).stdout).toMatch(
      /^Resumed the fleet \(was paused by .*: maintenance\)/,
    );
    // The resume lifted the pause the fleet had written here, once a runner sees it.
    const run = await ralph(root, ['run', '--drain'], pgEnv);
    expect(run.code, run.stderr).toBe(0);
    // $0.01 a session: the second one reaches the cap of $0.015, and nothing more starts today.
    const items = JSON.parse((await ralph(root, ['queue', '--json'], pgEnv)).stdout) as Item[];
    expect(items.map((i) => i.status)).toEqual(['done', 'done', 'pending']);
    expect(fs.readFileSync(path.join(root, 'state', 'iteration.log'), 'utf8')).toContain(
      'the fleet has spent $0.0200 today (UTC) of its $0.015 daily cap',
    );
  });

  it("holds a reviewer to the fleet's daily cap as an author: nothing approved past it", async () => {
    const url = await postgres.database();
    await migrated(url);
    const repo = await makeRepo();
    const { root, env } = await guardedWorkspace({
      ...postgresConfig({ maxDailyCostUsd: 0.005 }),
      defaults: { workDir: repo },
      git: { enabled: true },
      review: { enabled: true },
    });
    const pgEnv = { ...env, RALPH_DATABASE_URL: url };
    await ralph(
      root,
      ['add', 'Capped', '--id', 'capped', '--body', '#behave: work commit=1\n#review: approve'],
      pgEnv,
    );
    // The author's $0.01 reaches the cap of $0.005: its reviewer is not paid for.
    const run = await ralph(root, ['run', '--drain'], pgEnv);
    expect(run.code, run.stderr).toBe(0);
    const [capped] = JSON.parse((await ralph(root, ['queue', '--json'], pgEnv)).stdout) as Item[];
    expect(capped).toMatchObject({ status: 'reviewing' });
    expect(capped?.unreviewed).toMatch(/daily cap \(queue\.maxDailyCostUsd\)/);
    expect(capped?.verdict).toBeUndefined();
  });

  it('exits 0 from a drained run when another runner of the fleet retried what failed here', async () => {
    const url = await postgres.database();
    await migrated(url);
    const run = { failureBackoffCap: 0, retryBackoffCap: '2s', pollInterval: '0.2s' };
    const config = { ...postgresConfig(), run: { ...run, maxConsecutiveFailures: 0 } };
    const [a, b] = [await guardedWorkspace(config), await guardedWorkspace(config)];
    const [envA, envB] = [
      { ...a.env, RALPH_DATABASE_URL: url },
      { ...b.env, RALPH_DATABASE_URL: url },
    ];
    const gate = path.join(a.root, 'gate');
    const add = (id: string, body: string, priority: string) =>
      ralph(a.root, ['add', id, '--id', id, '--body', body, '--priority', priority], envA);
    expect((await add('f', '#behave: fail-once', '2')).code).toBe(0);
    expect((await add('g', `#behave: gated gate=${gate}`, '1')).code).toBe(0);
    const doc = async (id: string) => {
      const db = new pg.Client({ connectionString: url });
      await db.connect();
      try {
        return (await db.query<{ doc: Item }>('SELECT doc FROM ralph_items WHERE id = $1', [id]))
          .rows[0]?.doc;
      } finally {
        await db.end();
      }
    };
    // A's one worker: f fails and waits out its backoff while A runs g until the gate opens.
    const runnerA = startRunner(a.root, envA, '--drain');
    onTestFinished(() => void runnerA.child.kill('SIGKILL'));
    await eventually(async () => (await doc('g'))?.status === 'running', 20_000, 'A runs g');
    expect(await doc('f')).toMatchObject({ status: 'pending', attempts: 1 });
    // B, the only runner free when f's backoff ends, retries it and it succeeds.
    const runnerB = startRunner(b.root, envB, '--drain');
    onTestFinished(() => void runnerB.child.kill('SIGKILL'));
    await eventually(async () => (await doc('f'))?.status === 'done', 20_000, 'B retries f');
    fs.writeFileSync(gate, '');
    expect(await runnerA.exited).toBe(0);
    expect(await runnerB.exited).toBe(0);
    expect(await doc('g')).toMatchObject({ status: 'done' });
  });

  it('lands onto one target from two runners of the fleet, one landing at a time, each item once', async () => {
    const url = await postgres.database();
    await migrated(url);
    const repo = await makeRepo();
    const shared = await tempDir('ralph-landers-');
    // The land gate holds a lock of its own for its run: a landing beside another fails it.
    const gate = [
      'sh',
      '-c',
      `mkdir ${shared}/held 2>/dev/null || { echo overlap >> ${shared}/seen; exit 1; }; echo in >> ${shared}/seen; sleep 0.2; rmdir ${shared}/held`,
    ];
    const config = {
      ...postgresConfig(),
      defaults: { workDir: repo },
      git: { enabled: true },
      land: { enabled: true, gates: [gate] },
    };
    const [a, b] = [await guardedWorkspace(config), await guardedWorkspace(config)];
    const [envA, envB] = [
      { ...a.env, RALPH_DATABASE_URL: url },
      { ...b.env, RALPH_DATABASE_URL: url },
    ];
    const ids = ['l1', 'l2', 'l3', 'l4', 'l5', 'l6', 'l7', 'l8'];
    for (const id of ids)
      expect(
        (
          await ralph(
            a.root,
            ['add', id, '--id', id, '--body', `#behave: land file=${id}.txt`],
            envA,
          )
        ).code,
      ).toBe(0);
    const runners = [
      startRunner(a.root, envA, '--drain', '--workers', '2'),
      startRunner(b.root, envB, '--drain', '--workers', '2'),
    ];
    for (const r of runners) onTestFinished(() => void r.child.kill('SIGKILL'));
    expect(await Promise.all(runners.map((r) => r.exited))).toEqual([0, 0]);
    const exported = await ralph(a.root, ['queue', 'export'], envA);
    const { items } = JSON.parse(exported.stdout) as { items: Item[] };
    for (const i of items)
      expect(i, i.id).toMatchObject({ status: 'done', landedOn: 'ralph/landed' });
    // Every item on the target once; no landing beside another (the gate's lock, and no
    // compare-and-swap that found the target moved under it).
    const trailers = git(
      repo,
      'log',
      '--format=%(trailers:key=Ralph-Session,valueonly)',
      'ralph/landed',
    )
      .split('\n')
      .filter(Boolean);
    expect(trailers.sort()).toEqual(items.map((i) => i.sessions.at(-1)).sort());
    expect(fs.readFileSync(path.join(shared, 'seen'), 'utf8')).not.toContain('overlap');
    const landings = [a.root, b.root].flatMap((root) => logEvents(root));
    expect(landings.filter((e) => e.event === 'landed')).toHaveLength(ids.length);
    expect(landings.filter((e) => e.event === 'land_retried' || e.event === 'land_failed')).toEqual(
      [],
    );
  });

  it("shares one item's candidates between two runners of the fleet, each candidate run once, the pick made once", async () => {
    const url = await postgres.database();
    await migrated(url);
    const repo = await makeRepo();
    const config = {
      ...postgresConfig(),
      defaults: { workDir: repo },
      git: { enabled: true },
      land: { enabled: true },
    };
    const [a, b] = [await guardedWorkspace(config), await guardedWorkspace(config)];
    const [envA, envB] = [
      { ...a.env, RALPH_DATABASE_URL: url },
      { ...b.env, RALPH_DATABASE_URL: url },
    ];
    const added = await ralph(
      a.root,
      [
        'add',
        'Tried thrice',
        '--id',
        't',
        '--body',
        '#behave: work commit=1 ms=300\n#judge: prefer text=t.c.txt',
        '--candidates',
        'claude:one,claude:two,claude:three',
      ],
      envA,
    );
    expect(added.code, added.stderr).toBe(0);
    const runners = [startRunner(a.root, envA, '--drain'), startRunner(b.root, envB, '--drain')];
    for (const r of runners) onTestFinished(() => void r.child.kill('SIGKILL'));
    expect(await Promise.all(runners.map((r) => r.exited))).toEqual([0, 0]);
    const exported = await ralph(a.root, ['queue', 'export'], envA);
    const { items } = JSON.parse(exported.stdout) as { items: Item[] };
    const t = items.find((i) => i.id === 't');
    expect(t).toMatchObject({ status: 'done', landedOn: 'ralph/landed', branch: 'ralph/t.c' });
    for (const id of ['t.a', 't.b', 't.c'])
      expect(items.find((i) => i.id === id)?.sessions).toHaveLength(1);
    // One judge across the fleet.
    const judges = [...readSessions(a.root), ...readSessions(b.root)].filter(
      (s) => s.role === 'judge',
    );
    expect(judges).toHaveLength(1);
    expect(git(repo, 'ls-tree', '--name-only', 'ralph/landed')).toContain('t.c.txt');
  });

  it("opens each item's pull request once from two runners of the fleet, and tends its checks across them", async () => {
    const url = await postgres.database();
    await migrated(url);
    const repo = await makeRepo();
    const bare = path.join(await tempDir('ralph-remote-'), 'remote.git');
    git(repo, 'clone', '-q', '--bare', repo, bare);
    git(repo, 'remote', 'add', 'origin', bare);
    const github = await startFakeGitHub({ bare });
    onTestFinished(() => github.close());
    github.checksFor = brokenFileCi(bare);
    const config = {
      ...postgresConfig(),
      defaults: { workDir: repo },
      git: { enabled: true },
      forge: {
        kind: 'github',
        apiUrl: github.url,
        repo: 'acme/app',
        checks: { poll: 0.05 },
        writeInterval: 0.01,
      },
    };
    const [a, b] = [await guardedWorkspace(config), await guardedWorkspace(config)];
    const token = { GITHUB_TOKEN: 'test-token-0123456789' };
    const [envA, envB] = [
      { ...a.env, ...token, RALPH_DATABASE_URL: url },
      { ...b.env, ...token, RALPH_DATABASE_URL: url },
    ];
    const ids = ['p1', 'p2', 'p3', 'p4'];
    for (const [n, id] of ids.entries())
      expect(
        (
          await ralph(
            a.root,
            ['add', id, '--id', id, '--body', `#behave: ci${n % 2 === 0 ? ' broken=1' : ''}`],
            envA,
          )
        ).code,
      ).toBe(0);
    const runners = [startRunner(a.root, envA, '--drain'), startRunner(b.root, envB, '--drain')];
    for (const r of runners) onTestFinished(() => void r.child.kill('SIGKILL'));
    expect(await Promise.all(runners.map((r) => r.exited))).toEqual([0, 0]);
    const exported = await ralph(a.root, ['queue', 'export'], envA);
    const { items } = JSON.parse(exported.stdout) as { items: Item[] };
    for (const i of items)
      expect(i, i.id).toMatchObject({ status: 'awaiting_merge', lastOutcome: 'ready_to_merge' });
    // One pull request an item, whichever runner opened it or read its checks.
    expect(github.pulls.map((p) => p.head).sort()).toEqual(ids.map((id) => `ralph/${id}`));
    expect(items.filter((i) => i.checkRounds === 1).map((i) => i.id)).toEqual(['p1', 'p3']);
    const status = await ralph(a.root, ['status'], envA);
    expect(status.stdout).toContain('Pull requests: #');
    expect(
      status.stdout.match(/ready to merge: https:\/\/github\.example\/acme\/app\/pull\/\d/g),
    ).toHaveLength(4);
  });

  it('fences a runner cut off past its lease: another runs the item, the late settle is refused and logged', async () => {
    const url = await postgres.database();
    await migrated(url);
    const proxy = await startProxy(Number(new URL(url).port));
    onTestFinished(() => proxy.close());
    const throughProxy = new URL(url);
    throughProxy.port = String(proxy.port);
    const [a, b] = [
      await guardedWorkspace(postgresConfig({ lease: '2s' })),
      await guardedWorkspace(postgresConfig({ lease: '2s' })),
    ];
    const envA = { ...a.env, RALPH_DATABASE_URL: throughProxy.toString() };
    const envB = { ...b.env, RALPH_DATABASE_URL: url };
    expect(
      (await ralph(a.root, ['add', 'Slow', '--id', 'x', '--body', '#behave: slow ms=5000'], envA))
        .code,
    ).toBe(0);
    const runnerA = startRunner(a.root, envA, '--drain');
    onTestFinished(() => void runnerA.child.kill('SIGKILL'));
    const item = async () => {
      const db = new pg.Client({ connectionString: url });
      await db.connect();
      try {
        return (await db.query<{ doc: Item }>("SELECT doc FROM ralph_items WHERE id = 'x'")).rows[0]
          ?.doc;
      } finally {
        await db.end();
      }
    };
    await eventually(async () => (await item())?.status === 'running', 20_000, 'A claims x');
    await eventually(
      async () => Promise.resolve(runningRecords(a.root).length === 1),
      20_000,
      "A's session starts",
    );
    const agentA = runningRecords(a.root)[0]!.pid;
    // A loses the network: its lease runs out, and B takes the item over.
    proxy.cut();
    const runnerB = startRunner(b.root, envB, '--drain');
    onTestFinished(() => void runnerB.child.kill('SIGKILL'));
    await eventually(async () => (await item())?.attempts === 2, 30_000, 'B claims x again');
    // A's session ends meanwhile (its agent gone); its settle waits for the database, then is
    // refused. Restored sooner, A would find its lease lost while the session still ran.
    await eventually(async () => !(await isAlive(agentA)), 30_000, "A's session ended");
    proxy.restore();
    expect(await runnerA.exited).toBe(0);
    expect(await runnerB.exited).toBe(0);
    const fenced = fs
      .readFileSync(path.join(a.root, 'state', 'iteration.log'), 'utf8')
      .split('\n')
      .filter((line) => line.includes('"event":"settle_fenced"'))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(fenced).toMatchObject([{ item: 'x', attempt: 1, settlement: 'succeeded' }]);
    expect(await item()).toMatchObject({ status: 'done', attempts: 2 });
  });
});

/** The workspace configuration of a Postgres queue (and quick guards for the fake agent). */
function postgresConfig(queue: Record<string, unknown> = {}) {
  return { queue: { backend: 'postgres', lease: '3s', ...queue } };
}

/** A TCP relay to the database that can be cut (every connection dropped, new ones refused). */
async function startProxy(target: number) {
  const sockets = new Set<net.Socket>();
  let cut = false;
  const server = net.createServer((client) => {
    if (cut) {
      client.destroy();
      return;
    }
    const upstream = net.connect(target, '127.0.0.1');
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => undefined);
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    cut() {
      cut = true;
      for (const socket of sockets) socket.destroy();
    },
    restore() {
      cut = false;
    },
    close() {
      for (const socket of sockets) socket.destroy();
      server.close();
    },
  };
}

describe('a transaction whose connection the server ends', () => {
  it('fails the transaction, never the process (an unhandled error event)', async () => {
    const url = await postgres.database();
    const pool = openPool(url, { backend: 'postgres', name: 'default', lease: 60 }, 2);
    onTestFinished(() => pool.end());
    const ended = inTransaction(pool, async (client) => {
      const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
      // Another connection ends this one between two queries, as an outage does.
      await pool.query('SELECT pg_terminate_backend($1)', [rows[0]!.pid]);
      await new Promise((resolve) => setTimeout(resolve, 200));
      await client.query('SELECT 1');
    });
    await expect(ended).rejects.toThrow();
    expect((await pool.query<{ one: number }>('SELECT 1 AS one')).rows[0]?.one).toBe(1);
  });
});
