import path from 'node:path';
import picomatch from 'picomatch';
import type { Workspace } from '../config/workspace.js';
import type { Item } from '../queue/item.js';
import type { Queue } from '../queue/queue.js';
import { readLessons } from './store.js';
import type { LessonsState, Rule } from './state.js';

// The rules in force, as every later session is given them: an author follows them (in the part
// of its prompt that is the same for every item), a reviewer or judge checks each rule whose
// scope the change touches, and a reviewer does not raise a finding a person dismissed.

/**
 * The rules in force: those a person accepted and has not retired; one that lives in the
 * repository once the change carrying it there has landed (`items`: the queue as it is).
 */
export function rulesInForce(state: LessonsState, items: readonly Item[]): Rule[] {
  const landed = new Set(
    items.filter((i) => i.landedCommit !== undefined || i.mergedAt !== undefined).map((i) => i.id),
  );
  return state.rules.filter(
    (rule) =>
      rule.status === 'accepted' &&
      (rule.into !== 'repository' ||
        rule.kind === 'dismiss' ||
        (rule.landingItem !== undefined && landed.has(rule.landingItem))),
  );
}

/**
 * The rules in force now; the queue is read only when a rule lives in the repository (whether
 * its change has landed).
 */
export async function rulesInForceNow(
  workspace: Workspace,
  queue: Pick<Queue, 'list'>,
): Promise<Rule[]> {
  const state = await readLessons(workspace);
  const carried = state.rules.some(
    (r) => r.status === 'accepted' && r.into === 'repository' && r.kind === 'follow',
  );
  return rulesInForce(state, carried ? await queue.list() : []);
}

/** Whether a change of `files` (repository paths) is in a rule's scope (none: every change is). */
export function inScope(rule: Pick<Rule, 'scope'>, files: readonly string[]): boolean {
  if (rule.scope.length === 0) return true;
  const match = picomatch(rule.scope, { dot: true });
  return files.some((file) => match(file) || rule.scope.some((s) => file.startsWith(s)));
}

/**
 * The rules an author is told, the same bytes for every item: the rules to follow that live in
 * ralph's workspace (those in the repository reach it through the project's own file).
 */
export function standingRules(rules: readonly Rule[]): string | undefined {
  const follow = rules.filter((r) => r.kind === 'follow' && r.into !== 'repository');
  if (follow.length === 0) return undefined;
  return [
    'Rules of this project, each accepted by a person from their decisions on earlier work. Follow every one; a change that breaks one is sent back.',
    '',
    ...follow.map((r) => `- ${r.id}${scopeText(r)}: ${r.text}`),
  ].join('\n');
}

const scopeText = (rule: Pick<Rule, 'scope'>) =>
  rule.scope.length === 0 ? '' : ` (${rule.scope.join(', ')})`;

/** What a reviewer or judge checks of a change of `files`: the rules in scope, the findings not to raise. */
export interface RuleChecks {
  /** The rules to check, each as one more criterion. */
  rules: readonly Rule[];
  /** The findings a person dismissed: not to be raised again. */
  dismissed: readonly Rule[];
}

export function checksFor(rules: readonly Rule[], files: readonly string[]): RuleChecks {
  const scoped = rules.filter((r) => inScope(r, files));
  return {
    rules: scoped.filter((r) => r.kind === 'follow'),
    dismissed: scoped.filter((r) => r.kind === 'dismiss'),
  };
}

/** A rule as a criterion a reviewer or judge is given. */
export const ruleCriterion = (rule: Rule) => `Rule ${rule.id}${scopeText(rule)}: ${rule.text}`;

/** ralph's own rules file, beside the standing instructions: what a person reads of them. */
export const rulesFile = (workspace: Workspace) =>
  path.join(path.dirname(workspace.paths.instructions), 'rules.md');
