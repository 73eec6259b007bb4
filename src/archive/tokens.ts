import type { SessionTokens } from './record.js';

/** A session's tokens of every kind (input, output, cache reads and writes), summed. */
export const allTokens = (t: SessionTokens): number =>
  t.input + t.output + (t.cacheRead ?? 0) + (t.cacheCreation ?? 0);
