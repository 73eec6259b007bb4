import os from 'node:os';
import type { Workspace } from '../../config/workspace.js';
import { ControlFiles } from '../../control/files.js';
import { InputError, RalphError } from '../../lib/errors.js';
import { withQueue } from '../../queue/open.js';
import type { Fleet } from '../../queue/queue.js';
import { ExitCode } from '../../lib/exit-codes.js';
import { liveRunner } from '../../control/runner-lock.js';
import { requestPause } from '../../workspace/pause.js';
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
  options: { afterCurrent?: boolean; fleet?: boolean },
  output: Output,
  env: Readonly<Record<string, string | undefined>>,
): Promise<number> {
  if (options.fleet === true) {
    if (options.afterCurrent === true)
      throw new InputError('--fleet pauses every runner now; --after-current is for one machine');
    const workspace = await openWorkspace(root);
    return withFleet(workspace, env, async (fleet, where) => {
      await fleet.pause(
        reason ?? `paused by hand at ${new Date().toISOString()}`,
        `${os.userInfo().username}@${os.hostname()}`,
      );
      output.out(
        `Paused the fleet of ${where}: every runner stops its agents and waits until "ralph resume --fleet".`,
      );
      return ExitCode.ok;
    });
  }
  const { paths } = await openWorkspace(root);
  const runner = await liveRunner(paths.runnerLock);
  const when = await requestPause(
    new ControlFiles(paths),
    reason ?? `paused by hand at ${new Date().toISOString()}`,
    { afterCurrent: options.afterCurrent === true, runnerLive: runner !== undefined },
  );
  output.out(
    when === 'after-current'
      ? `The runner (pid ${runner?.pid}) will pause when its current item ends.`
      : runner === undefined
        ? `Paused: no runner is live; a runner started now waits until "ralph resume".`
        : `Paused: the runner (pid ${runner.pid}) stops its agents and waits until "ralph resume" (a --drain or --once run ends instead, exit 6).`,
  );
  return ExitCode.ok;
}

/**
 * `ralph resume`: removes the interrupt file (and a pending `--after-current` pause); with no
 * runner live, also lifts the holds on CLIs a past run left (a person says the limit is over).
 */
export async function resumeCommand(
  root: string,
  options: { fleet?: boolean; ids?: readonly string[] },
  output: Output,
  env: Readonly<Record<string, string | undefined>>,
): Promise<number> {
  const ids = options.ids ?? [];
  if (ids.length > 0) {
    if (options.fleet === true) throw new InputError('give ids, or --fleet, not both');
    return unparkItems(root, ids, output, env);
  }
  if (options.fleet === true) {
    const workspace = await openWorkspace(root);
    return withFleet(workspace, env, async (fleet) => {
      const was = await fleet.resume();
      output.out(
        was === undefined
          ? 'The fleet is not paused.'
          : `Resumed the fleet (was paused by ${was.by}: ${was.reason}).`,
      );
      return ExitCode.ok;
    });
  }
  const { paths } = await openWorkspace(root);
  const control = new ControlFiles(paths);
  const reason = await control.resume();
  output.out(reason === undefined ? 'Not paused.' : `Resumed (was paused: ${reason}).`);
  if ((await liveRunner(paths.runnerLock)) === undefined) {
    const held = await control.readHolds();
    if (held.length > 0) await control.writeHolds([]);
    for (const { cli, reason: why } of held)
      output.out(`Lifted the hold on ${cli} (${why}): the next run may start it.`);
  }
  return ExitCode.ok;
}

/** `ralph resume <ids...>`: parked items back in line, as they were (their attempts kept). */
async function unparkItems(
  root: string,
  ids: readonly string[],
  output: Output,
  env: Readonly<Record<string, string | undefined>>,
): Promise<number> {
  const workspace = await openWorkspace(root);
  return withQueue(workspace, env, async (queue) => {
    for (const id of ids) {
      const after = await queue.apply(id, { kind: 'unparked', now: Date.now() });
      if (after.kind === 'refused') {
        const item = (await queue.dependencyClosure([id])).find((i) => i.id === id);
        throw new InputError(
          item === undefined
            ? `no item ${JSON.stringify(id)} in the queue`
            : `${id} is ${item.status}, not parked: "ralph resume <id>" puts back an item "ralph stop" parked`,
        );
      }
      output.out(`${id}: back in line (${after.item.status})`);
    }
    return ExitCode.ok;
  });
}

/** Runs `use` with the fleet of the workspace's queue; a file queue has none. */
function withFleet(
  workspace: Workspace,
  env: Readonly<Record<string, string | undefined>>,
  use: (fleet: Fleet, where: string) => Promise<number>,
): Promise<number> {
  return withQueue(workspace, env, (queue) => {
    if (queue.fleet === undefined)
      throw new RalphError(
        `--fleet: the queue is a file (${queue.where}), run by one runner: use "ralph pause" / "ralph resume"`,
      );
    return use(queue.fleet, queue.where);
  });
}
