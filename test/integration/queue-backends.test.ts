// One behavioural suite, two backends: the queue file and a real Postgres (started by the suite)
// answer every operation the same way.
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { loadWorkspace } from '../../src/config/workspace.js';
import type { Item } from '../../src/queue/item.js';
import { openQueue } from '../../src/queue/open.js';
import { leaseOf, type Lease } from '../../src/queue/lease.js';
import type { Queue } from '../../src/queue/queue.js';
import type { Settlement } from '../../src/queue/transitions.js';
import { migrate } from '../../src/queue/postgres/migrations.js';
import { openPool } from '../../src/queue/postgres/connection.js';
import { queueItem } from '../support/items.js';
import { lifecyclePairs } from '../support/lifecycle-cases.js';
import { startPostgres, type Postgres } from '../support/postgres.js';
import { makeWorkspace } from '../support/workspace.js';

const NOW = Date.parse('2026-11-23T22:00:00.000Z');
const POLICY = { maxAttempts: 3, retryBackoffCapMs: 30 * 60_000, now: NOW };

const item = (id: string, fields: Partial<Item> = {}) =>
  queueItem(id, { createdAt: new Date(NOW - 60_000).toISOString(), ...fields });

const noCheck = { replace: false, replaceFlag: '--replace', check: () => undefined };

let postgres: Postgres;
beforeAll(async () => {
  postgres = await startPostgres();
});
afterAll(() => postgres.close());

/** A workspace on `backend`, its queue open (a database of its own for Postgres). */
async function backendQueue(
  backend: 'file' | 'postgres',
  queueConfig: Record<string, unknown> = {},
): Promise<{ queue: Queue; reopen: () => Promise<Queue>; url?: string }> {
  const url = backend === 'postgres' ? await postgres.database() : undefined;
  const root = await makeWorkspace({ queue: { backend, ...queueConfig } });
  const workspace = await loadWorkspace(root);
  const env = { RALPH_DATABASE_URL: url };
  if (url !== undefined) {
    const pool = openPool(url, workspace.config.queue, 1);
    await migrate(pool, 'test');
    await pool.end();
  }
  const opened: Queue[] = [];
  const reopen = async () => {
    const queue = await openQueue(workspace, env, 4);
    opened.push(queue);
    return queue;
  };
  const queue = await reopen();
  onTestFinished(() => Promise.all(opened.map((q) => q.close())).then(() => undefined));
  return { queue, reopen, url };
}

const claimAt = (queue: Queue, now = NOW, busy: (item: Item) => boolean = () => false) =>
  queue.claim({ sessionId: crypto.randomUUID(), now, busy, maxAttempts: 3 });

/** A session's end, as its runner applies it. */
const settleOn = (queue: Queue, lease: Lease, settlement: Settlement, policy: typeof POLICY) =>
  queue.apply(lease.itemId, { kind: 'session_ended', lease, settlement, policy });

