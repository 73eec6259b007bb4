import type { Report } from '../api.js';
import { pullRequestName } from '../../../src/queue/pull-request-name.js';

type PullRequests = NonNullable<Report['pullRequests']>;

/** How a pull request stands, for people: merged, ready to merge, awaiting checks, failed. */
const STATES: Record<string, { text: string; tone: string }> = {
  merged: { text: 'merged', tone: 'ok' },
  ready_to_merge: { text: 'ready to merge', tone: 'ok' },
  awaiting_checks: { text: 'awaiting checks', tone: 'warn' },
  checks_failed: { text: 'checks failed', tone: 'bad' },
  checks_timeout: { text: 'checks never ended', tone: 'bad' },
  changes_requested: { text: 'changes requested', tone: 'bad' },
};

/** The pull requests of the items worked on: each one's link, where it stands, its checks. */
export function PullRequestsSummary({ pulls }: { pulls: PullRequests | undefined }) {
  if (pulls === undefined || pulls.length === 0) return null;
  const merged = pulls.filter((p) => p.state === 'merged').length;
  const ready = pulls.filter((p) => p.state === 'ready_to_merge').length;
  return (
    <div class="pull-requests">
      <div>
        <b>Pull requests</b> · {pulls.length} · <span class="ok">{merged} merged</span> ·{' '}
        <span class="ok">{ready} ready to merge</span>
      </div>
      <ul class="failures">
        {pulls.map((p) => {
          const state = STATES[p.state] ?? { text: p.state.replaceAll('_', ' '), tone: 'dim' };
          return (
            <li key={p.number}>
              <a href={p.url} target="_blank" rel="noopener noreferrer">
                {pullRequestName(p, 'number')}
              </a>{' '}
              <a href={`#/items/${p.itemId}`}>{p.itemId}</a>{' '}
              <span class={state.tone}>{state.text}</span>
              {p.checks !== undefined && <span class="dim"> · {p.checks}</span>}
              {p.redRounds > 0 && (
                <span class="dim">
                  {' '}
                  · red {p.redRounds} time{p.redRounds === 1 ? '' : 's'}
                </span>
              )}
            </li>
          );
        })}
      </ul>
    </div>
  );
}
