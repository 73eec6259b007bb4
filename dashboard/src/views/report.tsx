import { useEffect, useState } from 'preact/hooks';
import { get, type Report, type ReportGroup } from '../api.js';
import { formatDuration, money } from '../format.js';
import { LandingSummary } from './landing-summary.js';
import { ImportedSummary, NotificationsSummary } from './notifications.js';
import { PullRequestsSummary } from './pull-requests.js';

const WIDTH = 720;
const HEIGHT = 180;

/** Per day: a bar of outcomes (done, failed, interrupted) and a dot of cost on its own scale. */
function Chart({ days }: { days: ReportGroup[] }) {
  if (days.length === 0) return null;
  const shown = days.slice(-30);
  const maxSessions = Math.max(...shown.map((d) => d.sessions), 1);
  const maxCost = Math.max(...shown.map((d) => d.costUsd), 0.01);
  const step = WIDTH / shown.length;
  const bar = Math.min(48, Math.max(4, step * 0.6));
  const y = (n: number) => (n / maxSessions) * (HEIGHT - 20);
  return (
    <svg
      class="chart"
      viewBox={`0 0 ${WIDTH} ${HEIGHT + 20}`}
      role="img"
      aria-label="sessions and cost per day"
    >
      {shown.map((d, i) => {
        const x = i * step + (step - bar) / 2;
        let top = HEIGHT;
        const parts: [string, number][] = [
          ['ok', d.succeeded],
          ['bad', d.failed],
          ['warn', d.interrupted],
        ];
        return (
          <g key={d.key}>
            {parts.map(([cls, n]) => {
              top -= y(n);
              return (
                <rect key={cls} class={cls} x={x} y={top} width={bar} height={y(n)}>
                  <title>{`${d.key}: ${n} ${cls}`}</title>
                </rect>
              );
            })}
            <circle
              class="cost"
              cx={x + bar / 2}
              cy={HEIGHT - (d.costUsd / maxCost) * (HEIGHT - 20)}
              r={3}
            >
              <title>{`${d.key}: ${money(d.costUsd, 4)}`}</title>
            </circle>
            {shown.length <= 14 && (
              <text x={x + bar / 2} y={HEIGHT + 14} text-anchor="middle">
                {d.key.slice(5)}
              </text>
            )}
          </g>
        );
      })}
    </svg>
  );
}

const ROW = 64;
/** Room above a row's tallest bar: its title, and a bar's figure when the bars are wide enough. */
const BAR_TOP = 32;
/** How wide a night must be for its figure to be written over its bar (else: on hover). */
const LABELLED_STEP = 48;

/**
 * Night over night, what the person's decisions came to: the share of items accepted at the
 * first pass, what an accepted change cost, their time on a decision, and once there are rules,
 * how often they were checked and broken and the rejections that repeat one; a row of bars each,
 * the last night's figure by its title, each night's over its bar when there is room (else on
 * hover).
 */
function NightsChart({ nights }: { nights: Report['nights'] }) {
  const shown = nights.slice(-30);
  if (shown.length === 0) return null;
  const step = WIDTH / shown.length;
  const bar = Math.min(48, Math.max(4, step * 0.6));
  const labelled = step >= LABELLED_STEP;
  const rows: {
    title: string;
    value: (n: (typeof shown)[number]) => number | undefined;
    said: (v: number) => string;
    /** Its bars' colour: `bad` for what a person would rather see fall. */
    tone?: 'ok' | 'bad';
  }[] = [
    {
      title: 'accepted at the first pass',
      value: (n) => (n.firstDecided === 0 ? undefined : n.firstPassAccepted / n.firstDecided),
      said: (v) => `${Math.round(v * 100)}%`,
    },
    {
      title: 'per accepted change',
      value: (n) => (n.costed === 0 ? undefined : n.acceptedCostUsd / n.costed),
      said: (v) => money(v),
    },
    {
      title: 'your time a decision',
      value: (n) => (n.medianReviewMs === undefined ? undefined : n.medianReviewMs / 1000),
      said: (v) => formatDuration(Math.round(v)),
    },
    // The rules a person accepted, once there are any: checked, broken, and the rejections
    // that repeat the mistake a rule was for.
    ...(shown.some((n) => n.rulesApplied > 0 || n.repeatedRejections > 0)
      ? [
          {
            title: 'rules checked on a change',
            value: (n: (typeof shown)[number]) => n.rulesApplied,
            said: (v: number) => String(v),
          },
          {
            title: 'rules found broken',
            value: (n: (typeof shown)[number]) => n.rulesBroken,
            said: (v: number) => String(v),
            tone: 'bad' as const,
          },
          {
            title: 'rejections repeating a rule',
            value: (n: (typeof shown)[number]) => n.repeatedRejections,
            said: (v: number) => String(v),
            tone: 'bad' as const,
          },
        ]
      : []),
  ];
  const height = rows.length * ROW + 20;
  return (
    <svg
      class="chart nights"
      id="nights"
      viewBox={`0 0 ${WIDTH} ${height}`}
      role="img"
      aria-label="your decisions night over night"
    >
      {rows.map((row, r) => {
        const values = shown.map(row.value);
        const max = Math.max(...values.map((v) => v ?? 0), 1e-9);
        const base = (r + 1) * ROW;
        const last = values.findLast((v) => v !== undefined);
        return (
          <g key={row.title}>
            <text x={4} y={r * ROW + 12} class="row-title">
              {row.title}
            </text>
            <text x={WIDTH - 4} y={r * ROW + 12} text-anchor="end" class="row-last">
              {last === undefined ? 'none known' : `latest ${row.said(last)}`}
            </text>
            {shown.map((n, i) => {
              const v = values[i];
              if (v === undefined) return null;
              const h = (v / max) * (ROW - BAR_TOP);
              const x = i * step + (step - bar) / 2;
              return (
                <g key={n.day}>
                  <rect class={row.tone ?? 'ok'} x={x} y={base - h} width={bar} height={h}>
                    <title>{`${n.day}: ${row.said(v)}`}</title>
                  </rect>
                  {labelled && (
                    <text x={x + bar / 2} y={base - h - 3} text-anchor="middle" class="value">
                      {row.said(v)}
                    </text>
                  )}
                </g>
              );
            })}
          </g>
        );
      })}
      {shown.length <= 14 &&
        shown.map((n, i) => (
          <text key={n.day} x={i * step + step / 2} y={height - 4} text-anchor="middle">
            {n.day.slice(5)}
          </text>
        ))}
    </svg>
  );
}

