import { describe, expect, it } from 'vitest';
import { cronMatches, cronProblem, nextCronTime } from '../../src/lib/cron.js';
import { exponentialBackoffMs } from '../../src/lib/backoff.js';
import { checkRunLimits, parseDeadline } from '../../src/runner/run-limits.js';

const at = (iso: string) => Date.parse(iso);

describe('checkRunLimits', () => {
  it('is open with the budget left', () => {
    expect(checkRunLimits({ windows: [], maxCostUsd: 2 }, at('2026-11-22T01:00:00Z'), 0.5)).toEqual(
      {
        kind: 'open',
        budgetLeftUsd: 1.5,
      },
    );
    expect(checkRunLimits({ windows: [] }, 0, 100)).toEqual({
      kind: 'open',
      budgetLeftUsd: undefined,
    });
  });

  it('stops at the deadline and when the budget is spent', () => {
    const deadline = at('2026-11-22T07:00:00Z');
    expect(checkRunLimits({ windows: [], deadline }, deadline, 0).kind).toBe('stop');
    expect(checkRunLimits({ windows: [], deadline }, deadline - 1, 0).kind).toBe('open');
    expect(checkRunLimits({ windows: [], maxCostUsd: 1 }, 0, 1).kind).toBe('stop');
  });

  it('waits for the next window, or stops if none opens before the deadline', () => {
    const limits = { windows: ['* 22-23,0-5 * * *'], timeZone: 'UTC' };
    expect(checkRunLimits(limits, at('2026-11-22T23:59:00Z'), 0).kind).toBe('open');
    expect(checkRunLimits(limits, at('2026-11-22T12:00:00Z'), 0)).toEqual({
      kind: 'wait',
      until: at('2026-11-22T22:00:00Z'),
      reason: 'outside the run windows',
    });
    expect(
      checkRunLimits(
        { ...limits, deadline: at('2026-11-22T20:00:00Z') },
        at('2026-11-22T12:00:00Z'),
        0,
      ).kind,
    ).toBe('stop');
  });
});

describe('parseDeadline', () => {
  it('reads HH:MM as the next such local time', () => {
    const now = new Date(2026, 10, 22, 23, 30).getTime();
    expect(parseDeadline('07:00', now)).toBe(new Date(2026, 10, 23, 7, 0).getTime());
    expect(parseDeadline('23:45', now)).toBe(new Date(2026, 10, 22, 23, 45).getTime());
    expect(parseDeadline('2026-11-23T06:00:00Z', now)).toBe(at('2026-11-23T06:00:00Z'));
    expect(parseDeadline('25:00', now)).toBeUndefined();
    expect(parseDeadline('soon', now)).toBeUndefined();
  });
});

describe('cron', () => {
  it('refuses an empty expression and wrong field counts', () => {
    expect(cronProblem('')).toMatch(/cannot be empty/);
    expect(cronProblem('* * *')).toMatch(/expected 5 fields/);
    expect(cronProblem('0 3 * * *')).toBeUndefined();
    expect(cronProblem('61 * * * *')).toMatch(/invalid/);
  });

  it('T30 is never at or before now, across the 2026 DST changes: each next time exact', () => {
    // UTC instants of the next four runs from `start`, through both 2026 changes in both zones.
    const cases: [string, string, string, string[]][] = [
      // 02:30 does not exist on 8 March in New York: that day's run is at 03:30 EDT, once.
      [
        'America/New_York',
        '2026-03-08T06:00:00Z',
        '30 2 * * *',
        ['03-08T07:30', '03-09T06:30', '03-10T06:30', '03-11T06:30'],
      ],
      // 02:30 comes once on 1 November (EST, after 01:00–02:00 repeats).
      [
        'America/New_York',
        '2026-11-01T05:00:00Z',
        '30 2 * * *',
        ['11-01T07:30', '11-02T07:30', '11-03T07:30', '11-04T07:30'],
      ],
      // 01:30 comes twice that night: the job runs once, at the first.
      [
        'America/New_York',
        '2026-11-01T05:00:00Z',
        '30 1 * * *',
        ['11-01T05:30', '11-02T06:30', '11-03T06:30', '11-04T06:30'],
      ],
      // Rome skips 02:00–03:00 on 29 March: every half hour of real time, none lost.
      [
        'Europe/Rome',
        '2026-03-29T00:00:00Z',
        '*/30 * * * *',
        ['03-29T00:30', '03-29T01:00', '03-29T01:30', '03-29T02:00'],
      ],
      // And lives 02:00–03:00 twice on 25 October: every half hour, none twice at one instant.
      [
        'Europe/Rome',
        '2026-10-25T00:00:00Z',
        '*/30 * * * *',
        ['10-25T00:30', '10-25T01:00', '10-25T01:30', '10-25T02:00'],
      ],
    ];
    for (const [tz, start, expression, expected] of cases) {
      let now = at(start);
      const seen: string[] = [];
      for (let i = 0; i < expected.length; i++) {
        const next = nextCronTime(expression, now, tz);
        expect(next).toBeGreaterThan(now);
        seen.push(new Date(next).toISOString().slice(5, 16));
        now = next;
      }
      expect(seen, `${tz} ${expression} from ${start}`).toEqual(expected);
    }
  });

  it('matches the minutes an expression names', () => {
    expect(cronMatches('* 22-23 * * *', at('2026-11-22T22:17:45Z'), 'UTC')).toBe(true);
    expect(cronMatches('* 22-23 * * *', at('2026-11-22T21:59:59Z'), 'UTC')).toBe(false);
  });
});

describe('exponentialBackoffMs', () => {
  it('doubles up to the cap', () => {
    expect([1, 2, 3, 10].map((n) => exponentialBackoffMs(n, 2000, 300_000))).toEqual([
      2000, 4000, 8000, 300_000,
    ]);
  });
});
