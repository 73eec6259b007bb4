import { ControlFiles } from '../../control/files.js';
import { ExitCode } from '../../lib/exit-codes.js';
import { liveRunner } from '../../runner/state.js';
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
  const control = new ControlFiles(paths);
  const text = reason ?? `paused by hand at ${new Date().toISOString()}`;
  const runner = await liveRunner(paths.runnerLock);
  if (options.afterCurrent && runner !== undefined) {
    await control.pauseAfterCurrent(text);
    output.out(`The runner (pid ${runner.pid}) will pause when its current item ends.`);
  } else {
    await control.pause(text);
    output.out(
      runner === undefined
        ? `Paused: no runner is live; a runner started now waits until "ralph resume".`
        : `Paused: the runner (pid ${runner.pid}) stops its agent and waits until "ralph resume".`,
    );
  }
  return ExitCode.ok;
}

/** `ralph resume`: removes the interrupt file (and a pending `--after-current` pause). */
export async function resumeCommand(root: string, output: Output): Promise<number> {
  const { paths } = await openWorkspace(root);
  const reason = await new ControlFiles(paths).resume();
  output.out(reason === undefined ? 'Not paused.' : `Resumed (was paused: ${reason}).`);
  return ExitCode.ok;
}
