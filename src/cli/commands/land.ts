import type { Workspace } from '../../config/workspace.js';
import { systemClock } from '../../lib/clock.js';
import { InputError } from '../../lib/errors.js';
import { ExitCode } from '../../lib/exit-codes.js';
import type { Item } from '../../queue/item.js';
import { withQueue } from '../../queue/open.js';
import { landingOrder } from '../../queue/select.js';
import { liveRunner } from '../../control/runner-lock.js';
import { trialLand } from '../../runner/index.js';
import { openWorkspace } from '../open-workspace.js';
import { quietRunner } from '../quiet-runner.js';
import type { Output } from '../output.js';
import { appliesTo } from '../../queue/lifecycle.js';
import { freshInLine, holderOf, statusIs } from '../../queue/item-status.js';

/** Why a done item cannot be put in line to land, or undefined when it can. */
function cannotLand(item: Item): string | undefined {
  if (holderOf(item.status) === 'lander') return undefined;
  if (!appliesTo('sent_to_land', item.status))
    return `it is ${item.status} (only a done item lands)`;
  if (item.branch === undefined) return 'it ran without git mode: it has no branch to land';
  if (item.landedCommit !== undefined)
    return `it landed already (${item.landedCommit.slice(0, 12)} on ${item.landedOn ?? 'its target'})`;
  return undefined;
}

/** What became of an item `ralph land` could not land. */
function notLanded(item: Item | undefined): string {
  if (item === undefined) return 'gone from the queue';
  if (holderOf(item.status) === 'lander')
    return `still waiting to land: ${item.lastError ?? 'its landing could not be made'}${item.lookAgain === undefined ? '' : ` (tried again at ${item.lookAgain.at})`}`;
  const why = item.lastError === undefined ? '' : `: ${item.lastError}`;
  return freshInLine(item.status)
    ? `back to its agent (the next ralph run)${why}`
    : `${item.status}${why}`;
}

/**
 * The items `ids` names, or every done item of git mode that has not landed, less those added
 * with `--no-land`: an item's own "no" holds unless a person names it.
 */
function chosen(items: readonly Item[], ids: readonly string[]): Item[] {
  if (ids.length === 0)
    return items.filter(
      (item) =>
        holderOf(item.status) === 'lander' ||
        (statusIs(item.status, 'complete') &&
          item.branch !== undefined &&
          item.landedCommit === undefined &&
          item.land?.enabled !== false),
    );
  const byId = new Map(items.map((item) => [item.id, item]));
  return ids.map((id) => {
    const item = byId.get(id);
    if (item === undefined) throw new InputError(`no item ${JSON.stringify(id)} in the queue`);
    const why = cannotLand(item);
    if (why !== undefined) throw new InputError(`${id} cannot land: ${why}`);
    return item;
  });
}

/**
 * `ralph land [ids...]`: the done items of a night that ran without landing (or those named)
 * are put in line to land, and landed now, one at a time, as the runner lands them; a running
 * night lands them itself. `--dry-run` says what would land, in order, and changes nothing.
 */
export async function landCommand(
  root: string,
  ids: readonly string[],
  options: { dryRun?: boolean },
  output: Output,
  env: Readonly<Record<string, string | undefined>>,
): Promise<number> {
  const workspace = await openWorkspace(root);
  const lined = await withQueue(workspace, env, async (queue) => {
    const order = landingOrder(chosen(await queue.list(), ids));
    if (options.dryRun !== true) {
      const now = systemClock.now();
      await queue.applyAll(
        order.map((item) => ({ id: item.id, event: { kind: 'sent_to_land', now } })),
      );
    }
    return order;
  });
  if (lined.length === 0) {
    output.out('nothing to land: no done item of git mode waits to land');
    return ExitCode.ok;
  }
  if (options.dryRun === true) {
    // Tried, not guessed: each branch merged in order in a worktree that is thrown away.
    const found = await trialLand(workspace, lined);
    for (const item of lined) {
      const result = found.find((r) => r.id === item.id);
      output.out(
        result?.kind === 'conflict'
          ? `${item.id}: would not land ${item.branch ?? ''}: it conflicts in ${result.files.join(', ')} (it would go back to its agent)`
          : result?.kind === 'error'
            ? `${item.id}: could not be tried: ${result.error}`
            : `${item.id}: would land ${item.branch ?? ''} (merged cleanly; its land gates are not run by a dry run)`,
      );
    }
    return found.some((r) => r.kind !== 'merges') ? ExitCode.itemsFailed : ExitCode.ok;
  }
  if ((await liveRunner(workspace.paths.runnerLock)) !== undefined) {
    output.out(`${lined.length} item(s) put in line: the running night lands them`);
    return ExitCode.ok;
  }
  await land(workspace, env);
  const after = await withQueue(workspace, env, (queue) =>
    queue.dependencyClosure(lined.map((item) => item.id)),
  );
  let failed = 0;
  for (const { id } of lined) {
    const item = after.find((i) => i.id === id);
    if (item?.landedCommit !== undefined && holderOf(item.status) !== 'lander')
      output.out(`${id}: landed on ${item.landedOn ?? ''} at ${item.landedCommit.slice(0, 12)}`);
    else {
      failed++;
      output.out(`${id}: ${notLanded(item)}`);
    }
  }
  return failed === 0 ? ExitCode.ok : ExitCode.itemsFailed;
}

async function land(
  workspace: Workspace,
  env: Readonly<Record<string, string | undefined>>,
): Promise<void> {
  const { runner, options } = await quietRunner(workspace, env);
  const { lander } = await import('../../land/lander.js');
  await runner.tendWaiting(options, [lander]);
}
