import { useEffect, useState } from 'preact/hooks';
import { get, type Night } from '../api.js';
import { plural } from '../../../src/lib/text.js';
import { money, when } from '../format.js';
import { useLive } from '../live.js';
import { LandingSummary } from './landing-summary.js';
import { PullRequestsSummary } from './pull-requests.js';

/** The last night, fetched again whenever the queue changes. */
export function useNight(): Night | undefined {
  const { health } = useLive();
  const [night, setNight] = useState<Night>();
  const version = health?.queueVersion;
  useEffect(() => void get<Night>('/night').then(setNight, () => undefined), [version]);
  return night;
}

/**
 * The night at the top of the board, as a person reads it in the morning: its span, what got
 * done and what failed (each failure in the agent's last words, with its session), the spend
 * and the budget left.
 */
export function NightSummary({ night }: { night: Night | undefined }) {
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
