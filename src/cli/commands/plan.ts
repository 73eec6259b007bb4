import { planSummary } from '../../forecast/night-plan.js';
import { InputError } from '../../lib/errors.js';
import { ExitCode } from '../../lib/exit-codes.js';
import { withQueueReader } from '../../queue/open.js';
import { forecastNight } from '../../forecast/night-forecast.js';
import { parseDeadline } from '../../runner/index.js';
import { positiveAmount, positiveInt } from '../flags.js';
import { openWorkspace } from '../open-workspace.js';
import type { Output } from '../output.js';
import { planLines } from '../plan-text.js';

/**
 * `ralph plan`: what tonight will likely do, from the queue and the archive's history: each
 * item's likely cost, time and chance, the usage windows' room under `run.reserve`, and the
 * order the night would start the items in. Nothing is run or written.
 */
export async function planCommand(
  root: string,
  options: { workers?: string; until?: string; maxCost?: string; json?: boolean },
  output: Output,
  env: Readonly<Record<string, string | undefined>>,
): Promise<number> {
  const workspace = await openWorkspace(root);
  const now = Date.now();
  let deadline: number | undefined;
  if (options.until !== undefined) {
    deadline = parseDeadline(options.until, now);
    if (deadline === undefined)
      throw new InputError(
        `--until: expected HH:MM or an ISO time, got ${JSON.stringify(options.until)}`,
        '--until',
      );
  }
  const workers = positiveInt('--workers', options.workers) ?? workspace.config.run.workers;
  const items = await withQueueReader(workspace, env, (queue) => queue.list());
  const maxCostUsd =
    positiveAmount('--max-cost', options.maxCost) ?? workspace.config.run.maxCostUsd;
  const plan = await forecastNight({ workspace, items, workers, now, deadline, maxCostUsd });
  const summary = planSummary(plan);
  if (options.json === true) output.out(JSON.stringify({ summary, ...plan }, null, 2));
  else for (const line of planLines(plan, summary, now)) output.out(line);
  return ExitCode.ok;
}
