// What a person is told of a night: one message a happening, from the runner's events.
import { describe, expect, it } from 'vitest';
import type { RunnerEvent } from '../../src/events/events.js';
import { NightNotes } from '../../src/notify/messages.js';

const at = (minute: number) => `2026-11-26T02:${String(minute).padStart(2, '0')}:00.000Z`;
const event = (minute: number, fields: Record<string, unknown>) =>
  ({ time: at(minute), level: 'info', ...fields }) as unknown as RunnerEvent;

const finished = (minute: number, extra: Record<string, unknown> = {}) =>
  event(minute, {
    event: 'run_finished',
    sessions: 3,
    succeeded: 2,
    failed: 1,
    rejected: 0,
    awaitingRetry: 0,
    outcomes: {},
    costUsd: 1.234,
    ...extra,
  });

describe('the night told', () => {
  it('says a usage limit once for its reset, a pause for each reason, a cost cap but not a deadline', () => {
    const notes = new NightNotes('nightly');
    const limit = (minute: number, until: string) =>
      notes.messageOf(event(minute, { event: 'limit_wait', until, reason: 'five-hour limit' }));
    expect(limit(1, at(50))?.events).toEqual(['night_paused']);
    expect(limit(2, at(50))).toBeUndefined();
    expect(limit(3, at(59))?.title).toBe(`ralph (nightly): a usage limit: waiting until ${at(59)}`);
    expect(
      notes.messageOf(event(4, { event: 'run_limit_reached', reason: 'the deadline has passed' })),
    ).toBeUndefined();
    expect(
      notes.messageOf(event(4, { event: 'run_limit_reached', reason: 'spent', cost: true }))
        ?.events,
    ).toEqual(['cost_cap']);
    expect(
      notes.messageOf(event(5, { event: 'session_ended', item: 'a', itemStatus: 'pending' })),
    ).toBeUndefined();
  });

  it('tells a dead runner, and a stop by a signal as the night ending too', () => {
    const notes = new NightNotes('nightly');
    expect(
      notes.messageOf(event(0, { event: 'stale_lock_reclaimed', file: 'x', holder: 'unknown' }))
        ?.text,
    ).toMatch(/^The last runner ended without stopping/);
    notes.messageOf(event(0, { event: 'run_started' }));
    notes.messageOf(event(10, { event: 'landed', item: 'a', already: false }));
    notes.messageOf(event(11, { event: 'landed', item: 'b', already: true }));
    notes.messageOf(
      event(12, {
        event: 'land_refused',
        item: 'c',
        itemStatus: 'failed',
        outcome: 'land_conflict',
        target: 't',
        error: 'conflict in x',
      }),
    );
    const digest = notes.messageOf(finished(30, { stoppedBy: 'SIGTERM' }));
    expect(digest?.events).toEqual(['night_ended', 'runner_stopped']);
    expect(digest?.title).toBe('ralph (nightly): the night ended (stopped by SIGTERM)');
    expect(digest?.text).toBe(
      [
        '2 of 3 sessions succeeded; 1 item failed; 1 landed; 0 pull requests opened.',
        'Spent $1.23 in 30m00s.',
        'Failed:',
        '- c: land_conflict on t: conflict in x',
      ].join('\n'),
    );
  });
});
