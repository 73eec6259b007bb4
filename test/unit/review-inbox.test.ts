// The review inbox's ranking from an item's structure alone, what waits on a person, and the
// report of a person's decisions: each fixed by its features.
import { describe, expect, it } from 'vitest';
import type { IndexEntry } from '../../src/archive/index-entry.js';
import type { Item } from '../../src/queue/item.js';
import { DEFAULT_SENSITIVE } from '../../src/review/config-schema.js';
import { decisionReport } from '../../src/workspace/decide.js';
import type { LedgerLine } from '../../src/queue/ledger.js';
import { causeChain, reviewInbox } from '../../src/workspace/review-inbox.js';
import { splitDiff } from '../../src/workspace/review-page.js';
import { queueItem } from '../support/items.js';

const NOW = Date.parse('2026-11-29T08:00:00Z');
const at = (minutes: number) => new Date(NOW - minutes * 60_000).toISOString();

function done(id: string, fields: Partial<Item> = {}): Item {
  return queueItem(id, {
    status: 'done',
    attempts: 1,
    sessions: [`s-${id}`],
    startedAt: at(60),
    finishedAt: at(50),
    lastOutcome: 'success',
    costUsd: 0.5,
    ...fields,
  });
}

function entry(itemId: string, fields: Partial<IndexEntry> = {}): IndexEntry {
  return {
    sessionId: `s-${itemId}`,
    itemId,
    itemTitle: itemId,
    status: 'completed',
    outcome: 'success',
    startedAt: at(60),
    toolCalls: 3,
    costUsd: 0.5,
    cli: 'claude',
    ...fields,
  };
}

const changes = (paths: string[], added = 10, deleted = 2) => ({
  files: paths.length,
  added,
  deleted,
  paths,
});

