/** Statuses of a queue item; apart from the schema, so that listing them loads no validator. */
export const ITEM_STATUSES = [
  'pending',
  'running',
  /** Its session and gates passed; its branch waits to land on the target (or is landing). */
  'landing',
  /** Its branch is pushed and its pull request open: it waits for the forge's checks. */
  'awaiting_checks',
  /** Its agent asked a person something (`question`): it waits for `ralph say`. */
  'needs_input',
  /**
   * A person stopped it (`ralph stop`): out of line, its attempt given back, until `ralph
   * resume <id>` (or `ralph retry`) puts it back.
   */
  'parked',
  'done',
  'failed',
  'interrupted',
  'cancelled',
] as const;

export type ItemStatus = (typeof ITEM_STATUSES)[number];
