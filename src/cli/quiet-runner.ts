import type { Workspace } from '../config/workspace.js';
import { systemClock } from '../lib/clock.js';
import { RalphError } from '../lib/errors.js';

/**
 * The runner, and what a command gives it to act as a runner that starts no night (`ralph
 * recover`, `ralph land`): loaded only when such a command runs.
 */
export async function quietRunner(
  workspace: Workspace,
  env: Readonly<Record<string, string | undefined>>,
) {
  const runner = await import('../runner/index.js');
  const options = {
    workspace,
    env,
    events: new runner.RunEvents(() => systemClock.now()),
    control: new runner.StopControl(),
    clock: systemClock,
    wait: runner.waitForChange,
    timings: runner.DEFAULT_TIMINGS,
    onWedged: (message: string): never => {
      throw new RalphError(message);
    },
  };
  return { runner, options };
}
