import type { SessionKind } from '../stage/sessions.js';
import { readVerdict, VERDICT_JSON_SCHEMA, type Verdict } from './verdict.js';

/**
 * The reviewer, a kind of session the review stage asks for: it reads the item's work and
 * answers a verdict on its criteria, which is read whole and checked against them.
 */
export const REVIEWER: SessionKind<Verdict> = {
  role: 'reviewer',
  task: 'Review',
  identity: 'You are a reviewer run by ralph, an unattended runner of a queue of coding tasks.',
  start: 'Review the change described under "# Assignment", and end with the verdict it asks for.',
  outputSchema: VERDICT_JSON_SCHEMA,
  read: (text, item) => {
    const read = readVerdict(text, item.criteria ?? []);
    return read.kind === 'invalid' ? read : { kind: 'valid', value: read.verdict };
  },
};
