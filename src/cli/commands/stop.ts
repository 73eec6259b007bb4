import { InputError } from '../../lib/errors.js';
import { ExitCode } from '../../lib/exit-codes.js';
import { withQueue } from '../../queue/open.js';
import { liveRunner } from '../../control/runner-lock.js';
import { notStoppedInTime, stopItem } from '../../workspace/stop.js';
import { openWorkspace } from '../open-workspace.js';
import type { Output } from '../output.js';
import type { ItemStatus } from '../../queue/item-status.js';

/**
 * `ralph stop <item> [--requeue | --cancel]`: ends the session of one running item by the kill
 * ladder (its processes reaped) while every other worker goes on; the item is parked (out of
 * line until `ralph resume <item>`), put back in line, or cancelled; its attempt given back.
 */
export async function stopCommand(
  root: string,
  id: string,
  options: { cancel?: boolean; requeue?: boolean },
  output: Output,
  env: Readonly<Record<string, string | undefined>>,
): Promise<number> {
  if (options.cancel === true && options.requeue === true)
    throw new InputError('--requeue or --cancel, not both');
  const then = options.cancel === true ? 'cancel' : options.requeue === true ? 'requeue' : 'park';
  const workspace = await openWorkspace(root);
  const result = await withQueue(workspace, env, async (queue) =>
    stopItem(workspace, queue, id, {
      then,
      by: 'cli',
      runnerLive: (await liveRunner(workspace.paths.runnerLock)) !== undefined,
    }),
  );
  if (result.kind === 'not_in_time') {
    output.out(notStoppedInTime(id));
    return ExitCode.itemsFailed;
  }
  output.out(
    result.kind === 'ended'
      ? `${id}: its session had ended already (${result.status})`
      : `${id}: ${STOPPED[result.status]?.(id) ?? 'stopped; back in line with its attempt given back'}`,
  );
  return ExitCode.ok;
}

/** What a stop left an item as, in words, where it is not back in line. */
const STOPPED: Partial<Record<ItemStatus, (id: string) => string>> = {
  cancelled: () => 'stopped and cancelled',
  parked: (id) =>
    `stopped and parked, its attempt given back: it waits until "ralph resume ${id}" (or "ralph retry ${id}") puts it back in line`,
};
