// The night plan from an archive of known costs and a recorded window utilization: its figures,
// the windows' room under run.reserve, what is left for the morning, and the pacing's order.
import { describe, expect, it } from 'vitest';
import type { IndexEntry } from '../../src/archive/index-entry.js';
import { History, median, type Profile } from '../../src/forecast/estimate.js';
import { planNight, planSummary, type PlanInput } from '../../src/forecast/night-plan.js';
import { nextPaced, paceOrder, type Candidate } from '../../src/forecast/pace.js';
import { windowsOf } from '../../src/forecast/windows.js';
import type { Item } from '../../src/queue/item.js';
import { clockTime, planLines, planSummaryLines } from '../../src/cli/plan-text.js';
import { queueItem } from '../support/items.js';

const NOW = Date.parse('2026-11-29T22:00:00Z');
const MIN = 60_000;
const HOUR = 60 * MIN;
/** The five-hour window in the archive resets at 00:30, two and a half hours from now. */
const RESET_S = (NOW + 2.5 * HOUR) / 1000;

let serial = 0;
function session(fields: Partial<IndexEntry> & { model: string }): IndexEntry {
  serial++;
  const endedAt = new Date(NOW - 3 * HOUR + serial * MIN).toISOString();
  return {
    sessionId: `s-${serial}`,
    itemId: `past-${serial}`,
    itemTitle: 'past',
    status: 'completed',
    outcome: 'success',
    startedAt: endedAt,
    endedAt,
    durationMs: 10 * MIN,
    toolCalls: 4,
    costUsd: 1,
    cli: 'claude',
    ...fields,
  };
}

/**
 * The night before: a sure model (three sessions of $1.50 and 20 minutes, all succeeded), an
 * unsure one (three of $0.50 and 10 minutes, one succeeded), and the five-hour window reported
 * at 50%, 55% and 60% around two $0.50 sessions: a whole window is $10 of work.
 */
function archive(): IndexEntry[] {
  serial = 0;
  const window = (utilization: number) => ({ five_hour: { utilization, resetsAt: RESET_S } });
  return [
    session({ model: 'sure', costUsd: 1.5, durationMs: 20 * MIN }),
    session({ model: 'sure', costUsd: 1.5, durationMs: 20 * MIN }),
    session({ model: 'sure', costUsd: 1.5, durationMs: 20 * MIN }),
    session({ model: 'unsure', costUsd: 0.5, outcome: 'failed', windows: window(0.5) }),
    session({ model: 'unsure', costUsd: 0.5, outcome: 'failed', windows: window(0.55) }),
    session({ model: 'unsure', costUsd: 0.5, windows: window(0.6) }),
    // A reviewer's session is no work of its item's: it counts for nothing.
    session({ model: 'sure', costUsd: 9, role: 'reviewer' }),
  ];
}

const profile = (model: string): Profile => ({
  cli: 'claude',
  model,
  maxBudgetUsd: 5,
  timeoutSeconds: 3600,
});

function input(items: Item[], fields: Partial<PlanInput> = {}): PlanInput {
  const entries = archive();
  return {
    items,
    profiles: new Map(items.map((i) => [i.id, profile(i.model ?? 'none')])),
    history: new History(entries),
    windows: windowsOf(entries, NOW),
    reserve: 0.2,
    workers: 1,
    now: NOW,
    maxLimitWaitMs: 6 * HOUR,
    ...fields,
  };
}

const at = (minutes: number) => new Date(NOW - minutes * MIN).toISOString();
/** Items of one priority in the queue's order: unsure, sure, sure, unsure. */
const night = () => [
  queueItem('u1', { model: 'unsure', createdAt: at(40) }),
  queueItem('s1', { model: 'sure', createdAt: at(30) }),
  queueItem('s2', { model: 'sure', createdAt: at(20) }),
  queueItem('u2', { model: 'unsure', createdAt: at(10) }),
];

describe('the forecast of a session', () => {
  it('is the median of similar past sessions (persona, CLI, model), with their success', () => {
    const history = new History(archive());
    expect(history.estimate(profile('sure'))).toEqual({
      costUsd: 1.5,
      seconds: 1200,
      chance: 0.8,
      basis: { kind: 'history', sessions: 3, succeeded: 3 },
    });
    expect(history.estimate(profile('unsure'))).toEqual({
      costUsd: 0.5,
      seconds: 600,
      chance: 0.4,
      basis: { kind: 'history', sessions: 3, succeeded: 1 },
    });
    // Another persona, or a CLI with no history: the item's own caps.
    expect(history.estimate({ ...profile('sure'), persona: 'tester' })).toEqual({
      costUsd: 5,
      seconds: 3600,
      chance: 0.5,
      basis: { kind: 'caps' },
    });
    expect(median([3, 1, 2, 10])).toBe(2.5);
  });

  it("reads each window's last utilization, its reset, and what a whole window costs", () => {
    expect(windowsOf(archive(), NOW)).toEqual([
      {
        cli: 'claude',
        kind: 'five_hour',
        utilization: 0.6,
        resetsAt: RESET_S * 1000,
        reportedAt: NOW - 3 * HOUR + 6 * MIN,
        usdPerWindow: 10,
      },
    ]);
    // Past its reset, the window is empty again and its next reset unknown.
    const later = windowsOf(archive(), RESET_S * 1000 + MIN)[0];
    expect(later).toMatchObject({ utilization: 0 });
    expect(later?.resetsAt).toBeUndefined();
  });
});

