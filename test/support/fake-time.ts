import type { Clock } from '../../src/lib/clock.js';
import type { Wait, WaitOptions } from '../../src/runner/wait.js';

/** A clock that only moves when the runner waits: every wait jumps to its end at once. */
export function fakeTime(start: number): {
  clock: Clock;
  wait: Wait;
  waits: WaitOptions[];
  now(): number;
  /** Moves the clock on to `ms` (never back): time passing while something else ran. */
  advanceTo(ms: number): void;
} {
  let now = start;
  const waits: WaitOptions[] = [];
  return {
    clock: { now: () => now },
    waits,
    now: () => now,
    advanceTo: (ms) => {
      now = Math.max(now, ms);
    },
    wait: (options) => {
      waits.push(options);
      now += Math.max(0, options.ms);
      return Promise.resolve();
    },
  };
}
