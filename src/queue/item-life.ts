import type { ItemEdit, ItemLife } from './item.js';

// Kept apart from the item's schema so that the lifecycle table (which the dashboard's bundle
// reads) checks an edit without zod: a test holds this list to ItemLifeSchema's keys.

/** The fields of an item's life: what ralph writes as it goes, never what a person edits. */
export const ITEM_LIFE_KEYS = [
  'status',
  'attempts',
  'createdAt',
  'updatedAt',
  'startedAt',
  'finishedAt',
  'retryAfter',
  'sessions',
  'costUsd',
  'lastError',
  'lastOutcome',
  'conversationId',
  'branch',
  'baseCommit',
  'head',
  'gateFailure',
  'landRounds',
  'landFailure',
  'landedCommit',
  'landedOn',
  'landedOnto',
  'landedAt',
  'revertedAt',
  'pullRequest',
  'checksHead',
  'checksSince',
  'checks',
  'checkRounds',
  'checksFailure',
  'mergedAt',
  'lookAgain',
  'pushTo',
  'pushedTo',
  'messages',
  'question',
  'verdict',
  'reviewRounds',
  'reviewFindings',
  'unreviewed',
  'decision',
  'reviewCostUsd',
  'roster',
  'candidateOf',
  'judgement',
  'environment',
] as const satisfies readonly (keyof ItemLife)[];

const LIFE: readonly string[] = [...ITEM_LIFE_KEYS, 'id'];

/** The fields of an edit (set or cleared) that are the item's life or its id: none may be. */
export function lifeFieldsIn(fields: ItemEdit | readonly string[]): string[] {
  const keys = Array.isArray(fields) ? (fields as readonly string[]) : Object.keys(fields);
  return keys.filter((key) => LIFE.includes(key));
}
