import { Awake } from '../../src/control/awake.js';
import { Pacing } from '../../src/forecast/pacing.js';
import { Slots } from '../../src/session/slots.js';
import { CliHolds } from '../../src/agent/cli-holds.js';
import { openWorkspace } from '../../src/cli/open-workspace.js';
import { ControlFiles } from '../../src/control/files.js';
import { RunEvents } from '../../src/events/events.js';
import { FileCache } from '../../src/lib/file-cache.js';
import { Redactor } from '../../src/lib/redact.js';
import { openQueue } from '../../src/queue/open.js';
import type { RunnerContext } from '../../src/runner/context.js';
import type { Item } from '../../src/queue/item.js';
import { DEFAULT_TIMINGS } from '../../src/session/host.js';
import { NO_RUN_SPEND } from '../../src/session/run-spend.js';
import { SessionHost } from '../../src/session/session-host.js';
import { sessionHostContextOf, stageContextOf } from '../../src/runner/stage-context.js';
import { StopControl } from '../../src/runner/stop-control.js';
import { EgressProxy } from '../../src/sandbox/proxy.js';
import type { StageContext } from '../../src/stage/context.js';
import { StageLoop } from '../../src/stage/loop.js';
import type { Stage, StageFactory } from '../../src/stage/stage.js';
import type { fakeTime } from './fake-time.js';

/** A stage's waits as jumps of a fake clock. */
export const pacedBy = (time: ReturnType<typeof fakeTime>) => ({
  sleep: (ms: number) => time.wait({ ms }),
  untilChanged: () => time.wait({ ms: 1000 }),
});

/**
 * What a runner of the workspace gives its stages, on a fake clock: a stage driven in the test's
 * own process, as a restarted runner would drive it.
 */
export async function stageContextFor(
  root: string,
  time: ReturnType<typeof fakeTime>,
  env: Readonly<Record<string, string>> = {},
  secrets: readonly string[] = [],
): Promise<{ ctx: StageContext; events: RunEvents; close: () => Promise<void> }> {
  const workspace = await openWorkspace(root);
  const queue = await openQueue(workspace, env);
  const events = new RunEvents(() => time.clock.now());
  const ctx: RunnerContext = {
    workspace,
    queue,
    egress: new EgressProxy(),
    post: () => undefined,
    endsWhenPaused: false,
    controlFiles: new ControlFiles(workspace.paths),
    events,
    clock: time.clock,
    redactor: new Redactor([...secrets]),
    parentEnv: { ...process.env, ...env },
    runner: { pid: process.pid, startedAt: new Date(time.now()).toISOString() },
    lastRunnerDied: false,
    timings: DEFAULT_TIMINGS,
    wait: time.wait,
    files: new FileCache(),
    leases: new Map(),
    workDirsInUse: new Set(),
    slots: new Slots(41_000, 10),
    awake: Awake.start(false, {}, () => undefined),
    pacing: new Pacing(),
    cliHolds: new CliHolds(() => undefined),
    lockLost: () => undefined,
    onWedged: () => {
      throw new Error('wedged');
    },
  };
  const control = new StopControl();
  const sessions = new SessionHost(sessionHostContextOf(ctx, control), NO_RUN_SPEND);
  return {
    ctx: stageContextOf(ctx, control, sessions),
    events,
    close: () => queue.close(),
  };
}

/** A stage of `factory` on the one stage loop, as a run makes it. */
export function stageOn(
  factory: StageFactory,
  ctx: StageContext,
  moved: (item: Item | undefined) => void = () => undefined,
): Stage {
  return new StageLoop(factory(ctx, moved), ctx, moved);
}
