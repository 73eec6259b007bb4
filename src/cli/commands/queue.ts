import path from 'node:path';
import { pullRequestName } from '../../queue/pull-request-name.js';
import { InputError } from '../../lib/errors.js';
import { writeFileAtomically } from '../../lib/fs.js';
import { readQueueFileToImport } from '../../queue/store.js';
import { ExitCode } from '../../lib/exit-codes.js';
import { unrunnableItems } from '../../queue/dependencies.js';
import { queueFileText } from '../../queue/file-schema.js';
import { blockedReason } from '../../queue/select.js';
import type { Item } from '../../queue/item.js';
import { statusIs, freshInLine, holderOf } from '../../queue/item-status.js';
import { withQueue, withQueueReader } from '../../queue/open.js';
import { openWorkspace } from '../open-workspace.js';
import type { Output } from '../output.js';
import { renderTable } from '../table.js';

/** `ralph queue` / `ralph ls`: every item with its status. */
export async function queueCommand(
  root: string,
  options: { json?: boolean },
  output: Output,
  env: Readonly<Record<string, string | undefined>>,
): Promise<number> {
  const workspace = await openWorkspace(root);
  const items = await withQueueReader(workspace, env, (queue) => queue.list());
  if (options.json) {
    output.out(JSON.stringify(items, null, 2));
    return ExitCode.ok;
  }
  if (items.length === 0) {
    output.out('The queue is empty. Add work with: ralph add "<task>"');
    return ExitCode.ok;
  }
  const now = Date.now();
  const byId = new Map(items.map((item) => [item.id, item]));
  // Why an item can never run beats why it waits (computed once, not in the runner's claim).
  const stuck = new Map(unrunnableItems(items).map(({ id, reason }) => [id, reason]));
  const maxAttempts = workspace.config.defaults.maxAttempts;
  const rows = items.map((item) => {
    const waiting = statusIs(item.status, 'runnable')
      ? (stuck.get(item.id) ?? blockedReason(item, byId, now))
      : undefined;
    const note =
      waiting ??
      (statusIs(item.status, 'failure')
        ? [pullRequestNote(item), item.lastError].filter((n) => n !== undefined).join(' — ')
        : stageNote(item));
    return [
      item.id,
      item.status,
      String(item.priority),
      `${item.attempts}/${item.maxAttempts ?? maxAttempts}`,
      `$${item.costUsd.toFixed(2)}`,
      item.title + (note ? ` — ${note.split('\n')[0]?.slice(0, 80)}` : ''),
    ];
  });
  output.out(renderTable(['ID', 'STATUS', 'PRIO', 'TRIES', 'COST', 'TITLE'], rows));
  return ExitCode.ok;
}

/** An item's pull request, its state and its link (a failed item's as well as a merged one's). */
function pullRequestNote(item: Item): string | undefined {
  const pr = item.pullRequest;
  if (pr === undefined) return undefined;
  return `${pullRequestName(pr, 'short')} ${item.mergedAt !== undefined ? 'merged' : (item.checks ?? 'opening')}: ${pr.url}`;
}

/**
 * What came after an item's session: its pull request and checks, where it landed, or why it
 * went back to its agent.
 */
function stageNote(item: Item): string | undefined {
  if (statusIs(item.status, 'pullRequestOpen') || statusIs(item.status, 'satisfiesDependents')) {
    const pr = pullRequestNote(item);
    if (pr !== undefined) return pr;
  }
  if (holderOf(item.status) === 'checks') return 'pushing, to open its pull request';
  if (holderOf(item.status) === 'reviewer')
    return item.unreviewed === undefined
      ? 'waits for its reviewer'
      : `unreviewed: ${item.unreviewed}`;
  if (item.reviewFindings !== undefined && freshInLine(item.status))
    return `back from review: ${item.lastError ?? ''}`;
  if (item.checksFailure !== undefined && freshInLine(item.status))
    return `back from its checks: ${item.lastError ?? ''}`;
  if (item.landFailure !== undefined) return `back from landing: ${item.lastError ?? ''}`;
  if (
    holderOf(item.status) === 'lander' &&
    item.lookAgain !== undefined &&
    item.lastError !== undefined
  )
    return `waits to land: ${item.lastError}`;
  if (item.landedCommit !== undefined)
    return `landed on ${item.landedOn ?? '?'} at ${item.landedCommit.slice(0, 12)}`;
  if (item.revertedAt !== undefined) return `its landing reverted at ${item.revertedAt}`;
  return undefined;
}

/**
 * `ralph queue import <file>`: every item of a queue file (another workspace's
 * `state/queue.json`, or an export) into this workspace's queue, all or none. Running items
 * are refused (their runner still owns them), and so are dependencies found in neither.
 */
export async function importCommand(
  root: string,
  file: string,
  output: Output,
  env: Readonly<Record<string, string | undefined>>,
): Promise<number> {
  const workspace = await openWorkspace(root);
  const { items } = await readQueueFileToImport(path.resolve(file));
  const running = items.filter((item) => holderOf(item.status) === 'worker').map((item) => item.id);
  if (running.length > 0)
    throw new InputError(
      `${file}: ${running.join(', ')} ${running.length === 1 ? 'is' : 'are'} running: stop the runner of that queue first (ralph pause, or wait for it to end); nothing was imported`,
    );
  const ids = new Set(items.map((item) => item.id));
  const outside = [...new Set(items.flatMap((item) => item.dependsOn))].filter(
    (id) => !ids.has(id),
  );
  await withQueue(workspace, env, async (queue) => {
    const found = new Set((await queue.dependencyClosure(outside)).map((item) => item.id));
    for (const item of items) {
      const missing = item.dependsOn.find((id) => !ids.has(id) && !found.has(id));
      if (missing !== undefined)
        throw new InputError(
          `${file}: ${item.id} depends on ${missing}, which is neither in the file nor in the queue; nothing was imported`,
        );
    }
    await queue.importItems(items);
    output.out(`${items.length} item${items.length === 1 ? '' : 's'} imported into ${queue.where}`);
  });
  return ExitCode.ok;
}

/** `ralph queue export [file]`: the queue as a queue file, on stdout or into `file`. */
export async function exportCommand(
  root: string,
  file: string | undefined,
  output: Output,
  env: Readonly<Record<string, string | undefined>>,
): Promise<number> {
  const workspace = await openWorkspace(root);
  const { items, version } = await withQueueReader(workspace, env, (queue) => queue.snapshot());
  const text = queueFileText(version, items);
  if (file === undefined) output.out(text.trimEnd());
  else {
    await writeFileAtomically(path.resolve(file), text);
    output.err(`${items.length} item${items.length === 1 ? '' : 's'} exported to ${file}`);
  }
  return ExitCode.ok;
}
