import { ControlFiles } from '../../control/files.js';
import { InputError, NotFoundError } from '../../lib/errors.js';
import { ExitCode } from '../../lib/exit-codes.js';
import { withQueue } from '../../queue/open.js';
import { liveRunner } from '../../runner/state.js';
import { stopItems, stopTimeoutMs } from '../../workspace/stop.js';
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
  const itemOf = () =>
    withQueue(workspace, env, (queue) => queue.dependencyClosure([id])).then((items) =>
      items.find((item) => item.id === id),
    );
  const item = await itemOf();
  if (item === undefined) throw new NotFoundError(`no item ${JSON.stringify(id)} in the queue`);
  if (item.status !== 'running')
    throw new InputError(
      `${id} is ${item.status}, not running: nothing to stop${item.status === 'pending' || item.status === 'interrupted' ? ` (ralph cancel ${id} keeps it from running)` : ''}`,
    );
  if ((await liveRunner(workspace.paths.runnerLock)) === undefined)
    throw new InputError(
      `${id} was left running by a runner that died: ralph recover settles it (or ralph cancel ${id})`,
    );
  const control = new ControlFiles(workspace.paths);
  const cancel = options.cancel === true;
  const left = await stopItems(
    control,
    [id],
    { cancel, by: 'cli' },
    stopTimeoutMs(workspace.config.run.killGrace),
  );
  if (left.length > 0) {
    output.out(
      `${id}: not stopped: the runner did not act on the request in time (withdrawn); in a fleet, stop it from the workspace whose runner runs it`,
    );
    return ExitCode.itemsFailed;
  }
  const after = await itemOf();
  output.out(
    after?.status === 'cancelled'
      ? `${id}: stopped and cancelled`
      : after?.status === 'pending' || after?.status === 'running'
        ? `${id}: stopped; back in line with its attempt given back`
        : `${id}: its session had ended already (${after?.status ?? 'gone'})`,
  );
  return ExitCode.ok;
}