describe('the night plan', () => {
  it('fits $2 of work into the window under a 20% reserve, likeliest first, and waits for the reset for the rest', () => {
    const plan = planNight(input(night()));
    expect(plan.items.map((p) => [p.id, p.estimate.costUsd, p.afterReset?.kind])).toEqual([
      ['s1', 1.5, undefined],
      ['u1', 0.5, undefined],
      ['s2', 1.5, 'five_hour'],
      ['u2', 0.5, undefined],
    ]);
    expect(plan.items.map((p) => (p.startsAt - NOW) / MIN)).toEqual([0, 20, 150, 170]);
    const summary = planSummary(plan);
    expect(summary).toMatchObject({
      items: 4,
      costUsd: 4,
      endsAt: new Date(NOW + 180 * MIN).toISOString(),
      left: 0,
      paced: true,
    });
    expect(summary.windows).toEqual([
      {
        cli: 'claude',
        kind: 'five_hour',
        utilization: 0.6,
        resetsAt: new Date(RESET_S * 1000).toISOString(),
        runsOutAt: new Date(NOW + 30 * MIN).toISOString(),
        itemsBefore: 2,
        headroomUsd: 2,
      },
    ]);
    expect(summary.groups).toEqual([
      expect.objectContaining({ model: 'sure', items: 2, costUsd: 1.5, seconds: 1200 }),
      expect.objectContaining({ model: 'unsure', items: 2, costUsd: 0.5, seconds: 600 }),
    ]);
  });

  it('leaves for the morning what needs a reset the night would not wait for', () => {
    const plan = planNight(input(night(), { maxLimitWaitMs: HOUR }));
    expect(plan.items.map((p) => [p.id, p.left === undefined])).toEqual([
      ['s1', true],
      ['u1', true],
      ['s2', false],
      ['u2', false],
    ]);
    expect(plan.items[2]).toMatchObject({
      left: "claude's five_hour window runs out under run.reserve",
      leftUntil: RESET_S * 1000,
    });
    expect(plan.likely).toEqual({ items: 2, costUsd: 2, endsAt: NOW + 30 * MIN });
    expect(plan.left).toEqual({ items: 2, costUsd: 2 });
  });

  it('keeps the queue order when the window has room for everything, and with no window known', () => {
    const roomy = planNight(input(night(), { reserve: 0 }));
    // Room for $4 of work: all four fit as they come.
    expect(roomy.items.map((p) => p.id)).toEqual(['u1', 's1', 's2', 'u2']);
    expect(planSummary(roomy).paced).toBe(false);
    const unknown = planNight(input(night(), { windows: [] }));
    expect(unknown.items.map((p) => p.id)).toEqual(['u1', 's1', 's2', 'u2']);
  });

  it('runs items with two workers side by side, dependencies after what they wait on, and says what cannot run', () => {
    const items = [
      queueItem('s1', { model: 'sure' }),
      queueItem('after', { model: 'unsure', dependsOn: ['s1'] }),
      queueItem('s2', { model: 'sure' }),
      queueItem('orphan', { model: 'unsure', dependsOn: ['missing'] }),
      queueItem('refused', { model: 'sure' }),
    ];
    const profiles = new Map<string, Profile | { refused: string }>(
      items.map((i) => [i.id, profile(i.model ?? '')]),
    );
    profiles.set('refused', { refused: 'permission mode needs yolo' });
    const plan = planNight(input(items, { workers: 2, windows: [], profiles }));
    expect(plan.items.map((p) => [p.id, (p.startsAt - NOW) / MIN])).toEqual([
      ['s1', 0],
      ['s2', 0],
      ['after', 20],
    ]);
    expect(plan.refused).toEqual([{ id: 'refused', reason: 'permission mode needs yolo' }]);
    expect(plan.unrunnable.map((u) => u.id)).toEqual(['orphan']);
    expect(plan.unrunnable[0]?.reason).toMatch(/missing/);
  });

  it('starts a dependent of a reviewed, landing item only once it has landed, through the table', () => {
    const items = [
      queueItem('s1', { model: 'sure' }),
      queueItem('after', { model: 'sure', dependsOn: ['s1'] }),
    ];
    const stages = { review: true, land: true, pullRequest: false };
    const profiles = new Map<string, Profile | { refused: string }>(
      items.map((i) => [i.id, { ...profile('sure'), stages }]),
    );
    const plan = planNight(input(items, { windows: [], profiles }));
    expect(plan.items.map((p) => [p.id, p.through])).toEqual([
      ['s1', ['reviewing', 'landing', 'done']],
      ['after', ['reviewing', 'landing', 'done']],
    ]);
    // Its session ends at 20 minutes; its review takes the reviewers' usual 10 before it lands.
    expect(plan.items.map((p) => (p.startsAt - NOW) / MIN)).toEqual([0, 30]);
    const lines = planLines(plan, planSummary(plan), NOW);
    expect(lines.filter((line) => line.includes('then reviewing → landing → done'))).toHaveLength(
      2,
    );
    const unreviewed = planNight(input(items, { windows: [] }));
    expect(unreviewed.items.map((p) => [(p.startsAt - NOW) / MIN, p.through])).toEqual([
      [0, ['done']],
      [20, ['done']],
    ]);
  });

  it("starts nothing once the run's cost cap is spent", () => {
    const plan = planNight(input(night(), { windows: [], maxCostUsd: 2 }));
    expect(plan.items.map((p) => [p.id, p.left])).toEqual([
      ['u1', undefined],
      ['s1', undefined],
      ['s2', "the run's cost cap (--max-cost) comes first"],
      ['u2', "the run's cost cap (--max-cost) comes first"],
    ]);
  });

  it('starts nothing after the deadline', () => {
    const plan = planNight(input(night(), { windows: [], deadline: NOW + 25 * MIN }));
    expect(plan.items.map((p) => [p.id, p.left])).toEqual([
      ['u1', undefined],
      ['s1', undefined],
      ['s2', 'the deadline (--until) comes first'],
      ['u2', 'the deadline (--until) comes first'],
    ]);
  });
});

