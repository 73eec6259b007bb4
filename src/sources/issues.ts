import type { Forge, Issue, IssueQuery } from '../forge/forge.js';
import type { Item } from '../queue/item.js';
import type { SourceEntry } from './entry.js';

/** A forge's issue as an entry: its title and words, its number and who wrote it. */
function entryOf(repo: string, issue: Issue): SourceEntry {
  return {
    open: issue.state === 'open',
    id: `issue-${issue.number}`,
    title: issue.title,
    body: issue.body,
    source: {
      kind: 'github',
      key: `github:${repo}#${issue.number}`,
      ref: repo,
      number: issue.number,
      url: issue.url,
      ...(issue.author === undefined ? {} : { author: issue.author }),
    },
  };
}

/**
 * The issues of `repo` the query matches, and those imported before that wait in the queue and
 * no longer match: each asked for again, so that a closed one cancels its item (one that is
 * open but lost its label is left as it is).
 */
export async function issueEntries(
  forge: Forge,
  repo: string,
  query: IssueQuery,
  items: readonly Item[],
): Promise<SourceEntry[]> {
  const open = await forge.issues(query);
  const listed = new Set(open.map((i) => i.number));
  const entries = open.map((issue) => entryOf(repo, issue));
  for (const item of items) {
    const source = item.source;
    if (
      item.status !== 'pending' ||
      source?.kind !== 'github' ||
      source.ref !== repo ||
      source.number === undefined ||
      listed.has(source.number)
    )
      continue;
    const issue = await forge.issue(source.number);
    if (issue.state === 'closed') entries.push(entryOf(repo, issue));
  }
  return entries;
}
