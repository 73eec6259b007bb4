import type { SessionKind } from '../stage/sessions.js';
import { readVerdict, VERDICT_JSON_SCHEMA, type Verdict } from './verdict.js';

/**
 * The reviewer, a kind of session the review stage asks for: it reads the item's work and
 * answers a verdict on `criteria` (the item's, then the rules in force it is to check), which is
 * read whole and checked against them.
 */
export function reviewerOf(criteria: readonly string[]): SessionKind<Verdict> {
  return {
    role: 'reviewer',
    task: 'Review',
    identity: 'You are a reviewer run by ralph, an unattended runner of a queue of coding tasks.',
    start:
      'Review the change described under "# Assignment", and end with the verdict it asks for.',
    outputSchema: VERDICT_JSON_SCHEMA,
    read: (text) => {
      const read = readVerdict(text, criteria);
      return read.kind === 'invalid' ? read : { kind: 'valid', value: read.verdict };
    },
  };
}
