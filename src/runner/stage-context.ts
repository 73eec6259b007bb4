import type { StageContext } from '../stage/context.js';
import type { SessionHostContext } from '../session/host.js';
import type { SessionHost } from '../session/session-host.js';
import type { RunnerContext } from './context.js';
import { pauseForOperator, persistently } from './persist.js';
import type { StopControl } from './stop-control.js';

/** What the session host is given of the run: the runner's context and its stop. */
export function sessionHostContextOf(ctx: RunnerContext, control: StopControl): SessionHostContext {
  return {
    ...ctx,
    stop: control,
    persistently: (operation, run) => persistently(ctx, control, operation, run),
  };
}

/** What the run's stages are given of it: the runner's context, seen through `StageContext`. */
export function stageContextOf(
  ctx: RunnerContext,
  control: StopControl,
  sessions: SessionHost,
): StageContext {
  return {
    post: ctx.post,
    workspace: ctx.workspace,
    queue: ctx.queue,
    events: ctx.events,
    clock: ctx.clock,
    redactor: ctx.redactor,
    parentEnv: ctx.parentEnv,
    egress: ctx.egress,
    signal: control.signal,
    stopped: () => control.requested !== undefined,
    persistently: (operation, run) => persistently(ctx, control, operation, run),
    pause: async (reason) => {
      await pauseForOperator(ctx, control, reason);
    },
    pauseReason: () => ctx.controlFiles.pauseReason(),
    sessions,
  };
}