const percent = (part: number, whole: number) =>
  whole === 0 ? '' : ` ${Math.round((part / whole) * 100)}%`;

/** The rules a person accepted: how often each was applied and broken, the rejections it is about. */
function RulesSummary({ rules }: { rules: Report['rules'] }) {
  if (rules.length === 0) return null;
  return (
    <div class="egress" id="rules">
      <b>Rules</b> · {rules.length} accepted from your decisions
      <table class="rules-table">
        <thead>
          <tr>
            <th>rule</th>
            <th class="num">applied</th>
            <th class="num">broken</th>
            <th
              class="num"
              title="rejections it rests on / rejections since, of work found breaking it"
            >
              rejections before / after
            </th>
          </tr>
        </thead>
        <tbody>
          {rules.map((r) => (
            <tr key={r.id} class={r.status === 'retired' ? 'dim' : ''}>
              <td>
                <b>{r.id}</b> {r.text}
                {r.status === 'retired' && <span class="dim"> (retired)</span>}
              </td>
              <td class="num">{r.applied}</td>
              <td class={`num${r.broken > 0 ? ' bad' : ''}`}>{r.broken}</td>
              <td class="num">
                {r.rejectionsBefore} / {r.rejectionsAfter}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** What the sessions spent before their first tool call: the tax of the system prompt and tools. */
function OpeningSummary({ opening }: { opening: Report['opening'] }) {
  if (opening === undefined) return null;
  const count = (n: number) => n.toLocaleString('en-US');
  return (
    <div class="egress" id="opening">
      <b>Before the first tool call</b> · {count(opening.tokens)} of {count(opening.totalTokens)}{' '}
      tokens
      <span class="dim">{percent(opening.tokens, opening.totalTokens)}</span>,{' '}
      {money(opening.costUsd, 4, true)} of {money(opening.totalCostUsd, 4, false)}
      <span class="dim">{percent(opening.costUsd, opening.totalCostUsd)}</span>
      <span class="dim">
        {' '}
        · {opening.sessions} session{opening.sessions === 1 ? '' : 's'} that count it
      </span>
    </div>
  );
}

/** Your decisions of the span: how many, the wait for them, your time on each, the reviewer's agreement. */
function DecisionsSummary({ decisions }: { decisions: Report['decisions'] }) {
  if (decisions === undefined) return null;
  const { reviewTime, reviewed } = decisions;
  const took = (ms: number) => formatDuration(Math.round(ms / 1000));
  return (
    <div class="egress" id="decisions">
      <b>Your decisions</b> · {decisions.decisions}: {decisions.accepted} accepted,{' '}
      {decisions.rejected} rejected, {decisions.deferred} deferred
      {decisions.medianWaitMs !== undefined && (
        <span class="dim"> · median wait from done {took(decisions.medianWaitMs)}</span>
      )}
      <ul class="failures">
        {reviewTime !== undefined && (
          <li>
            your time: <b>{took(reviewTime.medianMs)}</b> a decision{' '}
            <span class="dim">
              (the median of {reviewTime.timed} timed on an item's page), {took(reviewTime.totalMs)}{' '}
              in all
            </span>
          </li>
        )}
        {reviewed !== undefined && (
          <li>
            the reviewer agreed with you on {reviewed.agreed} of {reviewed.decisions}
            <span class="dim">
              {' '}
              · of its {reviewed.approvals} approvals you accepted {reviewed.approvalsAccepted}
            </span>
          </li>
        )}
      </ul>
    </div>
  );
}

function Table({ title, groups }: { title: string; groups: ReportGroup[] }) {
  return (
    <table class="report">
      <thead>
        <tr>
          <th>{title}</th>
          <th class="wide">sessions</th>
          <th title="sessions that succeeded">succeeded</th>
          <th class="wide" title="sessions that ended asking a person">
            asked
          </th>
          <th class="wide">retried</th>
          <th>failed</th>
          <th class="wide">interrupted</th>
          <th>cost</th>
          <th class="wide" title="what its sessions spent before their first tool call">
            before work
          </th>
          <th class="wide">time</th>
        </tr>
      </thead>
      <tbody>
        {groups.map((g) => (
          <tr key={g.key}>
            <td>{g.key}</td>
            <td class="wide">{g.sessions}</td>
            <td>{g.succeeded}</td>
            <td class="wide">{g.asked}</td>
            <td class="wide">{g.retried}</td>
            <td>{g.failed}</td>
            <td class="wide">{g.interrupted}</td>
            <td>{money(g.costUsd, 4, g.costEstimated)}</td>
            <td class="wide">
              {g.opening === undefined ? (
                '-'
              ) : (
                <>
                  {money(g.opening.costUsd, 4, true)}
                  <span class="dim">{percent(g.opening.costUsd, g.opening.totalCostUsd)}</span>
                </>
              )}
            </td>
            <td class="wide">{formatDuration(g.seconds)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** `ralph report`: outcomes, cost and time per day and per item. */
export function ReportView() {
  const [since, setSince] = useState('');
  const [report, setReport] = useState<Report>();
  const [error, setError] = useState<string>();
  useEffect(() => {
    get<Report>(`/report${since === '' ? '' : `?since=${encodeURIComponent(since)}`}`).then(
      (r) => {
        setReport(r);
        setError(undefined);
      },
      (e: Error) => setError(e.message),
    );
  }, [since]);
  return (
    <section>
      <div class="filters">
        <input
          name="since"
          placeholder="since (24h, 7d, a time)"
          value={since}
          onChange={(e) => setSince(e.currentTarget.value)}
        />
      </div>
      {error && <div class="error-box">{error}</div>}
      {report && (
        <>
          <Chart days={report.byDay} />
          <DecisionsSummary decisions={report.decisions} />
          <NightsChart nights={report.nights} />
          <RulesSummary rules={report.rules} />
          <OpeningSummary opening={report.opening} />
          <LandingSummary landing={report.landing} />
          <PullRequestsSummary pulls={report.pullRequests} />
          <ImportedSummary imported={report.imported} />
          <NotificationsSummary notifications={report.notifications} />
          {report.fallbacks !== undefined && (
            <div class="egress" id="fallbacks">
              <b>Fallbacks</b> · {report.fallbacks.sessions} session
              {report.fallbacks.sessions === 1 ? '' : 's'} on another CLI while its own was held,{' '}
              {money(report.fallbacks.costUsd, 4, report.fallbacks.costEstimated)}
              <ul class="failures">
                {report.fallbacks.pairs.map((p) => (
                  <li key={`${p.cli}-${p.for}`}>
                    {p.cli} for {p.for}{' '}
                    <span class="dim">
                      · {p.sessions} session{p.sessions === 1 ? '' : 's'},{' '}
                      {money(p.costUsd, 4, report.fallbacks?.costEstimated ?? false)}
                    </span>
                  </li>
                ))}
              </ul>
            </div>
          )}
          {report.egress !== undefined && (
            <div class="egress">
              <b>Refused by the sandbox</b> · {report.egress.refused} connection
              {report.egress.refused === 1 ? '' : 's'}
              <ul class="failures">
                {report.egress.hosts.map((h) => (
                  <li key={h.host}>
                    <code>{h.host}</code>{' '}
                    <span class="dim">
                      in {h.sessions} session{h.sessions === 1 ? '' : 's'}
                    </span>
                  </li>
                ))}
              </ul>
            </div>
          )}
          {report.byDay.length === 0 ? (
            <p class="dim" id="no-sessions">
              No sessions {since === '' ? 'yet' : 'in this span'}: the report fills as nights run.
            </p>
          ) : (
            <>
              <p class="legend">
                <span class="ok">■ sessions succeeded</span> <span class="bad">■ failed</span>{' '}
                <span class="warn">■ interrupted</span> <span class="cost">● cost</span>
              </p>
              <Table title="day" groups={report.byDay} />
              <Table title="item" groups={report.byItem} />
              {report.byCli.length > 1 && <Table title="cli" groups={report.byCli} />}
            </>
          )}
        </>
      )}
    </section>
  );
}
