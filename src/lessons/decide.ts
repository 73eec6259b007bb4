import type { Workspace } from '../config/workspace.js';
import { InputError } from '../lib/errors.js';
import { writeFileAtomically } from '../lib/fs.js';
import type { Item } from '../queue/item.js';
import { statusIs } from '../queue/item-status.js';
import type { Queue } from '../queue/queue.js';
import { rulesChange } from './repository.js';
import { rulesFile, rulesInForceNow } from './rules.js';
import { changeLessons, readLessons } from './store.js';
import type { LessonsState, Rule } from './state.js';

// A person's decisions on proposed rules: accepted (in force from then on, or once its change
// has landed in the repository), rejected with a note (never proposed again), or retired.

export interface RuleDecision {
  rule: string;
  kind: 'accepted' | 'rejected';
  by: string;
  note?: string;
}

const find = (state: LessonsState, id: string): Rule => {
  const rule = state.rules.find((r) => r.id === id.toUpperCase());
  if (rule === undefined)
    throw new InputError(`no rule ${JSON.stringify(id)} (ralph rules lists them)`);
  return rule;
};

/** Decides on a proposed rule; where it lives is made to hold it (its file, or its change put in line). */
export async function decideRule(
  workspace: Workspace,
  queue: Queue,
  ask: RuleDecision,
  now: number,
): Promise<{ rule: Rule; change?: Item }> {
  const decided = await changeLessons(workspace, (state) => {
    const rule = find(state, ask.rule);
    if (rule.status !== 'proposed')
      throw new InputError(`${rule.id} is ${rule.status} already: only a proposed rule is decided`);
    const note = ask.note?.trim();
    rule.status = ask.kind;
    rule.decided = {
      by: ask.by,
      at: new Date(now).toISOString(),
      ...(note === undefined || note === '' ? {} : { note }),
    };
    if (ask.kind === 'accepted')
      rule.into = rule.kind === 'dismiss' ? 'workspace' : workspace.config.lessons.into;
    return { state, answer: { ...rule } };
  });
  await writeRulesFile(workspace, queue);
  const change = await rulesHome(workspace, queue, now, ask.by);
  return { rule: decided, ...(change === undefined ? {} : { change }) };
}

/** Retires a rule in force: it is no longer given, checked, or kept where it lived. */
export async function retireRule(
  workspace: Workspace,
  queue: Queue,
  ask: { rule: string; by: string; note?: string },
  now: number,
): Promise<{ rule: Rule; change?: Item }> {
  const retired = await changeLessons(workspace, (state) => {
    const rule = find(state, ask.rule);
    if (rule.status !== 'accepted')
      throw new InputError(`${rule.id} is ${rule.status}: only an accepted rule is retired`);
    rule.status = 'retired';
    const note = ask.note?.trim();
    rule.retired = {
      by: ask.by,
      at: new Date(now).toISOString(),
      ...(note === undefined || note === '' ? {} : { note }),
    };
    return { state, answer: { ...rule } };
  });
  await writeRulesFile(workspace, queue);
  const change = await rulesHome(workspace, queue, now, ask.by);
  return { rule: retired, ...(change === undefined ? {} : { change }) };
}

/** Whether a change of the rules' file is still on its way (neither landed nor ended). */
const onItsWay = (item: Item) =>
  item.landedCommit === undefined &&
  item.mergedAt === undefined &&
  !statusIs(item.status, 'withdrawn') &&
  !statusIs(item.status, 'failure');

/**
 * Makes where the rules live hold the rules in force: ralph's `rules.md` rewritten; in the
 * repository, one change at a time: while one is on its way, the next waits for it (the next
 * decision, or the night's end, makes it), so two never conflict on the file.
 */
export async function rulesHome(
  workspace: Workspace,
  queue: Queue,
  now: number,
  /** Who decided what the change carries (a night carrying a waiting rule: ralph, for them). */
  by = 'ralph',
): Promise<Item | undefined> {
  const ever = (await readLessons(workspace)).rules.some(
    (r) => r.into === 'repository' && r.kind === 'follow',
  );
  if (!ever) return undefined;
  const items = await queue.list();
  return changeLessons(workspace, async (state) => {
    const repository = state.rules.filter(
      (r) => r.status === 'accepted' && r.into === 'repository' && r.kind === 'follow',
    );
    const carrying = new Set(state.rules.map((r) => r.landingItem));
    if (items.some((item) => carrying.has(item.id) && onItsWay(item)))
      return { state, answer: undefined };
    const waiting = repository.filter((r) => r.landingItem === undefined);
    const taken = new Set(items.map((i) => i.id));
    let id = `rules-${waiting.length === 0 ? 'retired' : waiting.map((r) => r.id).join('-')}`;
    for (let n = 2; taken.has(id); n++) id = `${id.replace(/-\d+$/, '')}-${n}`;
    const title = `Rules into the project's agent file: ${repository.map((r) => r.id).join(', ') || 'none'}`;
    const made = await rulesChange(workspace, repository, { id, title }, now);
    // The file holds the rules in force already (a retired rule's line gone by a person's hand).
    if (made === undefined) return { state, answer: undefined };
    const { item, file } = made;
    const at = new Date(now).toISOString();
    const change: Item = {
      ...item,
      // A person accepted the rules: once green, its pull request merges with no second accept.
      decision: { id: `rules-${at}`, kind: 'accepted', by, at },
    };
    await queue.add(change, { replace: false, check: () => undefined, replaceFlag: '' });
    const { land, forge } = workspace.config;
    const sent =
      land.enabled || forge !== undefined
        ? await queue.apply(change.id, {
            kind: 'rules_sent',
            then: { land: land.enabled, pullRequest: forge !== undefined },
            now,
          })
        : undefined;
    for (const rule of waiting) {
      rule.landingItem = change.id;
      rule.file = file;
    }
    return { state, answer: sent?.kind === 'applied' ? sent.item : change };
  });
}

/** ralph's own rules file, for a person to read: the rules in force that live in the workspace. */
async function writeRulesFile(workspace: Workspace, queue: Queue) {
  const rules = (await rulesInForceNow(workspace, queue)).filter((r) => r.into !== 'repository');
  const lines = rules.map(
    (r) =>
      `- ${r.id} (${r.kind === 'follow' ? 'followed by every agent' : 'not raised by the reviewer'}${r.scope.length === 0 ? '' : `; ${r.scope.join(', ')}`}): ${r.text}`,
  );
  await writeFileAtomically(
    rulesFile(workspace),
    `# Rules\n\nWritten by ralph from the rules a person accepted (\`ralph rules\`; \`ralph rules rm <id>\` retires one). Edits here are overwritten.\n\n${lines.length === 0 ? '(none in force)' : lines.join('\n')}\n`,
  );
}
