/**
 * A person's decision on an item's work: its kind, as the ledger and the item record it, and
 * the verb a person decides it with (the command, the route, the dashboard's button). One table
 * holds both, so the two spellings never drift; zod-free, since the dashboard reads it.
 */
export const DECISION_VERBS = {
  accepted: 'accept',
  rejected: 'reject',
  deferred: 'defer',
} as const;

export type DecisionKind = keyof typeof DECISION_VERBS;
export type DecisionVerb = (typeof DECISION_VERBS)[DecisionKind];

export const DECISION_KINDS = Object.keys(DECISION_VERBS) as [DecisionKind, ...DecisionKind[]];
export const DECISION_VERB_LIST = Object.values(DECISION_VERBS) as [
  DecisionVerb,
  ...DecisionVerb[],
];
