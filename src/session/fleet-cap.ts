import type { SessionHostContext } from './host.js';

/**
 * What the fleet may still spend today (UTC), when its queue has a daily cap
 * (`queue.maxDailyCostUsd`): asked before any session is paid for, an author's or a reviewer's.
 */
export async function fleetDailyLeft(
  ctx: Pick<SessionHostContext, 'workspace' | 'queue' | 'clock' | 'persistently'>,
): Promise<{ left: number; reason: string } | undefined> {
  const cap = ctx.workspace.config.queue.maxDailyCostUsd;
  const { fleet } = ctx.queue;
  if (cap === undefined || fleet === undefined) return undefined;
  const spent = await ctx.persistently("reading the fleet's spend", () =>
    fleet.spentOn(ctx.clock.now()),
  );
  return {
    left: cap - spent,
    reason: `the fleet has spent $${spent.toFixed(4)} today (UTC) of its $${cap} daily cap (queue.maxDailyCostUsd)`,
  };
}
