// The person's decisions night over night: accepted at the first pass, the cost of an accepted
// change, their time on a decision.
import { describe, expect, it } from 'vitest';
import type { LedgerLine } from '../../src/queue/ledger.js';
import { decisionNights } from '../../src/workspace/decision-nights.js';
import { queueItem } from '../support/items.js';

let n = 0;
const line = (
  item: string,
  decision: LedgerLine['decision'],
  at: string,
  more = {},
): LedgerLine => ({
  id: `d${++n}`,
  item,
  decision,
  by: 'cli',
  at,
  status: 'done',
  risk: { score: 0, parts: [] },
  verdict: null,
  ...more,
});

describe('decisions night over night', () => {
  it('counts first passes, what accepted changes cost, and the median time on a decision', () => {
    const items = [
      queueItem('a', { costUsd: 1.5 }),
      queueItem('b', { costUsd: 0.5 }),
      queueItem('c', { costUsd: 2 }),
    ];
    const lines = [
      line('a', 'accepted', '2026-12-01T08:00:00Z', { reviewMs: 60_000 }),
      line('b', 'deferred', '2026-12-01T08:05:00Z', { reviewMs: 10_000 }),
      line('b', 'rejected', '2026-12-01T08:10:00Z', { note: 'no', reviewMs: 120_000 }),
      line('c', 'accepted', '2026-12-01T08:20:00Z'),
      line('x', 'accepted', '2026-12-01T08:30:00Z', { void: 'the item changed' }),
      // The next night: b accepted after its rejection, not at the first pass; gone is no longer
      // in the queue, its cost unknown.
      line('b', 'accepted', '2026-12-02T08:00:00Z', { reviewMs: 30_000 }),
      line('gone', 'accepted', '2026-12-02T09:00:00Z'),
    ];
    expect(decisionNights(lines, items, undefined)).toEqual([
      {
        day: '2026-12-01',
        firstDecided: 3,
        firstPassAccepted: 2,
        accepted: 2,
        costed: 2,
        acceptedCostUsd: 3.5,
        medianReviewMs: 60_000,
        rulesApplied: 0,
        rulesBroken: 0,
        repeatedRejections: 0,
      },
      {
        day: '2026-12-02',
        firstDecided: 1,
        firstPassAccepted: 1,
        accepted: 2,
        costed: 1,
        acceptedCostUsd: 0.5,
        medianReviewMs: 30_000,
        rulesApplied: 0,
        rulesBroken: 0,
        repeatedRejections: 0,
      },
    ]);
    // A span starts later; what was decided before it still makes a later decision no first.
    expect(decisionNights(lines, items, Date.parse('2026-12-02T00:00:00Z'))).toHaveLength(1);
    // The rules' figures join the night they fall on, a night of rule checks alone its own.
    const rules = new Map([
      ['2026-12-02', { applied: 3, broken: 1, repeatedRejections: 0 }],
      ['2026-12-03', { applied: 2, broken: 0, repeatedRejections: 1 }],
    ]);
    const ruled = decisionNights(lines, items, undefined, rules);
    expect(ruled.map((n) => [n.day, n.rulesApplied, n.rulesBroken, n.repeatedRejections])).toEqual([
      ['2026-12-01', 0, 0, 0],
      ['2026-12-02', 3, 1, 0],
      ['2026-12-03', 2, 0, 1],
    ]);
  });
});
