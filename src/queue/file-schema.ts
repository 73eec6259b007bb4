import { withConversationId, schemaOf } from '../lib/state-schema.js';

/**
 * A pull request waiting for a person's merge is `awaiting_merge`, its outcome `ready_to_merge`:
 * before schema 10 they were `awaiting_review` and `ready_for_review`, and before schema 7 it was
 * `done` with that outcome.
 */
function awaitingMerge(value: unknown, schema: number): unknown {
  if (typeof value !== 'object' || value === null) return value;
  const item = value as Record<string, unknown>;
  const ready = item.lastOutcome === 'ready_for_review';
  // From schema 7 on, a done item with that outcome was merged or accepted since: it stays done.
  const waited =
    item.status === 'awaiting_review' || (schema < 7 && ready && item.status === 'done');
  return {
    ...item,
    ...(ready ? { lastOutcome: 'ready_to_merge' } : {}),
    ...(waited ? { status: 'awaiting_merge' } : {}),
  };
}

/**
 * The schema of a queue file (`state/queue.json`, an export). 2: an item's conversation to
 * resume is `conversationId` (1 called it `claudeSessionId`, whichever CLI held it). 3: an item
 * may be `landing`, and says where it landed. 4: an item may be `awaiting_checks`, with its pull
 * request, or `needs_input`, and has messages. 5: an item may say where it was imported from
 * (`source`). 6: an item may be `parked` (a person stopped it). 7: a pull request that waits
 * for a person is `awaiting_review` (before, `done` with the outcome `ready_for_review`). 8: an item
 * may be `reviewing`, and keeps its reviewer's last verdict. 9: an item may be `preparing` (its
 * worktree's setup), and keeps its environment. 10: a pull request waiting for a person's merge
 * is `awaiting_merge`, its outcome `ready_to_merge` (`review` is the AI reviewer's alone). 11: an
 * item may be `judging` (several CLIs try it), with its candidates, and a candidate says whose
 * it is. Its `version` is another thing: a counter of the file's writes.
 */
export const QUEUE_SCHEMA = 11;

/** A queue file's text as ralph writes it. */
export function queueFileText(version: number, items: readonly unknown[]): string {
  return `${JSON.stringify({ schema: QUEUE_SCHEMA, version, items }, null, 2)}\n`;
}

/**
 * A queue file as read, in the current schema: an older one migrated, a newer one refused
 * (`CorruptStateError`, the file untouched). What remains is validated by the caller.
 */
export function migrateQueueFile(file: string, raw: unknown): unknown {
  const schema = schemaOf(file, raw, QUEUE_SCHEMA);
  if (schema === QUEUE_SCHEMA) return raw;
  const queue = raw as { items?: unknown };
  return {
    ...queue,
    schema: QUEUE_SCHEMA,
    items: Array.isArray(queue.items)
      ? queue.items.map((item) => awaitingMerge(withConversationId(item), schema))
      : queue.items,
  };
}
