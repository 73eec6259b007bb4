import { ExitCode } from '../../lib/exit-codes.js';
import { withQueue } from '../../queue/open.js';
import { liveRunner } from '../../runner/state.js';
import { notStoppedInTime, stopItem } from '../../workspace/stop.js';
import { openWorkspace } from '../open-workspace.js';
import type { Output } from '../output.js';

/**
 * `ralph stop <item> [--cancel]`: ends the session of one running item by the kill ladder (its
 * processes reaped) while every other worker goes on; the item goes back in line with its
 * attempt given back, or is cancelled.
 */
export async function stopCommand(
  root: string,
  id: string,
  options: { cancel?: boolean },
  output: Output,
  env: Readonly<Record<string, string | undefined>>,
): Promise<number> {
  const workspace = await openWorkspace(root);
  const result = await withQueue(workspace, env, async (queue) =>
    stopItem(workspace, queue, id, {
      cancel: options.cancel === true,
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
      : result.status === 'cancelled'
        ? `${id}: stopped and cancelled`
        : `${id}: stopped; back in line with its attempt given back`,
  );
  return ExitCode.ok;
}
