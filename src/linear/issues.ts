import type { Item } from '../queue/item.js';
import { appliesTo } from '../queue/lifecycle.js';
import type { SourceEntry } from '../sources/entry.js';
import { taskListOf } from '../sources/task-list.js';
import {
  CLOSED_STATE_TYPES,
  type LinearIssue,
  type LinearQuery,
  type LinearTracker,
} from './tracker.js';

/** Whose issues are work: anyone else's are skipped or fenced (`import.trust`). */
export interface LinearTrust {
  /** People trusted whatever their role, by email or Linear username. */
  logins: readonly string[];
  others: 'skip' | 'fence';
}

/** The most issues pulled in for what the query's issues wait for (sub-issues, blockers). */
const MAX_PULLED = 200;

const keyOf = (identifier: string) => `linear:${identifier}`;

/**
 * Whether an issue is the team's own: made by a member (an admin or a member, not a guest, not an
 * integration on behalf of someone outside), or by a person `import.trust.logins` names.
 */
function standingOf(issue: LinearIssue, trust: LinearTrust): { trusted: boolean; as: string } {
  const creator = issue.creator;
  if (creator === undefined) return { trusted: false, as: 'INTEGRATION' };
  const as = creator.guest ? 'GUEST' : creator.admin ? 'ADMIN' : 'MEMBER';
  const named = trust.logins.includes(creator.email) || trust.logins.includes(creator.displayName);
  return { trusted: !creator.guest || named, as };
}

/**
 * A Linear issue as an entry: its words, its checklist as criteria, what it waits for (those of
 * `before` alone, the issues placed before it: a cycle of blockers is cut where it closes).
 */
function entryOf(issue: LinearIssue, trust: LinearTrust, before: ReadonlySet<string>): SourceEntry {
  const { trusted, as } = standingOf(issue, trust);
  const by = issue.creator === undefined ? 'an integration' : `${issue.creator.name} (${as})`;
  const waits = [...issue.children, ...issue.blockedBy].filter(
    (i) => !CLOSED_STATE_TYPES.has(i.stateType) && before.has(i.id),
  );
  return {
    ...(trusted || trust.others === 'fence'
      ? {}
      : {
          skip: `made by ${by}, whom import.trust does not trust (import.trust.others "fence" imports such issues fenced as untrusted text)`,
        }),
    state:
      issue.state.type === 'completed'
        ? 'done'
        : issue.state.type === 'canceled'
          ? 'dropped'
          : 'open',
    id: issue.identifier.toLowerCase(),
    title: issue.title,
    body: issue.description,
    ...(trusted ? { criteria: taskListOf(issue.description) } : {}),
    after: [...new Set(waits.map((i) => keyOf(i.identifier)))],
    source: {
      kind: 'linear',
      key: keyOf(issue.identifier),
      ref: issue.teamKey,
      number: issue.number,
      remoteId: issue.id,
      url: issue.url,
      ...(issue.creator === undefined ? {} : { author: issue.creator.displayName }),
      association: as,
      ...(trusted ? { trusted: true } : {}),
    },
  };
}

/**
 * The team's issues the query matches, the open sub-issues and blockers they wait for (pulled in
 * whatever their state or team: the work cannot be done without them), and the issues imported
 * before that wait in the queue and no longer match, each read again so that one Linear closed
 * ends its item. Those waited for come first.
 */
export async function linearEntries(
  tracker: LinearTracker,
  team: string,
  query: LinearQuery,
  items: readonly Item[],
  trust: LinearTrust,
): Promise<SourceEntry[]> {
  const found = new Map<string, LinearIssue>();
  for (const issue of await tracker.issues(team, query)) found.set(issue.id, issue);
  const wanted = (issues: readonly LinearIssue[]) => [
    ...new Set(
      issues
        .flatMap((issue) => [...issue.children, ...issue.blockedBy])
        .filter((i) => !CLOSED_STATE_TYPES.has(i.stateType) && !found.has(i.id))
        .map((i) => i.id),
    ),
  ];
  // What they wait for, read by the page, and what that waits for in turn.
  let pulled = 0;
  for (let next = wanted([...found.values()]); next.length > 0 && pulled < MAX_PULLED;) {
    const batch = next.slice(0, MAX_PULLED - pulled);
    const read = await tracker.issuesById(batch);
    for (const issue of read) found.set(issue.id, issue);
    pulled += batch.length;
    next = wanted(read);
  }
  for (const item of items) {
    const source = item.source;
    if (
      source?.kind !== 'linear' ||
      source.ref !== team ||
      source.remoteId === undefined ||
      found.has(source.remoteId) ||
      !appliesTo('closed_at_source', item.status)
    )
      continue;
    const issue = await tracker.issue(source.remoteId);
    if (CLOSED_STATE_TYPES.has(issue.state.type)) found.set(issue.id, issue);
  }
  const placed = new Set<string>();
  return waitedForFirst([...found.values()]).map((issue) => {
    const entry = entryOf(issue, trust, placed);
    placed.add(issue.id);
    return entry;
  });
}

/** The issues in an order where each comes after those it waits for (as far as a cycle allows). */
function waitedForFirst(issues: readonly LinearIssue[]): LinearIssue[] {
  const byId = new Map(issues.map((i) => [i.id, i]));
  const placed = new Set<string>();
  const order: LinearIssue[] = [];
  const place = (issue: LinearIssue, path: Set<string>) => {
    if (placed.has(issue.id) || path.has(issue.id)) return;
    path.add(issue.id);
    for (const ref of [...issue.children, ...issue.blockedBy]) {
      const before = byId.get(ref.id);
      if (before !== undefined) place(before, path);
    }
    placed.add(issue.id);
    order.push(issue);
  };
  for (const issue of issues) place(issue, new Set());
  return order;
}
