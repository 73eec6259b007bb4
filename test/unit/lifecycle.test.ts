// The item's life is one table: every (status, event) pair either gives the status the table's
// documentation says, or is refused with a reason that names the event and the status.
import { describe, expect, it } from 'vitest';
import { ITEM_STATUSES, STATUS_TRAITS, statusesWhere } from '../../src/queue/item-status.js';
import { applyEvent, leadsTo, LIFECYCLE, type Lifecycle } from '../../src/queue/lifecycle.js';
import { ItemLifeSchema, ItemSchema, type Item, type ItemEdit } from '../../src/queue/item.js';
import { ITEM_LIFE_KEYS } from '../../src/queue/item-life.js';
import { migrateQueueFile, QUEUE_SCHEMA } from '../../src/queue/file-schema.js';
import { itemIn, LIFECYCLE_CASES, lifecyclePairs } from '../support/lifecycle-cases.js';

describe('the lifecycle table', () => {
  it('has a documented case for every event, and allows exactly the statuses it documents', () => {
    expect(Object.keys(LIFECYCLE_CASES).sort()).toEqual(Object.keys(LIFECYCLE).sort());
    for (const [kind, rule] of Object.entries(LIFECYCLE)) {
      const documented = Object.keys(LIFECYCLE_CASES[kind as keyof typeof LIFECYCLE].to).sort();
      expect([kind, [...rule.from].sort()]).toEqual([kind, documented]);
    }
  });

  it.each(lifecyclePairs().map((pair) => [pair.event.kind, pair.status, pair] as const))(
    '%s from %s',
    (_kind, status, { event, to, item }) => {
      const applied = applyEvent(item(), event);
      if (to === undefined) {
        expect(applied.kind).toBe('refused');
        if (applied.kind === 'refused') {
          expect(applied.reason).toContain(event.kind);
          expect(applied.reason).toContain(status);
        }
        return;
      }
      expect(applied).toMatchObject({ kind: 'applied', item: { status: to } });
      // The table says where each event may lead (the docs' diagram is drawn from it).
      if (to !== status) expect(leadsTo(event.kind, status)).toContain(to);
      // What the table makes is an item the queue's schema accepts.
      if (applied.kind === 'applied') ItemSchema.parse(applied.item);
    },
  );

  it.each(
    lifecyclePairs()
      .filter((pair) => pair.to !== undefined)
      .map((pair) => [pair.event.kind, pair.status, pair] as const),
  )(
    'refuses, at run time, a mutant %s rule from %s that leads anywhere it does not declare',
    (_kind, status, { event, item }) => {
      const kind = event.kind;
      const undeclared = ITEM_STATUSES.find(
        (s) => s !== status && !leadsTo(kind, status).includes(s),
      );
      if (undeclared === undefined) return;
      const rule = LIFECYCLE[kind];
      const mutant = {
        ...LIFECYCLE,
        [kind]: { ...rule, apply: (item: Item) => ({ ...item, status: undeclared }) },
      } as Lifecycle;
      const applied = applyEvent(item(), event, mutant);
      expect(applied).toMatchObject({ kind: 'refused' });
      if (applied.kind === 'refused') {
        expect(applied.reason).toContain(`led a ${status} item to ${undeclared}`);
        expect(applied.item?.status).toBe(status);
      }
    },
  );

  it('refuses an edit that carries any of the life of an item (its status, its sessions)', () => {
    expect([...ITEM_LIFE_KEYS].sort()).toEqual(Object.keys(ItemLifeSchema.shape).sort());
    const fields = { status: 'done', title: 'x' } as unknown as ItemEdit;
    const applied = applyEvent(itemIn('pending'), { kind: 'edited', fields, cleared: [], now: 0 });
    expect(applied).toMatchObject({ kind: 'refused', reason: 'an edit cannot change status' });
    const cleared = applyEvent(itemIn('pending'), {
      kind: 'edited',
      fields: {},
      cleared: ['sessions'],
      now: 0,
    });
    expect(cleared).toMatchObject({ kind: 'refused', reason: 'an edit cannot change sessions' });
  });

  it("hands an item to its candidates when its reviewer's rounds are spent (after_failure)", () => {
    const reviewed = { ...itemIn('reviewing'), head: 'e'.repeat(40), reviewRounds: 1 };
    const event = {
      kind: 'review_changes_requested' as const,
      verdict: {
        overall: 'request_changes' as const,
        criteria: [],
        findings: [],
        summary: 'it misses the point',
        cli: 'codex',
        session: 's2',
        costUsd: 0.01,
        at: new Date(0).toISOString(),
      },
      findings: 'blocking: a.ts:1: it misses the point',
      maxRounds: 2,
      now: 0,
    };
    const candidates = [
      { letter: 'A', cli: 'claude' as const },
      { letter: 'B', cli: 'codex' as const, item: 'it.b' },
    ];
    expect(applyEvent(reviewed, event)).toMatchObject({ item: { status: 'needs_input' } });
    const applied = applyEvent(reviewed, { ...event, candidates });
    expect(applied).toMatchObject({
      kind: 'applied',
      item: {
        status: 'judging',
        question: undefined,
        roster: [
          {
            letter: 'A',
            out: 'the reviewer asked for changes: it misses the point',
            branch: 'ralph/it',
            head: 'e'.repeat(40),
          },
          { letter: 'B', item: 'it.b' },
        ],
      },
    });
    // A round left: back to its author, the candidates not yet wanted.
    const again = applyEvent({ ...reviewed, reviewRounds: 0 }, { ...event, candidates });
    expect(again.item?.status).toBe('pending');
    expect(again.item?.roster).toBeUndefined();
  });

  it.each([
    [{ land: true, pullRequest: false }, 'landing'],
    [{ land: false, pullRequest: true }, 'awaiting_checks'],
    [{ land: false, pullRequest: false }, 'done'],
  ] as const)(
    'sends a candidate a person takes where the pick would have gone (%o)',
    (then, status) => {
      const waiting = {
        ...itemIn('needs_input'),
        pullRequest: undefined,
        roster: [
          { letter: 'A', cli: 'claude' as const, branch: 'ralph/it.a', head: 'c'.repeat(40) },
        ],
        judgement: { shown: ['A'], costUsd: 0, failure: 'the judge erred', then, at: '' },
      };
      const applied = applyEvent(waiting, {
        kind: 'candidate_taken',
        decision: { id: 'd', kind: 'accepted', by: 'cli', at: '', candidate: 'A' },
        now: 0,
      });
      expect(applied).toMatchObject({
        item: { status, branch: 'ralph/it.a', head: 'c'.repeat(40) },
      });
    },
  );

  it('records a landing that a rejection raced, and has the rejection revert it', () => {
    const rejected = itemIn('deciding');
    const applied = applyEvent(
      { ...rejected, decision: { ...rejected.decision!, effects: ['keep_branch'] } },
      {
        kind: 'landed',
        landing: { commit: 'c'.repeat(40), target: 'ralph/landed', onto: 'd'.repeat(40) },
        now: 0,
      },
    );
    expect(applied).toMatchObject({
      kind: 'applied',
      item: {
        status: 'deciding',
        landedCommit: 'c'.repeat(40),
        landedOn: 'ralph/landed',
        decision: { kind: 'rejected', effects: ['keep_branch', 'revert'] },
      },
    });
  });

  it('records a landing that a rejection carried out before it, and has the revert made', () => {
    const rejected = {
      ...itemIn('pending'),
      branch: undefined,
      decision: { ...itemIn('deciding').decision!, effects: undefined, before: undefined },
    };
    const applied = applyEvent(rejected, {
      kind: 'landed',
      landing: { commit: 'c'.repeat(40), target: 'ralph/landed', onto: 'd'.repeat(40) },
      now: 0,
    });
    expect(applied).toMatchObject({
      kind: 'applied',
      item: {
        status: 'deciding',
        landedCommit: 'c'.repeat(40),
        decision: { kind: 'rejected', effects: ['revert'], before: 'pending' },
      },
    });
  });

  it('refuses an event for an item no longer in the queue', () => {
    expect(applyEvent(undefined, { kind: 'unparked', now: 0 })).toMatchObject({
      kind: 'refused',
      reason: 'the item is no longer in the queue',
    });
  });

  it("refuses a session's end under a lease a later attempt holds", () => {
    const applied = applyEvent(itemIn('running'), {
      ...LIFECYCLE_CASES.session_ended.event,
      lease: { itemId: 'it', sessionId: 'old', attempt: 0 },
    } as never);
    expect(applied.kind).toBe('refused');
    if (applied.kind === 'refused') expect(applied.reason).toMatch(/another session/);
  });

  it('answers every trait of every status from one table', () => {
    expect(Object.keys(STATUS_TRAITS).sort()).toEqual([...ITEM_STATUSES].sort());
    expect(statusesWhere('runnable')).toEqual(['pending', 'interrupted']);
    expect(statusesWhere('satisfiesDependents')).toEqual(['awaiting_merge', 'done']);
    expect(statusesWhere('waitsOnWorld')).toEqual([
      'preparing',
      'reviewing',
      'judging',
      'landing',
      'awaiting_checks',
      'deciding',
    ]);
    expect(statusesWhere('waitsOnPerson')).toEqual(['awaiting_merge', 'needs_input', 'parked']);
  });
});

