import os from 'node:os';
import type { RunnerContext } from './context.js';

/** How the interrupt file says the pause is the fleet's (lifted with the fleet's resume). */
export const FLEET_PAUSE = 'ralph: the fleet is paused';

/**
 * The runner's part in the queue's upkeep while it runs, three times per lease: its items'
 * leases renewed (so they stay its own while it lives), and in a fleet its heartbeat in the
 * runners table and the fleet's pause mirrored into this workspace's interrupt file (also at
 * once on the queue's notifications). A tick that fails (the database away) is logged; the
 * next tries again, and the settle's fencing covers a lease that expired meanwhile.
 * Returns what ends it.
 */
export async function keepUp(ctx: RunnerContext, workers: number): Promise<() => Promise<void>> {
  const { fleet } = ctx.queue;
  // Away now, the row is written by a later heartbeat.
  await fleet
    ?.join({ host: os.hostname(), pid: process.pid, workspace: ctx.workspace.root, workers })
    .catch(() => undefined);
  let ticking: Promise<void> = Promise.resolve();
  const tick = () => {
    ticking = ticking.then(() =>
      upkeep(ctx).catch((error: unknown) =>
        ctx.events.warn('lease_renewal_failed', { error: ctx.redactor.redact(String(error)) }),
      ),
    );
  };
  const timer = setInterval(tick, (ctx.workspace.config.queue.lease * 1000) / 3);
  timer.unref();
  const unsubscribe =
    fleet === undefined
      ? () => undefined
      : ctx.queue.subscribe(() => void followPause(ctx).catch(() => undefined));
  // Before the first claim: a pause lifted while no runner ran must not hold this one.
  if (fleet !== undefined) await followPause(ctx).catch(() => undefined);
  return async () => {
    clearInterval(timer);
    unsubscribe();
    await ticking;
    await fleet?.leave().catch(() => undefined);
  };
}

async function upkeep(ctx: RunnerContext): Promise<void> {
  if (ctx.leases.size > 0) await ctx.queue.renew([...ctx.leases.values()]);
  if (ctx.queue.fleet === undefined) return;
  await ctx.queue.fleet.heartbeat();
  await followPause(ctx);
}

/**
 * The fleet's pause, mirrored into the interrupt file: every guard of a local pause applies.
 * Throws when the database cannot say (an outage lifts no pause).
 */
async function followPause(ctx: RunnerContext): Promise<void> {
  const { fleet } = ctx.queue;
  if (fleet === undefined) return;
  const pause = await fleet.pauseState();
  const local = await ctx.controlFiles.pauseReason();
  if (pause !== undefined && local === undefined) {
    await ctx.controlFiles.pause(
      ctx.redactor.redact(
        `${FLEET_PAUSE} (by ${pause.by}): ${pause.reason}; "ralph resume --fleet" lifts it`,
      ),
    );
    ctx.events.warn('fleet_paused', { reason: pause.reason, by: pause.by });
  } else if (pause === undefined && local?.startsWith(FLEET_PAUSE) === true) {
    await ctx.controlFiles.resume();
    ctx.events.info('fleet_resumed');
  }
}
