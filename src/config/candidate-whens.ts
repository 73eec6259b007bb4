/**
 * When an item's candidates run: from the start, or once its own attempt failed. Apart from the
 * schema, so that the command line's choices load no validator.
 */
export const CANDIDATE_WHENS = ['always', 'after_failure'] as const;
export type CandidateWhen = (typeof CANDIDATE_WHENS)[number];
