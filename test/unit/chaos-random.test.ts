import { afterEach, describe, expect, it } from 'vitest';
import { chaosRandom } from '../reliability/harness.js';

afterEach(() => {
  delete process.env.CHAOS_SEED;
});

describe('the chaos tests’ kill schedule', () => {
  it('replays the same intervals from the seed a failure printed', () => {
    const first = chaosRandom();
    const drawn = Array.from({ length: 20 }, () => first.next());
    process.env.CHAOS_SEED = String(first.seed);
    const again = chaosRandom();
    expect(again.seed).toBe(first.seed);
    expect(Array.from({ length: 20 }, () => again.next())).toEqual(drawn);
    for (const x of drawn) expect(x >= 0 && x < 1).toBe(true);
  });
});
