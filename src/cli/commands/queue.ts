import { ExitCode } from '../../lib/exit-codes.js';
import { unrunnableItems } from '../../queue/dependencies.js';
import { blockedReason } from '../../queue/select.js';
import { QueueStore } from '../../queue/store.js';
import { openWorkspace } from '../open-workspace.js';
import type { Output } from '../output.js';
import { renderTable } from '../table.js';

/** `ralph queue` / `ralph ls`: every item with its status. */
export async function queueCommand(
  root: string,
  options: { json?: boolean },
  output: Output,
): Promise<number> {
  const workspace = await openWorkspace(root);
  const { items } = await new QueueStore(workspace.paths.queue).read();
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
    const waiting =
      item.status === 'pending' || item.status === 'interrupted'
        ? (stuck.get(item.id) ?? blockedReason(item, byId, now))
        : undefined;
    const note = waiting ?? (item.status === 'failed' ? item.lastError : undefined);
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
