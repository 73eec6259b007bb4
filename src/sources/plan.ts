import type { ListItem, Nodes, Paragraph, Root } from 'mdast';
import { fromMarkdown } from 'mdast-util-from-markdown';
import { gfmTaskListItemFromMarkdown } from 'mdast-util-gfm-task-list-item';
import { toString } from 'mdast-util-to-string';
import { gfmTaskListItem } from 'micromark-extension-gfm-task-list-item';
import { MAX_TITLE_CHARS } from '../queue/item.js';
import { slugOf } from '../lib/text.js';
import { SourceError, type SourceEntry } from './entry.js';

// A markdown plan, read with a CommonMark parser (micromark, through mdast) and GitHub's task
// list extension: every `- [ ]` is an item to do, every `- [x]` one done. Regular expressions
// over lines would take a `- [ ]` inside a code block, or miss one a lazy line continues.

/** The line of the first byte that is not UTF-8, for the refusal. */
function badUtf8Line(bytes: Buffer): number {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  let line = 1;
  let start = 0;
  for (let i = 0; i <= bytes.length; i++) {
    if (i === bytes.length || bytes[i] === 0x0a) {
      try {
        decoder.decode(bytes.subarray(start, i));
      } catch {
        return line;
      }
      line++;
      start = i + 1;
    }
  }
  return line;
}

/** The plan's text; a file that is not UTF-8 is refused at the line where it stops being so. */
export function planText(file: string, bytes: Buffer): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new SourceError(`${file}:${badUtf8Line(bytes)}: not UTF-8 text; save the plan as UTF-8`);
  }
}

const isTask = (node: Nodes): node is ListItem =>
  node.type === 'listItem' && typeof node.checked === 'boolean';

/** A task's plain sub-bullets (no box): its acceptance criteria. */
function criteriaItems(item: ListItem): ListItem[] {
  return item.children.flatMap((child) =>
    child.type === 'list' ? child.children.filter((sub) => typeof sub.checked !== 'boolean') : [],
  );
}

/**
 * The lines of a task's own text after its first, without the tasks nested in it nor its
 * criteria, dedented.
 */
function bodyOf(lines: readonly string[], item: ListItem, first: Paragraph | undefined): string {
  const from = (first?.position?.start.line ?? item.position?.start.line ?? 0) + 1;
  const to = item.position?.end.line ?? 0;
  const nested = new Set<number>();
  const criteria = new Set<Nodes>(criteriaItems(item));
  const skipNested = (node: Nodes) => {
    if (node !== item && (isTask(node) || criteria.has(node))) {
      for (let l = node.position?.start.line ?? 0; l <= (node.position?.end.line ?? -1); l++)
        nested.add(l);
      return;
    }
    if ('children' in node) node.children.forEach((child) => skipNested(child));
  };
  skipNested(item);
  const kept: string[] = [];
  for (let l = from; l <= to; l++) if (!nested.has(l)) kept.push(lines[l - 1] ?? '');
  while (kept.length > 0 && kept[0]?.trim() === '') kept.shift();
  while (kept.length > 0 && kept.at(-1)?.trim() === '') kept.pop();
  const indents = kept
    .filter((line) => line.trim() !== '')
    .map((line) => /^[ \t]*/.exec(line)?.[0].length ?? 0);
  const cut = indents.length === 0 ? 0 : Math.min(...indents);
  return kept.map((line) => line.slice(cut)).join('\n');
}

/**
 * The items of a markdown plan, in the order they are written. `ref` is how the plan is named
 * in the items' source (and in their keys: a second import finds them by it).
 */
export function planEntries(ref: string, text: string): SourceEntry[] {
  const tree: Root = fromMarkdown(text, {
    extensions: [gfmTaskListItem()],
    mdastExtensions: [gfmTaskListItemFromMarkdown()],
  });
  const lines = text.split(/\r?\n/);
  const entries: SourceEntry[] = [];
  const seen = new Map<string, number>();
  let heading: string | undefined;
  const visit = (node: Nodes) => {
    if (node.type === 'heading') {
      heading = toString(node).trim() || undefined;
      return;
    }
    if (isTask(node)) entries.push(entryOf(node));
    if ('children' in node) node.children.forEach((child) => visit(child));
  };
  const entryOf = (item: ListItem): SourceEntry => {
    const line = item.position?.start.line ?? 1;
    const first = item.children[0]?.type === 'paragraph' ? item.children[0] : undefined;
    const start = first?.position?.start;
    const title =
      start === undefined ? '' : (lines[start.line - 1] ?? '').slice(start.column - 1).trim();
    if (title === '')
      throw new SourceError(
        `${ref}:${line}: a task "- [ ]" with no text on its line: write what is to be done after the box`,
      );
    if ([...title].length > MAX_TITLE_CHARS)
      throw new SourceError(
        `${ref}:${line}: the task's first line is ${[...title].length} characters, at most ${MAX_TITLE_CHARS}: put the rest on the indented lines below it`,
      );
    const name = `${heading ?? ''}\u0000${title}`;
    const nth = (seen.get(name) ?? 0) + 1;
    seen.set(name, nth);
    return {
      state: item.checked === false ? 'open' : 'done',
      id: slugOf(title, 'task'),
      title,
      body: bodyOf(lines, item, first),
      criteria: criteriaItems(item)
        .map((criterion) => toString(criterion).replace(/\s+/g, ' ').trim())
        .filter((criterion) => criterion !== ''),
      vars: heading === undefined ? {} : { PLAN_HEADING: heading },
      source: {
        kind: 'plan',
        key: `plan:${ref}#${heading ?? ''}/${title}${nth > 1 ? `#${nth}` : ''}`,
        ref,
        line,
      },
    };
  };
  visit(tree);
  return entries;
}