describe.each(['file', 'postgres'] as const)('the %s queue', (backend) => {
  it('adds, lists in order, refuses a second item of one id unless replaced', async () => {
    const { queue } = await backendQueue(backend);
    await queue.add(item('a'), noCheck);
    await queue.add(item('b'), noCheck);
    await expect(queue.add(item('a'), noCheck)).rejects.toThrow(
      'an item with id "a" is already queued (use --replace)',
    );
    await queue.add(item('a', { title: 'Again' }), { ...noCheck, replace: true });
    expect((await queue.list()).map((i) => [i.id, i.title])).toEqual([
      ['a', 'Again'],
      ['b', 'Item b'],
    ]);
    const before = (await queue.snapshot()).version;
    await queue.add(item('c'), noCheck);
    expect((await queue.snapshot()).version).toBeGreaterThan(before);
  });

  it('claims interrupted items first, then by priority, then oldest, then in queue order', async () => {
    const { queue } = await backendQueue(backend);
    const at = (minutes: number) => new Date(NOW - minutes * 60_000).toISOString();
    await queue.importItems([
      item('old-low', { createdAt: at(30) }),
      item('new-high', { priority: 5, createdAt: at(1) }),
      item('old-high', { priority: 5, createdAt: at(20) }),
      item('same-1', { createdAt: at(40) }),
      item('same-2', { createdAt: at(40) }),
      item('back', { status: 'interrupted', createdAt: at(0) }),
    ]);
    const order: string[] = [];
    for (;;) {
      const claim = await claimAt(queue);
      if (claim.item === undefined) break;
      order.push(claim.item.id);
    }
    expect(order).toEqual(['back', 'old-high', 'new-high', 'same-1', 'same-2', 'old-low']);
  });

  it("orders items of one priority as the night plan's pacing says, never over priority or an interrupted item", async () => {
    const { queue } = await backendQueue(backend);
    const at = (minutes: number) => new Date(NOW - minutes * 60_000).toISOString();
    await queue.importItems([
      item('first-in', { createdAt: at(50) }),
      item('likely', { createdAt: at(40), workDir: '/likely' }),
      item('unnamed', { createdAt: at(30) }),
      item('urgent', { priority: 5, createdAt: at(10) }),
      item('back', { status: 'interrupted', createdAt: at(0) }),
    ]);
    const pace = ['likely', 'first-in', 'urgent', 'back'];
    const claimPaced = (busy: (i: Item) => boolean) =>
      queue.claim({ sessionId: crypto.randomUUID(), now: NOW, busy, maxAttempts: 3, pace });
    const order: string[] = [];
    for (;;) {
      const claim = await claimPaced(() => false);
      if (claim.item === undefined || order.length === 2) {
        if (claim.item !== undefined) order.push(claim.item.id);
        break;
      }
      order.push(claim.item.id);
    }
    expect(order).toEqual(['back', 'urgent', 'likely']);
    // With a work dir busy here, the paced claim passes it over and keeps the pacing's order.
    await queue.importItems([item('likely-2', { createdAt: at(60), workDir: '/likely' })]);
    const paced = ['likely-2', 'unnamed', 'first-in'];
    const passing = await queue.claim({
      sessionId: crypto.randomUUID(),
      now: NOW,
      busy: (i) => i.workDir === '/likely',
      maxAttempts: 3,
      pace: paced,
    });
    expect(passing.item?.id).toBe('unnamed');
    expect((await claimPaced(() => false)).item?.id).toBe('first-in');
  });

  it('counts the attempt at the claim and says how many others wait', async () => {
    const { queue } = await backendQueue(backend);
    await queue.importItems([item('a'), item('b'), item('c')]);
    const claim = await claimAt(queue);
    expect(claim.item).toMatchObject({ id: 'a', status: 'running', attempts: 1 });
    expect(claim.item?.sessions).toHaveLength(1);
    expect(claim.queued).toBe(2);
  });

  it('tallies the items by status, with the branches of the running ones, what landed and the pull requests', async () => {
    const { queue } = await backendQueue(backend);
    const pull = (number: number) => ({
      number,
      url: `https://github.example/acme/app/pull/${number}`,
      head: `ralph/${number}`,
      base: 'main',
      kind: 'item' as const,
    });
    const landed = (commit: string, at: string) => ({
      status: 'done' as const,
      landedOn: 'ralph/landed',
      landedCommit: commit,
      landedAt: at,
    });
    await queue.importItems([
      item('a', { branch: 'ralph/a' }),
      item('b'),
      item('c', { status: 'done', branch: 'ralph/c' }),
      item('d', landed('d'.repeat(40), '2026-11-24T01:00:00.000Z')),
      item('e', landed('e'.repeat(40), '2026-11-24T02:00:00.000Z')),
      item('f', {
        status: 'failed',
        landFailure: 'conflicts',
        lastError: 'landing: 1 file in conflict',
      }),
      item('g', { status: 'awaiting_checks', pullRequest: pull(12), checks: 'pending: build' }),
      item('h', {
        status: 'awaiting_merge',
        lastOutcome: 'ready_to_merge',
        pullRequest: pull(3),
      }),
      item('i', { status: 'done', lastOutcome: 'merged', pullRequest: pull(4) }),
      item('j', { status: 'needs_input', question: 'Which database?' }),
      item('k', { status: 'reviewing', unreviewed: 'review by codex failed: timeout' }),
      item('l', {
        status: 'deciding',
        decision: {
          id: 'd1',
          kind: 'rejected',
          by: 'me@host',
          at: '2026-11-24T03:00:00.000Z',
          then: 'retry',
          effects: ['revert'],
          before: 'done',
        },
      }),
    ]);
    await claimAt(queue);
    const { version } = await queue.snapshot();
    expect(await queue.tally()).toEqual({
      counts: {
        running: 1,
        pending: 1,
        done: 4,
        failed: 1,
        awaiting_checks: 1,
        awaiting_merge: 1,
        needs_input: 1,
        reviewing: 1,
        deciding: 1,
      },
      version,
      branches: { a: 'ralph/a' },
      landings: {
        targets: [{ target: 'ralph/landed', landed: 2, commit: 'e'.repeat(40) }],
        refused: [{ id: 'f', status: 'failed', error: 'landing: 1 file in conflict' }],
      },
      // Awaiting checks, or a person's review: a merged one is not told.
      pullRequests: [
        { id: 'h', number: 3, url: pull(3).url, status: 'awaiting_merge' },
        {
          id: 'g',
          number: 12,
          url: pull(12).url,
          status: 'awaiting_checks',
          checks: 'pending: build',
        },
      ],
      questions: [{ id: 'j', question: 'Which database?' }],
      // What waits unseen otherwise: an item unreviewed, a decision half carried out.
      stalled: [
        { id: 'k', status: 'reviewing', why: 'review by codex failed: timeout' },
        { id: 'l', status: 'deciding', why: 'rejected, revert left to carry out' },
      ],
    });
  });

  it('records a checkout on the item its lease holds: the branch and its base, nothing else', async () => {
    const { queue } = await backendQueue(backend);
    await queue.importItems([item('a')]);
    const claim = await claimAt(queue);
    // What a checkout knows besides (its worktree, its repository) is not the item's.
    const checkout = {
      branch: 'ralph/a',
      baseCommit: 'abc123',
      worktree: '/w/a',
      repo: '/r',
      reused: false,
    };
    await queue.apply(claim.item!.id, {
      kind: 'checked_out',
      lease: leaseOf(claim.item!),
      checkout,
    });
    const [recorded] = await queue.list();
    expect(recorded).toMatchObject({ branch: 'ralph/a', baseCommit: 'abc123' });
    expect(recorded).not.toHaveProperty('worktree');
  });

  it('holds an item until what it depends on is done', async () => {
    const { queue } = await backendQueue(backend);
    await queue.importItems([item('later', { priority: 9, dependsOn: ['first'] }), item('first')]);
    const first = await claimAt(queue);
    expect(first.item?.id).toBe('first');
    expect((await claimAt(queue)).item).toBeUndefined();
    await settleOn(queue, leaseOf(first.item!), { kind: 'succeeded', costUsd: 0.5 }, POLICY);
    expect((await claimAt(queue)).item?.id).toBe('later');
  });

  it('waits for notBefore and a retry backoff, and says when each comes', async () => {
    const { queue } = await backendQueue(backend);
    const soon = new Date(NOW + 60_000).toISOString();
    const later = new Date(NOW + 120_000).toISOString();
    await queue.importItems([
      item('scheduled', { notBefore: later }),
      item('retry', { retryAfter: soon }),
    ]);
    const none = await claimAt(queue);
    expect(none).toMatchObject({ wakeAt: NOW + 60_000, retryAt: NOW + 60_000 });
    expect(none.item).toBeUndefined();
    expect((await claimAt(queue, NOW + 60_000)).item?.id).toBe('retry');
    expect((await claimAt(queue, NOW + 60_000)).item).toBeUndefined();
    expect((await claimAt(queue, NOW + 120_000)).item?.id).toBe('scheduled');
  });

  it('passes over items whose work dir is busy here', async () => {
    const { queue } = await backendQueue(backend);
    await queue.importItems([
      item('here-1', { priority: 3 }),
      item('here-2', { priority: 2 }),
      item('there', { workDir: '/elsewhere' }),
    ]);
    const claim = await claimAt(queue, NOW, (i) => i.workDir === undefined);
    expect(claim.item?.id).toBe('there');
  });

  it('settles by the pure transitions: retry with backoff, fail when attempts run out, reschedule', async () => {
    const { queue } = await backendQueue(backend);
    await queue.importItems([
      item('flaky', { maxAttempts: 2 }),
      item('nightly', { schedule: '0 3 * * *' }),
    ]);
    const failed = {
      kind: 'failed',
      error: 'boom',
      outcome: 'api_error',
      costUsd: 0.1,
      retryable: true,
    } as const;
    const first = await claimAt(queue);
    const once = await settleOn(queue, leaseOf(first.item!), failed, POLICY);
    expect(once).toMatchObject({
      kind: 'applied',
      item: {
        id: 'flaky',
        status: 'pending',
        attempts: 1,
        lastError: 'boom',
        retryAfter: new Date(NOW + 60_000).toISOString(),
      },
    });
    const nightly = await claimAt(queue);
    expect(nightly.item?.id).toBe('nightly');
    const done = await settleOn(
      queue,
      leaseOf(nightly.item!),
      { kind: 'succeeded', costUsd: 1 },
      POLICY,
    );
    expect(done).toMatchObject({
      item: { status: 'pending', attempts: 0, notBefore: '2026-11-24T03:00:00.000Z' },
    });
    const second = await claimAt(queue, NOW + 60_000);
    expect(second.item).toMatchObject({ id: 'flaky', attempts: 2 });
    const twice = await settleOn(queue, leaseOf(second.item!), failed, POLICY);
    expect(twice).toMatchObject({ item: { status: 'failed', attempts: 2, costUsd: 0.2 } });
  });

  it("refuses a settle whose lease is no longer the session's, writing nothing", async () => {
    const { queue, reopen } = await backendQueue(backend);
    await queue.importItems([item('a')]);
    const claim = await claimAt(queue);
    const lease = leaseOf(claim.item!);
    // The next runner of this workspace (a restart) takes back what the dead one held.
    const restarted = await reopen();
    expect(await restarted.requeueOrphans('the runner died', POLICY)).toEqual(['a']);
    const again = await claimAt(queue);
    expect(again.item).toMatchObject({ id: 'a', attempts: 2 });
    const late = await settleOn(queue, lease, { kind: 'succeeded', costUsd: 0 }, POLICY);
    expect(late).toMatchObject({ kind: 'refused', item: { status: 'running', attempts: 2 } });
    if (late.kind === 'refused')
      expect(late.reason).toMatch(/attempt 2 of the item is another session's/);
    expect((await queue.list())[0]).toMatchObject({ status: 'running', attempts: 2 });
  });

  it('retries, cancels and removes by id or status, all or none, never a running item', async () => {
    const { queue } = await backendQueue(backend);
    await queue.importItems([
      item('broken', { status: 'failed', attempts: 3 }),
      item('base'),
      item('child', { dependsOn: ['base'] }),
      item('busy', { workDir: '/elsewhere' }),
    ]);
    await claimAt(queue, NOW, (i) => i.workDir === undefined);
    expect(await queue.retry({ ids: [], all: true })).toEqual(['broken']);
    expect((await queue.list())[0]).toMatchObject({ status: 'pending', attempts: 0 });
    await expect(queue.retry({ ids: ['broken'] })).rejects.toThrow(
      'item "broken" is already pending',
    );
    await expect(queue.cancel({ ids: ['base', 'busy'] })).rejects.toThrow('item "busy" is running');
    expect((await queue.list()).find((i) => i.id === 'base')?.status).toBe('pending');
    expect(await queue.cancel({ ids: [], status: 'pending' })).toEqual(['broken', 'base', 'child']);
    await expect(queue.remove(['base'], false)).rejects.toThrow('base is a dependency of child');
    expect(await queue.remove(['base', 'child'], false)).toEqual(['base', 'child']);
    await expect(queue.remove(['nope'], false)).rejects.toThrow('no item "nope" in the queue');
    expect((await queue.list()).map((i) => i.id)).toEqual(['broken', 'busy']);
  });

  it('applies every event through the one lifecycle table, refusing what it refuses', async () => {
    const { queue } = await backendQueue(backend);
    const pairs = lifecyclePairs().map((pair, n) => ({ ...pair, id: `p${n}` }));
    await queue.importItems(pairs.map(({ item, id }) => item(id)));
    for (const { id, status, event, to } of pairs) {
      const applied = await queue.apply(id, event);
      if (to === undefined)
        expect([event.kind, status, applied.kind]).toEqual([event.kind, status, 'refused']);
      else
        expect([event.kind, status, applied.kind === 'applied' && applied.item.status]).toEqual([
          event.kind,
          status,
          to,
        ]);
    }
    const stored = new Map((await queue.list()).map((i) => [i.id, i.status]));
    for (const { id, status, to } of pairs) expect(stored.get(id)).toBe(to ?? status);
  });

  it('applies an event to many items in one change, leaving those the table refuses', async () => {
    const { queue } = await backendQueue(backend);
    await queue.importItems([
      item('a', { status: 'done' }),
      item('b', { status: 'failed' }),
      item('c', { status: 'done' }),
    ]);
    const land = (ids: string[]) =>
      ids.map((id) => ({ id, event: { kind: 'sent_to_land', now: 0 } as const }));
    const changed = await queue.applyAll(land(['c', 'b', 'a', 'gone']));
    expect(changed.map((i) => [i.id, i.status])).toEqual([
      ['c', 'landing'],
      ['a', 'landing'],
    ]);
    expect((await queue.list()).map((i) => [i.id, i.status])).toEqual([
      ['a', 'landing'],
      ['b', 'failed'],
      ['c', 'landing'],
    ]);
    expect(await queue.applyAll(land(['b']))).toEqual([]);
  });

  it('checks an edit and an add against the dependencies they would have', async () => {
    const { queue } = await backendQueue(backend);
    await queue.importItems([item('a'), item('b', { dependsOn: ['a'] })]);
    const refuse = (next: Item, closure: readonly Item[]) => {
      if (closure.some((i) => i.dependsOn.includes(next.id)))
        throw new Error(`cycle through ${next.id}`);
    };
    await expect(
      queue.apply(
        'a',
        { kind: 'edited', fields: { dependsOn: ['b'] }, cleared: [], now: 0 },
        refuse,
      ),
    ).rejects.toThrow('cycle through a');
    expect((await queue.list())[0]?.dependsOn).toEqual([]);
    const seen: string[][] = [];
    await queue.add(item('c', { dependsOn: ['b'] }), {
      ...noCheck,
      check: (_, closure) => seen.push(closure.map((i) => i.id).sort()),
    });
    expect(seen).toEqual([['a', 'b']]);
    expect((await queue.dependencyClosure(['c'])).map((i) => i.id).sort()).toEqual(['a', 'b', 'c']);
  });

  it('imports all or none', async () => {
    const { queue } = await backendQueue(backend);
    await queue.importItems([item('a')]);
    await expect(queue.importItems([item('b'), item('a')])).rejects.toThrow(
      'already queued: a; nothing was imported',
    );
    expect((await queue.list()).map((i) => i.id)).toEqual(['a']);
  });

  it('never lets two concurrent claims take one item', async () => {
    const { queue, reopen } = await backendQueue(backend);
    await queue.importItems(
      Array.from({ length: 40 }, (_, i) => item(`i${String(i).padStart(2, '0')}`)),
    );
    const claimers = [queue, await reopen(), await reopen(), await reopen()];
    const taken: string[] = [];
    await Promise.all(
      claimers.map(async (claimer) => {
        for (;;) {
          const claim = await claimAt(claimer);
          if (claim.item === undefined) return;
          taken.push(claim.item.id);
        }
      }),
    );
    expect(taken.sort()).toEqual((await queue.list()).map((i) => i.id).sort());
    expect(new Set(taken).size).toBe(40);
  });
});
