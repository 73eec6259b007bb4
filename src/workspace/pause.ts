import type { ControlFiles } from '../control/files.js';

/**
 * Pauses the night: at once (the interrupt file stops the running agent, its item resumes
 * later), or, when asked and a runner is live to see it, once the current item ends.
 */
export async function requestPause(
  control: ControlFiles,
  reason: string,
  options: { afterCurrent: boolean; runnerLive: boolean },
): Promise<'now' | 'after-current'> {
  if (options.afterCurrent && options.runnerLive) {
    await control.pauseAfterCurrent(reason);
    return 'after-current';
  }
  await control.pause(reason);
  return 'now';
}