describe('a queue file of schema 6', () => {
  it('reads a pull request that waited for review as awaiting_merge', () => {
    const raw = {
      schema: 6,
      version: 3,
      items: [
        { id: 'a', status: 'done', lastOutcome: 'ready_for_review' },
        { id: 'b', status: 'done', lastOutcome: 'merged' },
      ],
    };
    expect(migrateQueueFile('state/queue.json', raw)).toEqual({
      schema: QUEUE_SCHEMA,
      version: 3,
      items: [
        { id: 'a', status: 'awaiting_merge', lastOutcome: 'ready_to_merge' },
        { id: 'b', status: 'done', lastOutcome: 'merged' },
      ],
    });
  });
});

describe('a queue file of schema 9', () => {
  it('reads a pull request that waited for review as awaiting_merge', () => {
    const raw = { schema: 9, version: 1, items: [{ id: 'a', status: 'awaiting_review' }] };
    expect(migrateQueueFile('state/queue.json', raw)).toEqual({
      schema: QUEUE_SCHEMA,
      version: 1,
      items: [{ id: 'a', status: 'awaiting_merge' }],
    });
  });
});

describe('an item whose settings cannot be used', () => {
  it('is read with its gates made whole, or told why its settings cannot be used', async () => {
    const { itemSettingsOf } = await import('../../src/queue/item.js');
    const bare = itemSettingsOf({ ...itemIn('pending'), gates: [['npm', 'test']] } as never);
    expect(bare).toEqual({
      settings: expect.objectContaining({
        gates: [{ name: 'npm test', command: ['npm', 'test'], timeout: 600 }],
      }) as unknown,
    });
    const broken = itemSettingsOf({ ...itemIn('pending'), gates: [[]] } as never);
    expect(broken).toMatchObject({
      problem: expect.stringMatching(/^its settings cannot be used: gates/) as unknown,
    });
  });

  it('is parked with the reason, its attempt given back, never failed', () => {
    const running = itemIn('running');
    const applied = applyEvent(running, {
      kind: 'session_ended',
      lease: { itemId: running.id, sessionId: 's1', attempt: 1 },
      settlement: {
        kind: 'rejected',
        error: 'its settings cannot be used: gates',
        outcome: 'rejected',
        park: true,
      },
      policy: { maxAttempts: 3, now: 0, retryBackoffCapMs: 0 },
    });
    expect(applied).toMatchObject({
      kind: 'applied',
      item: { status: 'parked', attempts: 0, lastError: 'its settings cannot be used: gates' },
    });
  });
});