describe('the review inbox', () => {
  it('ranks items by the features of their work, each part of the score shown with why', () => {
    const items = [
      done('small'),
      done('migration'),
      done('big'),
      queueItem('failed', {
        status: 'failed',
        attempts: 3,
        sessions: ['s-failed'],
        lastError: 'gate npm test: FAILED (exit 1)',
      }),
      done('denied', { landRounds: 2 }),
      done('nothing'),
      done('changes-asked', {
        verdict: {
          overall: 'request_changes',
          criteria: [{ id: 1, verdict: 'FAIL', evidence: 'the test still sleeps' }],
          findings: [],
          cli: 'codex',
          session: 'r1',
          costUsd: 0.1,
          at: at(55),
        },
      }),
    ];
    const entries = [
      entry('small', { changes: changes(['src/a.ts']) }),
      entry('migration', {
        changes: changes(['db/migrations/001_users.sql', '.github/workflows/ci.yml']),
      }),
      entry('big', {
        changes: changes(
          Array.from({ length: 30 }, (_, i) => `src/f${i}.ts`),
          900,
          300,
        ),
      }),
      entry('failed', { outcome: 'gate_failed', changes: changes(['src/a.ts']) }),
      entry('denied', { denials: 2, changes: changes(['src/b.ts']) }),
      entry('nothing', { changes: changes([], 0, 0) }),
      entry('changes-asked', { changes: changes(['src/c.ts']) }),
    ];
    const rows = reviewInbox(items, entries, DEFAULT_SENSITIVE, NOW);
    // failed: status 40, one failed gate 5, a file 1; big: 30 files and 1,200 lines, each
    // capped at 15, cost 1; changes asked: 20, a failed criterion 8; and so on.
    expect(rows.map((r) => [r.item.id, r.score])).toEqual([
      ['failed', 46],
      ['big', 31],
      ['changes-asked', 30],
      ['migration', 27],
      ['denied', 22],
      ['nothing', 11],
      ['small', 2],
    ]);
    const migration = rows.find((r) => r.item.id === 'migration');
    expect(migration?.sensitive).toEqual([
      'db/migrations/001_users.sql',
      '.github/workflows/ci.yml',
    ]);
    expect(migration?.parts[0]).toEqual({
      name: 'sensitive',
      points: 24,
      why: '2 sensitive paths: db/migrations/001_users.sql, .github/workflows/ci.yml',
    });
    expect(rows.find((r) => r.item.id === 'nothing')?.what).toBe('done, no changes');
    expect(rows.find((r) => r.item.id === 'nothing')?.parts.map((p) => p.name)).toContain(
      'no changes',
    );
    expect(rows.find((r) => r.item.id === 'denied')?.parts.map((p) => [p.name, p.points])).toEqual([
      ['landing', 12],
      ['denials', 8],
      ['files', 1],
      ['cost', 1],
    ]);
    expect(rows.find((r) => r.item.id === 'failed')?.what).toBe(
      'failed after 3 attempts: gate npm test: FAILED (exit 1)',
    );
  });

  it('puts a decision the world refused first, whatever the scores', () => {
    const refusedRevert = done('refused', {
      decision: {
        id: 'd1',
        kind: 'rejected',
        by: 'me@host',
        at: at(20),
        then: 'retry',
        failure: 'the revert conflicts in a.txt',
      },
    });
    const failed = queueItem('failed', { status: 'failed', attempts: 3, sessions: ['s-failed'] });
    const rows = reviewInbox(
      [failed, refusedRevert],
      [entry('failed', { outcome: 'gate_failed' }), entry('refused')],
      DEFAULT_SENSITIVE,
      NOW,
    );
    expect(rows.map((r) => r.item.id)).toEqual(['refused', 'failed']);
    expect(rows[0]?.score).toBeLessThan(rows[1]?.score ?? 0);
  });

  it('holds what waits on a person: not an accepted item, not a deferred one until its date', () => {
    const accepted = done('accepted', {
      decision: { id: 'd1', kind: 'accepted', by: 'me@host', at: at(10) },
    });
    const acceptedThenRunAgain = done('again', {
      startedAt: at(5),
      decision: { id: 'd2', kind: 'accepted', by: 'me@host', at: at(10) },
    });
    const deferred = done('deferred', {
      decision: { id: 'd3', kind: 'deferred', by: 'me@host', at: at(10), until: at(-60) },
    });
    const deferralOver = done('deferral-over', {
      decision: { id: 'd4', kind: 'deferred', by: 'me@host', at: at(100), until: at(30) },
    });
    const items = [
      accepted,
      acceptedThenRunAgain,
      deferred,
      deferralOver,
      queueItem('pending'),
      queueItem('asks', { status: 'needs_input', question: 'Which table?' }),
      done('from-source', { sessions: [] }),
    ];
    const ids = reviewInbox(items, [], [], NOW)
      .map((r) => r.item.id)
      .sort();
    expect(ids).toEqual(['again', 'asks', 'deferral-over']);
  });

  it('says how an item came to be: its sessions, landings and reviews, repeats counted', () => {
    const verdict = (session: string, overall: 'approve' | 'request_changes') => ({
      overall,
      criteria: [],
      findings: [],
      cli: 'codex',
      session,
      costUsd: 0,
      at: at(10),
    });
    const item = done('x', { landRounds: 1, verdict: verdict('r1', 'approve') });
    expect(
      causeChain(item, [
        entry('x', { outcome: 'gate_failed' }),
        entry('x', { outcome: 'gate_failed' }),
        entry('x', { outcome: 'success' }),
        entry('x', { sessionId: 'r1', outcome: 'success', role: 'reviewer' }),
      ]),
    ).toBe('gate failed ×2 → done → reviewed → landing refused ×1');
    // A change request is remembered once approved: the README's sample line.
    const approvedAfter = done('y', { reviewRounds: 1, verdict: verdict('r2', 'approve') });
    const chain = [
      entry('y', { outcome: 'gate_failed' }),
      entry('y', { outcome: 'success' }),
      entry('y', { sessionId: 'r1', role: 'reviewer' }),
      entry('y', { outcome: 'success' }),
      entry('y', { sessionId: 'r2', role: 'reviewer' }),
    ];
    expect(causeChain(approvedAfter, chain)).toBe(
      'gate failed → done → reviewed → changes asked → done → reviewed',
    );
    const [row] = reviewInbox([approvedAfter], chain, [], NOW);
    expect(row?.parts.map((p) => p.why)).toContain('its reviewer asked for changes');
    // Reviews that gave no valid verdict are failures, not reviews.
    const unreviewed = queueItem('z', { status: 'reviewing', unreviewed: 'no verdict' });
    expect(
      causeChain(unreviewed, [
        entry('z'),
        entry('z', { sessionId: 'r1', role: 'reviewer' }),
        entry('z', { sessionId: 'r2', role: 'reviewer' }),
        entry('z', { sessionId: 'r3', role: 'reviewer' }),
      ]),
    ).toBe('done → review failed ×3');
  });
});

