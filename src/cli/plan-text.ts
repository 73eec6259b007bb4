import type { NightPlan } from '../forecast/night-plan.js';
import type { PlanSummary } from '../events/plan-summary.js';
import { formatDuration } from '../lib/duration.js';
import { plural } from '../lib/text.js';
import { PLAN_LIMIT } from '../forecast/night-plan.js';
import { renderTable } from './table.js';

/** A time as a person reads it on this machine: `HH:MM`, with its date when not today. */
export function clockTime(at: string | number, now = Date.now()): string {
  const date = new Date(at);
  const pad = (n: number) => String(n).padStart(2, '0');
  const time = `${pad(date.getHours())}:${pad(date.getMinutes())}`;
  return date.toDateString() === new Date(now).toDateString()
    ? time
    : `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ${time}`;
}

const percent = (share: number) => `${Math.round(share * 100)}%`;
/** A forecast's dollars: cents are precision enough for a guess. */
export const dollars = (usd: number) => `$${usd.toFixed(2)}`;

/** Where a group's figures come from, in words. */
function basisText(group: PlanSummary['groups'][number]): string {
  if (group.basis !== 'history') return "the items' caps (no similar session yet)";
  return `${plural(group.sessions ?? 0, 'past session')}, ${group.succeeded ?? 0} succeeded`;
}

/** A window, and how far the night gets in it. */
function windowLine(
  window: PlanSummary['windows'][number],
  reserve: number | undefined,
  now: number,
): string {
  const resets = window.resetsAt === undefined ? '' : `, resets ${clockTime(window.resetsAt, now)}`;
  const head = `  ${window.cli} ${window.kind}: ${percent(window.utilization)} used${resets}`;
  if (window.headroomUsd === undefined)
    return `${head}; what a session uses of it is not known yet (no two reports of it archived): nothing is held back for it`;
  const kept =
    reserve === undefined ? 'under run.reserve' : `keeping ${percent(reserve)} (run.reserve)`;
  if (window.runsOutAt !== undefined && window.itemsBefore === 0)
    return `${head}; no room left ${kept}: nothing starts on ${window.cli} before it resets`;
  const room = `room for ${dollars(window.headroomUsd)} of work ${kept}`;
  return window.runsOutAt === undefined
    ? `${head}; ${room}: enough for the night`
    : `${head}; ${room}: ${plural(window.itemsBefore, 'item')} before it runs out about ${clockTime(window.runsOutAt, now)}`;
}

/** The plan in brief: the first lines of `ralph run`, and the head of `ralph plan`. */
export function planSummaryLines(
  summary: PlanSummary,
  options: { workers: number; reserve?: number; now?: number },
): string[] {
  const now = options.now ?? Date.now();
  if (summary.items === 0 && summary.left === 0) return ['Plan: nothing to run'];
  // With no past session to go by, the figures are the items' caps: bounds, not likelihoods.
  const capsOnly = summary.groups.every((g) => g.basis !== 'history');
  const ends =
    summary.endsAt === undefined
      ? ''
      : capsOnly
        ? `, done by ${clockTime(summary.endsAt, now)} at the latest`
        : `, done about ${clockTime(summary.endsAt, now)}`;
  const lines = [
    `Plan: ${plural(summary.items, 'item')} tonight, ${capsOnly ? 'at most' : 'likely'} ${dollars(summary.costUsd)}${ends} (${plural(options.workers, 'worker')})${capsOnly ? "; no past session to go by: the items' caps" : ''}`,
  ];
  const rows = summary.groups.map((g) => [
    g.persona ?? '-',
    g.cli,
    g.model ?? '-',
    String(g.items),
    `${dollars(g.costUsd)}`,
    formatDuration(g.seconds),
    basisText(g),
  ]);
  lines.push(
    ...renderTable(
      ['  PERSONA', 'CLI', 'MODEL', 'ITEMS', 'EACH', 'TIME', 'FROM'],
      rows.map((r) => [`  ${r[0]}`, ...r.slice(1)]),
    ).split('\n'),
  );
  if (summary.windows.length > 0) lines.push('Windows:');
  for (const window of summary.windows) lines.push(windowLine(window, options.reserve, now));
  if (summary.left > 0)
    lines.push(
      `Left for the morning: ${plural(summary.left, 'item')} (likely ${dollars(summary.leftCostUsd)}): a window runs out under run.reserve, or the deadline or the cost cap comes first`,
    );
  if (summary.beyond !== undefined)
    lines.push(
      `Beyond the plan: ${plural(summary.beyond, 'more runnable item')}, after the first ${PLAN_LIMIT.toLocaleString('en')} in the queue's order`,
    );
  if (summary.paced)
    lines.push(
      'Paced: among items of one priority, those likeliest to finish inside the window start first',
    );
  return lines;
}

/** `ralph plan`: the brief, then each item in the order the night would start it. */
export function planLines(
  plan: NightPlan,
  summary: PlanSummary,
  now: number,
  shown = 30,
): string[] {
  const lines = planSummaryLines(summary, { workers: plan.workers, reserve: plan.reserve, now });
  if (plan.items.length > 0) {
    const rows = plan.items
      .slice(0, shown)
      .map((p, index) => [
        String(index + 1),
        p.id,
        p.cli,
        `${dollars(p.estimate.costUsd)}`,
        `${Math.round(p.estimate.chance * 100)}%`,
        p.left === undefined ? clockTime(p.startsAt, now) : '-',
        p.left === undefined
          ? [
              p.afterReset === undefined ? '' : `after the ${p.afterReset.kind} reset`,
              (p.through?.length ?? 0) > 1 ? `then ${p.through?.join(' → ')}` : '',
            ]
              .filter((said) => said !== '')
              .join('; ')
          : `left: ${p.left}${p.leftUntil === undefined ? '' : ` until ${clockTime(p.leftUntil, now)}`}`,
      ]);
    const table = renderTable(['#', 'ITEM', 'CLI', 'COST', 'CHANCE', 'STARTS', ''], rows);
    lines.push('', ...table.split('\n').map((line) => line.trimEnd()));
    if (plan.items.length > shown)
      lines.push(`… ${plural(plan.items.length - shown, 'more item')} (--json lists them all)`);
  }
  for (const r of plan.refused) lines.push(`would be refused: ${r.id}: ${r.reason}`);
  for (const u of plan.unrunnable) lines.push(`cannot run: ${u.id}: ${u.reason}`);
  return lines;
}
