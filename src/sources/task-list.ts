import type { Nodes } from 'mdast';
import { fromMarkdown } from 'mdast-util-from-markdown';
import { gfmTaskListItemFromMarkdown } from 'mdast-util-gfm-task-list-item';
import { toString } from 'mdast-util-to-string';
import { gfmTaskListItem } from 'micromark-extension-gfm-task-list-item';

/** The text of each `- [ ]` and `- [x]` of a markdown text (an issue's task list), in order. */
export function taskListOf(markdown: string): string[] {
  const tree = fromMarkdown(markdown, {
    extensions: [gfmTaskListItem()],
    mdastExtensions: [gfmTaskListItemFromMarkdown()],
  });
  const tasks: string[] = [];
  const visit = (node: Nodes) => {
    if (node.type === 'listItem' && typeof node.checked === 'boolean') {
      const first = node.children[0];
      const text = first === undefined ? '' : toString(first).replace(/\s+/g, ' ').trim();
      if (text !== '') tasks.push(text);
    }
    if ('children' in node) node.children.forEach((child) => visit(child));
  };
  visit(tree);
  return tasks;
}