describe('pacing', () => {
  const candidate = (id: string, cost: number, chance: number, priority = 0): Candidate => ({
    item: queueItem(id, { priority }),
    cli: 'claude',
    estimate: { costUsd: cost, seconds: 60, chance, basis: { kind: 'caps' } },
  });

  it('puts a higher priority first even when it does not fit, and reorders only within a priority', () => {
    const tier = [
      candidate('cheap-unlikely', 0.5, 0.2),
      candidate('likely', 1, 0.9),
      candidate('costly', 2, 0.95),
    ];
    const room = new Map([['claude', 1.5]]);
    // $0.30 of urgent work leaves $1.20: the likeliest that fits, then the rest as they came.
    expect(
      paceOrder([candidate('urgent', 0.3, 0.1, 5), ...tier], room).map((c) => c.item.id),
    ).toEqual(['urgent', 'likely', 'cheap-unlikely', 'costly']);
    // What a night starts next, found in one pass, is the order's first.
    expect(nextPaced(tier, room)?.item.id).toBe('likely');
    expect(nextPaced([candidate('urgent', 3, 0.1, 5), ...tier], room)?.item.id).toBe('urgent');
    // Urgent work dearer than the room still goes first, and leaves no room to pace by.
    expect(
      paceOrder([candidate('urgent', 3, 0.1, 5), ...tier], room).map((c) => c.item.id),
    ).toEqual(['urgent', 'cheap-unlikely', 'likely', 'costly']);
  });

  it('leaves a CLI with no known window in the queue order', () => {
    const order = paceOrder(
      [candidate('a', 3, 0.1), candidate('b', 1, 0.9)],
      new Map([['codex', 0]]),
    );
    expect(order.map((c) => c.item.id)).toEqual(['a', 'b']);
  });
});

describe('the plan in words', () => {
  it('says when a window has no room left under the reserve, and what is left', () => {
    const plan = planNight(input(night(), { reserve: 0.4, maxLimitWaitMs: HOUR }));
    const lines = planSummaryLines(planSummary(plan), { workers: 1, reserve: 0.4, now: NOW });
    expect(lines[0]).toMatch(/^Plan: 0 items tonight, likely \$0\.00 \(1 worker\)$/);
    expect(lines).toContain(
      '  claude five_hour: 60% used, resets ' +
        clockTime(RESET_S * 1000, NOW) +
        '; no room left keeping 40% (run.reserve): nothing starts on claude before it resets',
    );
    expect(lines).toContainEqual(
      expect.stringMatching(/^Left for the morning: 4 items \(likely \$4\.00\)/),
    );
  });
});
