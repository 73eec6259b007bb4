// The transcript people read renders every kind of event; none is dropped.
import { describe, expect, it } from 'vitest';
import { TranscriptRenderer } from '../../src/archive/transcript.js';

describe('the transcript', () => {
  it('shows the tokens a CLI reports apart from its messages, with their cost', () => {
    const renderer = new TranscriptRenderer();
    expect(
      renderer.render({
        kind: 'usage',
        tokens: { inputTokens: 1200, cacheReadTokens: 800, outputTokens: 300 },
        costUsd: 0.0123,
      }),
    ).toEqual(['· tokens: 1200 in, 800 cache read, 300 out · $0.0123']);
    expect(renderer.render({ kind: 'usage', tokens: {} })).toEqual(['· tokens: none reported']);
  });

  it('gathers partial-message deltas into one line before the next event', () => {
    const renderer = new TranscriptRenderer();
    expect(renderer.render({ kind: 'delta' })).toEqual([]);
    expect(renderer.render({ kind: 'delta' })).toEqual([]);
    expect(renderer.render({ kind: 'other', type: 'system', subtype: 'hook' })).toEqual([
      '· 2 partial-message deltas',
      '· system/hook',
    ]);
  });
});
