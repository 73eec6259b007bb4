// A resumed conversation may keep the system prompt it began with: what happened since travels in
// the message it resumes with.
import { describe, expect, it } from 'vitest';
import { initialPromptOf } from '../../src/session/prepare.js';
import { queueItem } from '../support/items.js';

const INITIAL = 'Begin now.';

describe('the message a session starts with', () => {
  it('is the configured one for a session that starts afresh, whatever the item went through', () => {
    const item = queueItem('a', { landFailure: 'conflict', lastError: 'landing failed' });
    expect(initialPromptOf(INITIAL, item, undefined)).toBe(INITIAL);
  });

  it('carries a refused landing and a failed gate to a resumed session', () => {
    const item = queueItem('a', {
      landFailure: 'Your branch could not land: shared.txt',
      gateFailure: 'The gate "test" failed',
      lastError: 'landing on ralph/landed: 1 file in conflict',
    });
    const prompt = initialPromptOf(INITIAL, item, 'conversation-1');
    expect(prompt.startsWith(INITIAL)).toBe(true);
    expect(prompt).toContain('This session resumes your earlier one on this item.');
    expect(prompt).toContain('Your branch could not land: shared.txt');
    expect(prompt).toContain('The gate "test" failed');
    // The one-line error is not said twice when the failure itself is there.
    expect(prompt).not.toContain('Your previous attempt ended');
  });

  it("says how the previous attempt ended when that is all there is, and nothing when there's nothing", () => {
    const interrupted = queueItem('a', { lastError: 'interrupted by the interrupt file' });
    expect(initialPromptOf(INITIAL, interrupted, 'c')).toContain(
      'Your previous attempt ended: interrupted by the interrupt file',
    );
    expect(initialPromptOf(INITIAL, queueItem('b'), 'c')).toBe(INITIAL);
  });
});
