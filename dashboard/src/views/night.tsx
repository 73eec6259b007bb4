import { useEffect, useState } from 'preact/hooks';
import { get, type NightReport } from '../api.js';
import { plural } from '../../../src/lib/text.js';
import { clock, money, when } from '../format.js';
import { useLive } from '../live.js';
import { LandingSummary } from './landing-summary.js';
import { PullRequestsSummary } from './pull-requests.js';

/** The last night, fetched again whenever the queue changes. */
export function useNight(): NightReport | undefined {
  const { health } = useLive();
  const [night, setNight] = useState<NightReport>();
  const version = health?.queueVersion;
  useEffect(() => void get<NightReport>('/night').then(setNight, () => undefined), [version]);
  return night;
}

/**
 * The night at the top of the board, as a person reads it in the morning: its span, what got
 * done and what failed (each failure in the agent's last words, with its session), the spend
 * and the budget left.
 */
export function NightSummary({ night }: { night: NightReport | undefined }) {
  if (night?.startedAt === undefined) return null;
  return (
    <div class="night" id="night">
      <div class="night-head">
        <b>The night</b> {when(night.startedAt)}
        {night.lastEndedAt ? ` – ${when(night.lastEndedAt)}` : ''} ·{' '}
        <span class="ok">{night.done} done</span> ·{' '}
        <span class={night.failed > 0 ? 'bad' : ''}>{night.failed} failed</span>
        {night.retried > 0 ? ` · ${night.retried} retried` : ''} ·{' '}
        {plural(night.sessions, 'session')} · {money(night.costUsd, 2, night.costEstimated)}
        {night.budgetLeftUsd === undefined
          ? ''
          : ` of ${money(night.maxCostUsd)} (${money(night.budgetLeftUsd)} left)`}
      </div>
      {night.plan && <PlanSummary plan={night.plan} />}
      <LandingSummary landing={night.landing} />
      <PullRequestsSummary pulls={night.pullRequests} />
      {night.failures.length > 0 && (
        <ul class="failures">
          {night.failures.map((f) => (
            <li key={f.sessionId}>
              <a href={`#/items/${f.itemId}`}>{f.itemId}</a> <span class="bad">{f.outcome}</span>:{' '}
              {f.lastWords ?? f.message ?? ''} <a href={`#/sessions/${f.sessionId}`}>transcript</a>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

/**
 * The plan the run started with (`ralph plan`): what it expected of the night and of each
 * usage window, and how the night has gone against it so far.
 */
function PlanSummary({ plan }: { plan: NonNullable<NightReport['plan']> }) {
  const { summary, outcome } = plan;
  const so = outcome.outcome;
  // With no past session to go by, the figures are the items' caps: bounds, not likelihoods.
  const capsOnly = summary.groups.every((g) => g.basis !== 'history');
  return (
    <div class="night-plan" id="night-plan">
      <b>Plan</b> {plural(summary.items, 'item')}, {capsOnly ? 'at most' : 'likely'}{' '}
      {money(summary.costUsd)}
      {summary.endsAt
        ? capsOnly
          ? `, done by ${clock(summary.endsAt)} at the latest`
          : `, done about ${clock(summary.endsAt)}`
        : ''}
      {summary.left > 0 ? ` · ${summary.left} left for the morning` : ''}
      {summary.beyond ? ` · ${summary.beyond} more beyond the plan` : ''}
      {summary.windows.map((w) => (
        <span key={`${w.cli} ${w.kind}`}>
          {' '}
          · {w.cli} {w.kind.replace('_', '-')} window {Math.round(w.utilization * 100)}% used
          {w.runsOutAt ? `, runs out about ${clock(w.runsOutAt)}` : ''}
        </span>
      ))}
      <div class="plan-outcome">
        So far: {so.plannedRan} of {outcome.planned.items} planned ran, {so.plannedSucceeded}{' '}
        succeeded, {money(so.costUsd)} of {money(outcome.planned.costUsd)} spent
        {so.items > so.plannedRan ? ` · ${so.items - so.plannedRan} unplanned` : ''}
        {so.inPlanOrder ? '' : " · not in the plan's order"}
      </div>
    </div>
  );
}
