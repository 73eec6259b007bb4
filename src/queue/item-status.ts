/** Statuses of a queue item; apart from the schema, so that listing them loads no validator. */
export const ITEM_STATUSES = [
  'pending',
  'running',
  /** Its session and gates passed; its branch waits to land on the target (or is landing). */
  'landing',
  'done',
  'failed',
  'interrupted',
  'cancelled',
] as const;

export type ItemStatus = (typeof ITEM_STATUSES)[number];
