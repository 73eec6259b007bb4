import { describe, expect, it } from 'vitest';
import {
  decide,
  effectiveStopReason,
  type Observation,
  type SupervisionLimits,
} from '../../src/agent/supervision-policy.js';

const T0 = Date.parse('2026-11-23T01:00:00Z');
const LIMITS: SupervisionLimits = {
  timeoutMs: 3_600_000,
  idleTimeoutMs: 900_000,
  afterResultGraceMs: 10_000,
  maxOutputBytes: 1_000,
  heartbeatMs: 2_000,
  emptyInterruptGraceMs: 250,
};
const calm = (changes: Partial<Observation> = {}): Observation => ({
  now: T0 + 60_000,
  startedAt: T0,
  lastActivityAt: T0 + 59_000,
  outputBytes: 10,
  turns: 0,
  interrupt: 'absent',
  changedSinceHeartbeat: false,
  lastHeartbeatAt: T0 + 59_000,
  ...changes,
});

describe('the supervision policy', () => {
  it('lets a busy session run', () => {
    expect(decide(calm(), LIMITS)).toEqual({ heartbeat: false });
  });

  it('stops at once for an interrupt file with a reason', () => {
    expect(decide(calm({ interrupt: 'present' }), LIMITS).stop).toBe('interrupt');
  });

  it('waits briefly for the reason of an empty interrupt file, then stops anyway', () => {
    const waiting = decide(calm({ interrupt: 'empty', emptyInterruptSince: T0 + 59_900 }), LIMITS);
    expect(waiting).toEqual({ heartbeat: false, recheckInMs: 150 });
    const due = decide(calm({ interrupt: 'empty', emptyInterruptSince: T0 + 59_750 }), LIMITS);
    expect(due.stop).toBe('interrupt');
  });

  it('stops an agent that lingers past the grace after its result', () => {
    expect(decide(calm({ resultSeenAt: T0 + 55_000 }), LIMITS).stop).toBeUndefined();
    expect(decide(calm({ resultSeenAt: T0 + 50_000 }), LIMITS).stop).toBe('after_result');
  });

  it('stops a flood past the output cap', () => {
    expect(decide(calm({ outputBytes: 1_000 }), LIMITS).stop).toBeUndefined();
    expect(decide(calm({ outputBytes: 1_001 }), LIMITS).stop).toBe('output_limit');
  });

  it('holds a CLI without limits of its own to the turns and budget ralph counts', () => {
    const held = { ...LIMITS, maxTurns: 3, maxCostUsd: 0.5 };
    expect(decide(calm({ turns: 3, costUsd: 0.5 }), held).stop).toBeUndefined();
    expect(decide(calm({ turns: 4 }), held).stop).toBe('max_turns');
    expect(decide(calm({ costUsd: 0.51 }), held).stop).toBe('max_budget');
    // Without those limits (claude holds itself to them), the counts decide nothing.
    expect(decide(calm({ turns: 400, costUsd: 50 }), LIMITS).stop).toBeUndefined();
  });

  it('stops when the disk runs low', () => {
    expect(decide(calm({ diskLow: 'state has 1 MB free' }), LIMITS).stop).toBe('disk_full');
  });

  it('stops at the wall-clock timeout and after the idle timeout', () => {
    expect(decide(calm({ now: T0 + 3_600_000, lastActivityAt: T0 + 3_599_000 }), LIMITS).stop).toBe(
      'timeout',
    );
    expect(decide(calm({ now: T0 + 900_000, lastActivityAt: T0 }), LIMITS).stop).toBe(
      'idle_timeout',
    );
    expect(decide(calm({ now: T0 + 899_999, lastActivityAt: T0 }), LIMITS).stop).toBeUndefined();
  });

  it('decides in order: a person first, then a lingering agent, a flood, the disk, the clock', () => {
    const everything = calm({
      now: T0 + 4_000_000,
      lastActivityAt: T0,
      resultSeenAt: T0,
      outputBytes: 5_000,
      diskLow: 'low',
    });
    expect(decide({ ...everything, interrupt: 'present' }, LIMITS).stop).toBe('interrupt');
    expect(decide(everything, LIMITS).stop).toBe('after_result');
    expect(decide({ ...everything, resultSeenAt: undefined }, LIMITS).stop).toBe('output_limit');
    expect(decide({ ...everything, resultSeenAt: undefined, outputBytes: 0 }, LIMITS).stop).toBe(
      'disk_full',
    );
    const clockOnly = {
      ...everything,
      resultSeenAt: undefined,
      outputBytes: 0,
      diskLow: undefined,
    };
    expect(decide(clockOnly, LIMITS).stop).toBe('timeout');
  });

  it('asks for a heartbeat when something changed and the last is old enough', () => {
    expect(decide(calm({ changedSinceHeartbeat: true }), LIMITS).heartbeat).toBe(false);
    expect(
      decide(calm({ changedSinceHeartbeat: true, lastHeartbeatAt: T0 + 58_000 }), LIMITS).heartbeat,
    ).toBe(true);
    expect(decide(calm({ lastHeartbeatAt: T0 }), LIMITS).heartbeat).toBe(false);
  });

  it('keeps the result of an agent stopped after it', () => {
    expect(effectiveStopReason('interrupt', true)).toBe('after_result');
    expect(effectiveStopReason('interrupt', false)).toBe('interrupt');
  });
});
