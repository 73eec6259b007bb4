import { systemClock } from '../../lib/clock.js';
import { InputError, NotFoundError } from '../../lib/errors.js';
import { ExitCode } from '../../lib/exit-codes.js';
import type { Item } from '../../queue/item.js';
import type { DecisionKind } from '../../queue/decision-kinds.js';
import { withQueue } from '../../queue/open.js';
import { decide, decidedText, parseUntil } from '../../workspace/decide.js';
import { reviewInbox, type InboxRow } from '../../workspace/review-inbox.js';
import { reviewPage } from '../../workspace/review-page.js';
import { sessionIndex } from '../../workspace/sessions.js';
import { openWorkspace } from '../open-workspace.js';
import type { Output } from '../output.js';
import { carryOut, finishLeftDecisions, personOfTerminal, reviewState } from '../review-state.js';
import { COLOURS, PLAIN, inboxLines, pageLines } from '../review-text.js';
import { holderOf } from '../../queue/item-status.js';
import { proposedRules, rulePage } from '../../workspace/rule-page.js';
import { RULE_ID } from '../../lessons/state.js';
import { proposedLines, rulePageLines } from '../rule-text.js';

type Env = Readonly<Record<string, string | undefined>>;

/**
 * `ralph review [id]`: the inbox (every item that waits on a person, most at risk first, each
 * with the parts of its score), interactive on a terminal; with an id, the item's whole page.
 */
export async function reviewCommand(
  root: string,
  id: string | undefined,
  options: { json?: boolean; all?: boolean; list?: boolean },
  output: Output,
  env: Env,
): Promise<number> {
  const workspace = await openWorkspace(root);
  const now = systemClock.now();
  const { items, entries } = await reviewState(workspace, env);
  const paint = output.isTTY && env.NO_COLOR === undefined ? COLOURS : PLAIN;
  if (id !== undefined) {
    const item = items.find((i) => i.id === id);
    // A rule's id (`R3`) when no item has it: the rule's page.
    if (item === undefined && RULE_ID.test(id)) {
      const page = await rulePage(workspace, items, id);
      if (options.json === true) output.out(JSON.stringify(page, null, 2));
      else output.out(rulePageLines(page, paint).join('\n'));
      return ExitCode.ok;
    }
    if (item === undefined) throw new NotFoundError(`no item ${JSON.stringify(id)} in the queue`);
    const page = await reviewPage(workspace, item, entries, now);
    if (options.json === true) output.out(JSON.stringify(page, null, 2));
    else output.out(pageLines(page, paint).join('\n'));
    return ExitCode.ok;
  }
  // --all: deferred items too (as if every deferral were over).
  const rows = reviewInbox(
    items,
    entries,
    workspace.config.review.sensitive,
    options.all === true ? Number.POSITIVE_INFINITY : now,
  );
  if (options.json === true) {
    output.out(JSON.stringify(rows.map(rowJson), null, 2));
    return ExitCode.ok;
  }
  const rules = await proposedRules(workspace);
  const waiting = rows.length + rules.length;
  if (output.isTTY && process.stdin.isTTY && options.list !== true && waiting > 0) {
    const { interactiveReview } = await import('../review-tui.js');
    return interactiveReview(workspace, env, rows, entries, rules);
  }
  output.out(
    [
      ...(rows.length === 0 && rules.length > 0 ? [] : [...inboxLines(rows, paint), '']),
      ...proposedLines(rules, paint),
    ]
      .join('\n')
      .trimEnd(),
  );
  return ExitCode.ok;
}

/** A row as `--json` prints it: the item's id and status, not the whole item. */
function rowJson(row: InboxRow) {
  const { item, ...rest } = row;
  return { id: item.id, title: item.title, status: item.status, costUsd: item.costUsd, ...rest };
}

/**
 * `ralph accept|reject|defer <ids...>`: a person's decision on each item, written to the ledger
 * and applied; what it does to the world (a landing, a revert, a pull request merged or closed)
 * is carried out now when no night runs (a running night does it itself).
 */
export async function decideCommand(
  root: string,
  kind: DecisionKind,
  ids: readonly string[],
  options: { note?: string; cancel?: boolean; until?: string; candidate?: string },
  output: Output,
  env: Env,
): Promise<number> {
  const workspace = await openWorkspace(root);
  const now = systemClock.now();
  if (ids.length === 0) throw new InputError('give the id of an item');
  if (options.candidate !== undefined && ids.length > 1)
    throw new InputError('--candidate takes one item: give its id alone', 'candidate');
  const until = options.until === undefined ? undefined : parseUntil(options.until, now, '--until');
  if (kind === 'deferred' && until === undefined)
    throw new InputError('a deferral needs --until (3d, 12h, or a time to come)', 'until');
  // A decision a killed command left half carried out is finished first.
  await finishLeftDecisions(workspace, env);
  const { entries } = await sessionIndex(workspace, env);
  const decided = await withQueue(workspace, env, async (queue) => {
    const made: Item[] = [];
    for (const itemId of ids)
      made.push(
        (
          await decide(
            workspace,
            queue,
            {
              itemId,
              kind,
              by: personOfTerminal(),
              note: options.note,
              then: options.cancel === true ? 'cancel' : 'retry',
              until,
              candidate: options.candidate,
            },
            entries,
            now,
          )
        ).item,
      );
    return made;
  });
  const after = await carryOut(workspace, env, decided);
  for (const item of after) output.out(decidedText(kind, item));
  return after.some(
    (item) => item.decision?.failure !== undefined && holderOf(item.status) !== 'decider',
  )
    ? ExitCode.itemsFailed
    : ExitCode.ok;
}
