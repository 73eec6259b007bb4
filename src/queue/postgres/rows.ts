import { CorruptStateError } from '../../lib/errors.js';
import { withConversationId } from '../../lib/state-schema.js';
import { formatIssues } from '../../lib/validation.js';
import { ItemSchema, type Item } from '../item.js';

/** The columns of `ralph_items` a claim filters and orders by, kept beside the item itself. */
export const ITEM_COLUMNS =
  'status, priority, created_at, not_before, retry_after, depends_on, work_dir, attempts, doc';

/** The values of `ITEM_COLUMNS` for an item (`$n` placeholders from `first` on). */
export function itemValues(item: Item): unknown[] {
  return [
    item.status,
    item.priority,
    // The file store orders an item without a creation time first: the epoch does the same.
    item.createdAt ?? new Date(0).toISOString(),
    item.notBefore ?? null,
    item.retryAfter ?? null,
    item.dependsOn,
    workDirKey(item),
    item.attempts,
    JSON.stringify(item),
  ];
}

/** The item's work dir as written ('' for the workspace's default): what a claim passes over. */
export function workDirKey(item: Item): string {
  return item.workDir ?? '';
}

/**
 * An item read back from the database, validated like one read from the queue file; one an
 * older release wrote names its conversation the old way (rewritten at its next change).
 */
export function itemOf(doc: unknown, where: string): Item {
  const parsed = ItemSchema.safeParse(withConversationId(doc));
  if (parsed.success) return parsed.data;
  const id = (doc as { id?: unknown } | null)?.id;
  throw new CorruptStateError(formatIssues(`${where}, item ${JSON.stringify(id)}`, parsed.error));
}
