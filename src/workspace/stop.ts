import type { Workspace } from '../config/workspace.js';
import { ControlFiles } from '../control/files.js';
import { InputError, NotFoundError } from '../lib/errors.js';
import type { Queue } from '../queue/queue.js';
import { holderOf, statusIs, type ItemStatus } from '../queue/item-status.js';
import { leadsTo } from '../queue/lifecycle.js';

/** How often a stop request is looked at while its runner carries it out. */
const LOOK_EVERY_MS = 100;

/**
 * Asks the runner to stop the sessions of `ids` alone (the rest of the night goes on) and waits
 * until it has carried each request out (it removes the request once the item is back in line,
 * or cancelled). Returns the ids whose request was not carried out within `timeoutMs`; those
 * requests are withdrawn, so none lingers to stop a later session of the item.
 */
export async function stopItems(
  control: ControlFiles,
  ids: readonly string[],
  request: { cancel: boolean; park?: boolean; by: string; message?: boolean },
  timeoutMs: number,
): Promise<string[]> {
  const at = new Date().toISOString();
  for (const id of ids) await control.requestStop(id, { ...request, at });
  const deadline = Date.now() + timeoutMs;
  let waiting = [...ids];
  while (waiting.length > 0 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, LOOK_EVERY_MS));
    waiting = waiting.filter((id) => control.stopRequested(id));
  }
  for (const id of waiting) await control.clearStopRequest(id);
  return waiting;
}

/** How long a command waits for the runner to stop an item: its kill ladder, and some. */
export function stopTimeoutMs(killGraceSeconds: number): number {
  return (killGraceSeconds * 3 + 30) * 1000;
}

/** What a person's stop does with the item: parks it (the default), puts it back, cancels it. */
export type StopThen = 'park' | 'requeue' | 'cancel';

/**
 * What became of an item a person stopped: parked, back in line, cancelled, or not stopped in
 * time.
 */
export type StopResult =
  | { kind: 'stopped'; status: ItemStatus }
  /** Its session had ended before the request was seen (its gates ran): the status it has. */
  | { kind: 'ended'; status: string }
  | { kind: 'not_in_time' };

/**
 * `ralph stop` and `POST /items/:id/stop`: refuses an item that is not running or whose runner
 * died, then stops it and says what became of it. A person who stops an agent means "not now":
 * the item is parked unless they ask for it back in line (`requeue`) or cancelled.
 */
export async function stopItem(
  workspace: Workspace,
  queue: Pick<Queue, 'dependencyClosure'>,
  id: string,
  request: { then: StopThen; by: string; runnerLive: boolean },
): Promise<StopResult> {
  const itemOf = async () => (await queue.dependencyClosure([id])).find((i) => i.id === id);
  const item = await itemOf();
  if (item === undefined) throw new NotFoundError(`no item ${JSON.stringify(id)} in the queue`);
  if (holderOf(item.status) !== 'worker')
    throw new InputError(`${id} is ${item.status}, not running: nothing to stop`);
  if (!request.runnerLive)
    throw new InputError(
      `${id} was left running by a runner that died: ralph recover settles it (or ralph cancel ${id})`,
    );
  const left = await stopItems(
    new ControlFiles(workspace.paths),
    [id],
    { cancel: request.then === 'cancel', park: request.then === 'park', by: request.by },
    stopTimeoutMs(workspace.config.run.killGrace),
  );
  if (left.length > 0) return { kind: 'not_in_time' };
  const after = await itemOf();
  if (after === undefined) return { kind: 'ended', status: 'gone' };
  const { status } = after;
  // Parked or cancelled by the stop's own event, as the person asked.
  if (leadsTo('stopped', 'pending').includes(status)) return { kind: 'stopped', status };
  // Asked back in line (or its runner took it up again already).
  if (statusIs(status, 'runnable') || holderOf(status) === 'worker')
    return { kind: 'stopped', status: 'pending' };
  return { kind: 'ended', status };
}

/** Why a stop did not happen in time, for people. */
export const notStoppedInTime = (id: string) =>
  `${id}: not stopped: the runner did not act on the request in time (withdrawn); in a fleet, stop it from the workspace whose runner runs it`;
