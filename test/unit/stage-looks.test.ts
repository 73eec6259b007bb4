import { describe, expect, it } from 'vitest';
import { StageLooks } from '../../src/stage/looks.js';

describe('StageLooks', () => {
  it('is busy while items wait, and after a change until a look that began after it', () => {
    const looks = new StageLooks();
    expect(looks.busy).toBe(false);
    looks.changed();
    expect(looks.busy).toBe(true);
    // A change while a look reads the queue: that look may not have seen it.
    const begun = looks.begin();
    looks.changed();
    looks.saw(begun, 0);
    expect(looks.busy).toBe(true);
    looks.saw(looks.begin(), 0);
    expect(looks.busy).toBe(false);
    looks.saw(looks.begin(), 2);
    expect(looks.busy).toBe(true);
  });
});
