import { ControlFiles } from '../../control/files.js';
import { ExitCode } from '../../lib/exit-codes.js';
import { liveRunner } from '../../runner/state.js';
import { pauseNight } from '../../workspace/control.js';
import { openWorkspace } from '../open-workspace.js';
import type { Output } from '../output.js';

/**
 * `ralph pause [reason]`: writes the interrupt file, which stops the running agent (its item is
 * resumed later) and keeps new items from starting. With `--after-current` the running item is
 * let finish first.
 */
export async function pauseCommand(
  root: string,
  reason: string | undefined,
  options: { afterCurrent?: boolean },
  output: Output,
): Promise<number> {
  const { paths } = await openWorkspace(root);
  const runner = await liveRunner(paths.runnerLock);
  const when = await pauseNight(
    new ControlFiles(paths),
    reason ?? `paused by hand at ${new Date().toISOString()}`,
    { afterCurrent: options.afterCurrent === true, runnerLive: runner !== undefined },
  );
  output.out(
    when === 'after-current'
      ? `The runner (pid ${runner?.pid}) will pause when its current item ends.`
      : runner === undefined
        ? `Paused: no runner is live; a runner started now waits until "ralph resume".`
        : `Paused: the runner (pid ${runner.pid}) stops its agent and waits until "ralph resume".`,
  );
  return ExitCode.ok;
}

/** `ralph resume`: removes the interrupt file (and a pending `--after-current` pause). */
export async function resumeCommand(root: string, output: Output): Promise<number> {
  const { paths } = await openWorkspace(root);
  const reason = await new ControlFiles(paths).resume();
  output.out(reason === undefined ? 'Not paused.' : `Resumed (was paused: ${reason}).`);
  return ExitCode.ok;
}
