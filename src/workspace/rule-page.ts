import type { Workspace } from '../config/workspace.js';
import { git } from '../git/git.js';
import { NotFoundError } from '../lib/errors.js';
import { readLessons } from '../lessons/store.js';
import { projectRepository } from '../lessons/repository.js';
import type { Lesson, Proposal, Rule } from '../lessons/state.js';
import type { Item } from '../queue/item.js';

// A proposed rule as a person decides on it: its text and scope, and the evidence it rests on
// (each lesson's notes or findings, and the change of each item behind it).

/** Lines of a change's diff shown under a lesson, at most. */
const DIFF_LINES = 40;

export interface RuleEvidence {
  lesson: Lesson;
  /** Each item it rests on: its title, and its change (a diff cut to a few lines) when kept. */
  items: { id: string; title?: string; diff?: string }[];
}

export interface RulePage {
  rule: Rule;
  proposal?: Proposal;
  evidence: RuleEvidence[];
}

/** The rules proposed that wait on a person, oldest first. */
export async function proposedRules(workspace: Workspace): Promise<Rule[]> {
  return (await readLessons(workspace)).rules.filter((r) => r.status === 'proposed');
}

/** The change a lesson is about: the one decided on, else the item's work as it is now. */
function changeOf(
  item: Item | undefined,
  lesson: Lesson,
): { base: string; head: string } | undefined {
  if (lesson.change !== undefined) return lesson.change;
  const head = item?.head ?? item?.landedCommit;
  return item?.baseCommit === undefined || head === undefined
    ? undefined
    : { base: item.baseCommit, head };
}

async function diffOf(repo: string | undefined, item: Item | undefined, lesson: Lesson) {
  const change = changeOf(item, lesson);
  if (repo === undefined || change === undefined) return undefined;
  const text = await git(repo, [
    'diff',
    '--no-color',
    '--stat',
    '-p',
    `${change.base}...${change.head}`,
  ]).catch(() => undefined);
  if (text === undefined || text.trim() === '') return undefined;
  const lines = text.split('\n');
  return lines.length <= DIFF_LINES
    ? text.trimEnd()
    : `${lines.slice(0, DIFF_LINES).join('\n')}\n… ${lines.length - DIFF_LINES} more lines`;
}

/**
 * The pages of the rules `pick` chooses: each rule, its proposal, and each lesson it rests on
 * with its items' changes (the state and the repository read once for all of them).
 */
export async function rulePages(
  workspace: Workspace,
  items: readonly Item[],
  pick: (rule: Rule) => boolean,
): Promise<RulePage[]> {
  const state = await readLessons(workspace);
  const rules = state.rules.filter(pick);
  if (rules.length === 0) return [];
  const repo = await projectRepository(workspace);
  const byId = new Map(items.map((item) => [item.id, item]));
  const evidenceOf = (lesson: Lesson) =>
    Promise.all(
      lesson.items.map(async (itemId) => {
        const item = byId.get(itemId);
        const diff = await diffOf(repo, item, lesson);
        return {
          id: itemId,
          ...(item === undefined ? {} : { title: item.title }),
          ...(diff === undefined ? {} : { diff }),
        };
      }),
    );
  return Promise.all(
    rules.map(async (rule) => {
      const lessons = state.lessons.filter((lesson) => rule.evidence.includes(lesson.id));
      const evidence = await Promise.all(
        lessons.map(async (lesson) => ({ lesson, items: await evidenceOf(lesson) })),
      );
      const proposal = state.proposals.find((p) => p.id === rule.proposal);
      return { rule, ...(proposal === undefined ? {} : { proposal }), evidence };
    }),
  );
}

/** A rule's page, by its id. */
export async function rulePage(
  workspace: Workspace,
  items: readonly Item[],
  id: string,
): Promise<RulePage> {
  const [page] = await rulePages(workspace, items, (rule) => rule.id === id.toUpperCase());
  if (page === undefined)
    throw new NotFoundError(`no rule ${JSON.stringify(id)} (ralph rules lists them)`);
  return page;
}
