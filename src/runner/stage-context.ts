import type { StageContext } from '../stage/context.js';
import type { RunnerContext } from './context.js';
import { pauseForOperator, persistently } from './persist.js';
import { resolveSession } from '../session/prepare.js';
import type { StopControl } from './stop-control.js';
import { runReviewer } from './reviewer.js';
import type { RunSpend } from './run-spend.js';

/** What the run's stages are given of it: the runner's context, seen through `StageContext`. */
export function stageContextOf(
  ctx: RunnerContext,
  control: StopControl,
  spend: RunSpend,
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
    workOf: async (item) => {
      const resolved = await resolveSession({ workspace: ctx.workspace, item, cache: ctx.files });
      if ('reason' in resolved) throw new Error(resolved.reason);
      return {
        workDir: resolved.settings.workDir,
        layers: resolved.layers,
        sandbox: resolved.work.sandbox,
        environment: resolved.work.environment,
        land: resolved.work.land !== undefined,
        forge: resolved.work.forge !== undefined,
        cli: resolved.settings.cli,
        fallbackClis: resolved.fallback.clis.map((choice) => choice.cli),
      };
    },
    runReviewer: (item, session) => runReviewer(ctx, control, item, session, spend),
  };
}
