import type { ControlFiles } from '../control/files.js';

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
  request: { cancel: boolean; by: string },
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
