import { liveRunner } from '../../control/runner-lock.js';
import { systemClock } from '../../lib/clock.js';
import { RalphError } from '../../lib/errors.js';
import { ExitCode } from '../../lib/exit-codes.js';
import { plural } from '../../lib/text.js';
import { formatCost } from '../../lib/usd.js';
import { decideRule, retireRule, rulesHome } from '../../lessons/decide.js';
import { readLessons } from '../../lessons/store.js';
import { withQueue, withQueueReader } from '../../queue/open.js';
import { readLedger } from '../../queue/ledger.js';
import { rulesReport } from '../../workspace/rules-report.js';
import { openWorkspace } from '../open-workspace.js';
import type { Output } from '../output.js';
import { quietRunner } from '../quiet-runner.js';
import { carryOut, personOfTerminal } from '../review-state.js';
import type { Item } from '../../queue/item.js';
import { COLOURS, PLAIN } from '../review-text.js';
import { rulesLines } from '../rule-text.js';

type Env = Readonly<Record<string, string | undefined>>;

/** `ralph lessons`: the lessons gathered, each with its evidence and the proposal it went to. */
export async function lessonsCommand(
  root: string,
  options: { json?: boolean },
  output: Output,
  env: Env,
): Promise<number> {
  const workspace = await openWorkspace(root);
  const { gatherDecisions } = await import('../../lessons/propose.js');
  const state = await withQueue(workspace, env, (queue) => gatherDecisions({ workspace, queue }));
  if (options.json === true) {
    output.out(JSON.stringify({ lessons: state.lessons, proposals: state.proposals }, null, 2));
    return ExitCode.ok;
  }
  if (state.lessons.length === 0) {
    output.out(
      'No lessons yet: they come from your decisions in ralph review, and from what the nights repeat.',
    );
    return ExitCode.ok;
  }
  const fresh = state.lessons.filter((l) => l.proposal === undefined).length;
  output.out(
    [
      `${plural(state.lessons.length, 'lesson')}, ${fresh} not yet proposed (a night proposes once ${workspace.config.lessons.minEvidence} have gathered; ralph lessons propose asks now):`,
      '',
      ...state.lessons.flatMap((l) => [
        `${l.id}  ${l.kind} · ${l.items.join(', ')}${l.proposal === undefined ? '' : ` · in ${l.proposal}`}`,
        ...l.text
          .split('\n')
          .slice(0, 4)
          .map((line) => `     ${line}`),
      ]),
    ].join('\n'),
  );
  return ExitCode.ok;
}

/**
 * `ralph lessons propose`: the new lessons given to the proposer now, however few; its rules
 * wait for a person in `ralph review`. A running night proposes at its end instead.
 */
export async function proposeCommand(root: string, output: Output, env: Env): Promise<number> {
  const workspace = await openWorkspace(root);
  if ((await liveRunner(workspace.paths.runnerLock)) !== undefined)
    throw new RalphError(
      'a night is running: it proposes at its end when enough lessons have gathered; ask again once it has ended',
    );
  const { runner, options } = await quietRunner(workspace, env);
  const said: string[] = [];
  let failed = false;
  options.events.subscribe((event) => {
    if (event.event === 'rules_proposed')
      said.push(
        `${event.proposal}: ${plural(event.rules.length, 'rule')} proposed by ${event.cli} (${event.rules.join(', ') || 'none'}${event.dropped === 0 ? '' : `; ${event.dropped} not taken`}), ${formatCost(event.costUsd, false)}; decide in ralph review`,
      );
    else if (event.event === 'rules_not_proposed') {
      failed = event.proposal !== undefined;
      said.push(`nothing proposed: ${event.reason}`);
    }
  });
  const { proposeNow } = await import('../../lessons/lessons-stage.js');
  await runner.tendWaiting(options, [proposeNow]);
  const state = await readLessons(workspace);
  const last = state.proposals.at(-1);
  for (const dropped of last?.dropped ?? [])
    said.push(`not taken: "${dropped.text}": ${dropped.reason}`);
  output.out(said.join('\n'));
  return failed ? ExitCode.itemsFailed : ExitCode.ok;
}

/** `ralph rules`: the rules a person accepted, with when, why and how often each was applied and broken. */
export async function rulesCommand(
  root: string,
  options: { json?: boolean },
  output: Output,
  env: Env,
): Promise<number> {
  const workspace = await openWorkspace(root);
  const items = await withQueueReader(workspace, env, (queue) => queue.list());
  const { rules } = await rulesReport(
    workspace,
    { ledger: await readLedger(workspace), items },
    undefined,
  );
  if (options.json === true) output.out(JSON.stringify(rules, null, 2));
  else output.out(rulesLines(rules, output.isTTY ? COLOURS : PLAIN).join('\n'));
  return ExitCode.ok;
}

/** What became of a change carrying rules into the repository. */
const landedText = (item: Item) =>
  item.landedCommit !== undefined
    ? `${item.id}: landed on ${item.landedOn ?? ''} at ${item.landedCommit.slice(0, 12)}: the rules are in force`
    : `${item.id}: ${item.status}${item.lastError === undefined ? '' : ` (${item.lastError})`}: the rules take effect once it lands`;

/** `ralph rules accept|reject|rm <ids...>`: a person's decision on each rule. */
export async function ruleDecisionCommand(
  root: string,
  kind: 'accepted' | 'rejected' | 'retired',
  ids: readonly string[],
  options: { note?: string },
  output: Output,
  env: Env,
): Promise<number> {
  const workspace = await openWorkspace(root);
  const by = personOfTerminal();
  const changes = await withQueue(workspace, env, async (queue) => {
    const made: Item[] = [];
    for (const rule of ids) {
      const now = systemClock.now();
      const { rule: after, change } =
        kind === 'retired'
          ? await retireRule(workspace, queue, { rule, by, note: options.note }, now)
          : await decideRule(workspace, queue, { rule, kind, by, note: options.note }, now);
      output.out(
        `${after.id} ${kind}${change === undefined ? '' : `: ${change.id} carries the rules into the repository`}`,
      );
      if (change !== undefined) made.push(change);
    }
    return made;
  });
  // The change carrying rules into the repository lands now when no night runs to land it; a
  // rule that waited for it goes in the next change, landed the same way.
  let landing = changes;
  while (landing.length > 0) {
    const after = await carryOut(workspace, env, landing);
    for (const item of after) output.out(landedText(item));
    if (after.some((item) => item.landedCommit === undefined)) break;
    const next = await withQueue(workspace, env, (queue) =>
      rulesHome(workspace, queue, systemClock.now(), by),
    );
    landing = next === undefined ? [] : [next];
  }
  return ExitCode.ok;
}
