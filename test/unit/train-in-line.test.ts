// What of a landing train still lands when the target moves: the landings before the first
// item a person took out of line (cancelled) while the train gathered.
import { describe, expect, it } from 'vitest';
import { stillInLine } from '../../src/land/lander.js';

const train = (...ids: string[]) => ids.map((id) => ({ job: { item: { id } } }));
const inLine = (...ids: string[]) => new Set(ids);

describe('a train as it moves', () => {
  it('lands whole while every item is still in line', () => {
    const landings = train('a', 'b', 'c');
    expect(stillInLine(landings, inLine('a', 'b', 'c'))).toEqual({
      kept: landings,
      again: [],
    });
  });

  it('stops before an item taken out of line; those after it land again, unless gone too', () => {
    const landings = train('a', 'b', 'c', 'd');
    const { kept, withdrawn, again } = stillInLine(landings, inLine('a', 'c'));
    expect(kept.map(({ job }) => job.item.id)).toEqual(['a']);
    expect(withdrawn).toBe('b');
    expect(again).toEqual(['c']);
  });

  it('moves nothing when its first item is gone from the queue', () => {
    const { kept, withdrawn, again } = stillInLine(train('a', 'b'), inLine('b'));
    expect(kept).toEqual([]);
    expect(withdrawn).toBe('a');
    expect(again).toEqual(['b']);
  });
});
