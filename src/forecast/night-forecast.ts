import { readIndex } from '../archive/index.js';
import type { Workspace } from '../config/workspace.js';
import { History, type Profile } from './estimate.js';
import { PLAN_LIMIT, planNight, type NightPlan } from './night-plan.js';
import { windowsOf } from './windows.js';
import { FileCache } from '../lib/file-cache.js';
import { statusIs } from '../queue/item-status.js';
import type { Item } from '../queue/item.js';
import { inSelectionOrder } from '../queue/select.js';
import { resolveSession } from '../session/prepare.js';
import { stagesOfWork } from '../session/stages.js';

/** What the plan is made for: the queue as it stands, the run's workers and deadline. */
export interface ForecastRequest {
  workspace: Workspace;
  items: readonly Item[];
  workers: number;
  now: number;
  deadline?: number;
  maxCostUsd?: number;
  cache?: FileCache;
}

/** The night's plan from the queue, each item's settings and the archive's history. */
export async function forecastNight(request: ForecastRequest): Promise<NightPlan> {
  const { workspace, items, now } = request;
  const { entries } = await readIndex(workspace.paths.sessions);
  const cache = request.cache ?? new FileCache();
  const runnable = inSelectionOrder(items.filter((item) => statusIs(item.status, 'runnable')));
  const taken = new Set(runnable.slice(0, PLAN_LIMIT).map((item) => item.id));
  const profiles = new Map<string, Profile | { refused: string }>();
  for (const item of runnable.slice(0, PLAN_LIMIT)) {
    const resolved = await resolveSession({ workspace, item, cache });
    profiles.set(
      item.id,
      'reason' in resolved
        ? { refused: resolved.reason }
        : {
            persona: resolved.persona?.id,
            cli: resolved.settings.cli,
            model: resolved.settings.model,
            maxBudgetUsd: resolved.settings.maxBudgetUsd,
            timeoutSeconds: resolved.settings.timeoutSeconds,
            stages: stagesOfWork(resolved.work),
          },
    );
  }
  return planNight({
    items: items.filter((item) => !statusIs(item.status, 'runnable') || taken.has(item.id)),
    beyond: runnable.length - taken.size,
    profiles,
    history: new History(entries),
    windows: windowsOf(entries, now),
    reserve: workspace.config.run.reserve,
    workers: request.workers,
    now,
    deadline: request.deadline,
    maxCostUsd: request.maxCostUsd,
    maxLimitWaitMs: workspace.config.run.maxLimitWait * 1000,
  });
}
