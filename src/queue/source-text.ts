import type { Item, Source } from './item.js';

/** Where an item was imported from, in a few words: the issue, the plan's line, the story. */
export function sourceText(source: Source): string {
  switch (source.kind) {
    case 'github':
      return `GitHub issue ${source.ref}#${source.number ?? '?'}`;
    case 'gitlab':
      return `GitLab issue ${source.ref}#${source.number ?? '?'}`;
    case 'linear':
      return `Linear issue ${source.ref}-${source.number ?? '?'}`;
    case 'plan':
      return `plan ${source.ref}${source.line === undefined ? '' : `:${source.line}`}`;
    case 'prd':
      return `${source.ref} story ${source.story ?? '?'}`;
  }
}

/** An imported item as a report lists it: where it came from, where it stands. */
export interface ImportedItem {
  itemId: string;
  status: string;
  source: string;
  url?: string;
  /** When its end was written back to its issue. */
  writtenBackAt?: string;
}

/**
 * The imported items among `items` (those worked on in a report's span, when `worked` names
 * them); undefined when none is.
 */
export function importedReport(
  items: readonly Pick<Item, 'id' | 'status' | 'source'>[],
  worked?: ReadonlySet<string>,
): ImportedItem[] | undefined {
  const imported = items.flatMap((item) =>
    item.source === undefined || (worked !== undefined && !worked.has(item.id))
      ? []
      : [
          {
            itemId: item.id,
            status: item.status,
            source: sourceText(item.source),
            ...(item.source.url === undefined ? {} : { url: item.source.url }),
            ...(item.source.writtenBackAt === undefined
              ? {}
              : { writtenBackAt: item.source.writtenBackAt }),
          },
        ],
  );
  return imported.length === 0 ? undefined : imported;
}