describe('a diff split by file', () => {
  it('pairs each file of --numstat with its hunks', () => {
    const numstat = '1\t0\ta.txt\0' + '0\t2\tsrc/b c.ts\0';
    const patch = [
      'diff --git a/a.txt b/a.txt',
      '+++ b/a.txt',
      '+one',
      'diff --git a/src/b c.ts b/src/b c.ts',
      '-two',
      '-three',
      '',
    ].join('\n');
    expect(splitDiff(numstat, patch)).toEqual([
      {
        path: 'a.txt',
        added: 1,
        deleted: 0,
        text: 'diff --git a/a.txt b/a.txt\n+++ b/a.txt\n+one\n',
      },
      {
        path: 'src/b c.ts',
        added: 0,
        deleted: 2,
        text: 'diff --git a/src/b c.ts b/src/b c.ts\n-two\n-three\n',
      },
    ]);
  });
});

describe("the report of a person's decisions", () => {
  const line = (fields: Partial<LedgerLine>): LedgerLine => ({
    id: `d-${Math.random()}`,
    item: 'x',
    decision: 'accepted',
    by: 'me@host',
    at: '2026-11-29T08:00:00.000Z',
    status: 'done',
    risk: { score: 1, parts: [] },
    verdict: null,
    ...fields,
  });

  it('gives the pace, the median wait from done to decision, your time, and how the reviewer agreed', () => {
    const report = decisionReport(
      [
        line({ verdict: 'approve', doneAt: '2026-11-29T07:00:00.000Z', reviewMs: 90_000 }),
        line({
          verdict: 'approve',
          decision: 'rejected',
          note: 'no',
          doneAt: '2026-11-29T06:00:00.000Z',
          reviewMs: 30_000,
        }),
        line({
          verdict: 'request_changes',
          decision: 'rejected',
          note: 'no',
          doneAt: '2026-11-29T07:30:00.000Z',
          reviewMs: 240_000,
        }),
        line({
          at: '2026-11-28T09:00:00.000Z',
          decision: 'deferred',
          until: '2026-11-30T00:00:00.000Z',
        }),
        line({ id: 'gone', verdict: 'approve' }),
        line({ id: 'gone', void: 'the item changed' }),
      ],
      undefined,
    );
    expect(report).toEqual({
      decisions: 4,
      accepted: 1,
      rejected: 2,
      deferred: 1,
      byDay: [
        { day: '2026-11-28', decisions: 1 },
        { day: '2026-11-29', decisions: 3 },
      ],
      medianWaitMs: 3_600_000,
      // The deferral's page was never opened: three decisions timed.
      reviewTime: { timed: 3, medianMs: 90_000, totalMs: 360_000 },
      reviewed: { decisions: 3, agreed: 2, approvals: 2, approvalsAccepted: 1 },
    });
  });
});
