import { GITLAB_ACCESS_LEVELS, type Forge, type Issue, type IssueQuery } from '../forge/forge.js';

type GitLabAccessLevel = keyof typeof GITLAB_ACCESS_LEVELS;
import type { ForgeKind } from '../forge/config-schema.js';
import type { Item } from '../queue/item.js';
import type { SourceEntry } from './entry.js';
import { taskListOf } from './task-list.js';
import { appliesTo } from '../queue/lifecycle.js';

/** Whose issues are work (`import.trust`). */
export interface IssueTrust {
  associations: readonly string[];
  /** GitLab: the least access level trusted, by name (`developer`). */
  accessLevel: string;
  logins: readonly string[];
  others: 'skip' | 'fence';
}

/** Whether the issue's author is one the workspace trusts, by their standing on its forge. */
function trusts(kind: ForgeKind, issue: Issue, trust: IssueTrust): boolean {
  if (issue.author !== undefined && trust.logins.includes(issue.author)) return true;
  if (kind === 'gitlab') {
    const least = GITLAB_ACCESS_LEVELS[trust.accessLevel.toUpperCase() as GitLabAccessLevel];
    return (issue.authorAccessLevel ?? 0) >= (least ?? Infinity);
  }
  return (
    issue.authorAssociation !== undefined && trust.associations.includes(issue.authorAssociation)
  );
}

/** A forge's issue as an entry: its title and words, its number and who wrote it. */
function entryOf(kind: ForgeKind, repo: string, issue: Issue, trust: IssueTrust): SourceEntry {
  const trusted = trusts(kind, issue, trust);
  const by = `opened by ${issue.author === undefined ? 'someone unknown' : `@${issue.author}`} (${issue.authorAssociation ?? 'standing unknown'})`;
  return {
    ...(trusted || trust.others === 'fence'
      ? {}
      : {
          skip: `${by}, whom import.trust does not trust (import.trust.others "fence" imports such issues fenced as untrusted text)`,
        }),
    state: issue.state === 'open' ? 'open' : issue.closedAs === 'not_planned' ? 'dropped' : 'done',
    id: `issue-${issue.number}`,
    title: issue.title,
    body: issue.body,
    // A trusted author's task list is the item's criteria; anyone else's stays in the fence.
    ...(trusted ? { criteria: taskListOf(issue.body) } : {}),
    source: {
      kind,
      key: `${kind}:${repo}#${issue.number}`,
      ref: repo,
      number: issue.number,
      url: issue.url,
      ...(issue.author === undefined ? {} : { author: issue.author }),
      ...(issue.authorAssociation === undefined ? {} : { association: issue.authorAssociation }),
      ...(trusted ? { trusted: true } : {}),
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
  source: { kind: ForgeKind; repo: string },
  query: IssueQuery,
  items: readonly Item[],
  trust: IssueTrust,
): Promise<SourceEntry[]> {
  const { kind, repo } = source;
  const open = await forge.issues(query);
  const listed = new Set(open.map((i) => i.number));
  const entries = open.map((issue) => entryOf(kind, repo, issue, trust));
  for (const item of items) {
    const from = item.source;
    if (
      !appliesTo('closed_at_source', item.status) ||
      from?.kind !== kind ||
      from.ref !== repo ||
      from.number === undefined ||
      listed.has(from.number)
    )
      continue;
    const issue = await forge.issue(from.number);
    if (issue.state === 'closed') entries.push(entryOf(kind, repo, issue, trust));
  }
  return entries;
}
