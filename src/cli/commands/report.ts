import { pullRequestName } from '../../queue/pull-request-name.js';
import {
  egressReport,
  landingReport,
  openingCell,
  openingLine,
  pullRequestsReport,
  reportOf,
  reviewReport,
  type FallbackReport,
  type LandingReport,
  type PullRequestReport,
  type ReportGroup,
  type ReviewReport,
} from '../../archive/report.js';
import { plural } from '../../lib/text.js';
import { addUsd, formatCost } from '../../lib/usd.js';
import { Outbox } from '../../notify/outbox.js';
import { outboxReport, type NotificationsReport } from '../../notify/report.js';
import { importedReport, type ImportedItem } from '../../queue/source-text.js';
import { withQueueReader } from '../../queue/open.js';
import { formatDuration } from '../../lib/duration.js';
import { ExitCode } from '../../lib/exit-codes.js';
import { openWorkspace } from '../open-workspace.js';
import type { Output } from '../output.js';
import { renderTable } from '../table.js';
import { newestFirst, parseSince, sessionIndex } from '../../workspace/sessions.js';
import { decisionReport, type DecisionReport } from '../../workspace/decide.js';
import { readLedger } from '../../queue/ledger.js';
import { rulesReport, type RuleRow } from '../../workspace/rules-report.js';
import { decisionNights, type DecisionNight } from '../../workspace/decision-nights.js';
import { isAccepted, waitsOnPerson } from '../../queue/decisions.js';
import type { Item } from '../../queue/item.js';
import { lastPlanOutcome } from '../../forecast/plan-file.js';
import type { PlanOutcome } from '../../forecast/plan-outcome.js';
import { clockTime, dollars } from '../plan-text.js';
import { statusIs, type ItemStatus } from '../../queue/item-status.js';
import { candidatesReport, type CandidatesReport } from '../../archive/candidates-report.js';

/** The connections the sandbox refused, by host. */
function egressLines(egress: NonNullable<ReturnType<typeof egressReport>>): string[] {
  return [
    `Refused by the sandbox: ${egress.refused} connection${egress.refused === 1 ? '' : 's'}`,
    ...egress.hosts.map((h) => `  ${h.host} (${h.sessions} session${h.sessions === 1 ? '' : 's'})`),
  ];
}

/** The last run's plan against what its night did. */
function planOutcomeLines({ madeAt, planned, outcome }: PlanOutcome): string[] {
  const ratio = planned.costUsd > 0 ? ` (${(outcome.costUsd / planned.costUsd).toFixed(2)}x)` : '';
  return [
    `Plan of the run started ${clockTime(madeAt)} against its night:`,
    `  items: ${planned.items} planned${planned.left > 0 ? ` (${planned.left} left for the morning)` : ''}; ${outcome.plannedRan} of them ran, ${outcome.plannedSucceeded} succeeded; ${outcome.items - outcome.plannedRan} ran unplanned`,
    `  cost: ${dollars(planned.costUsd)} planned, ${dollars(outcome.costUsd)} spent${ratio}`,
    `  end: ${planned.endsAt === undefined ? 'none planned' : `planned about ${clockTime(planned.endsAt)}`}, ${outcome.endedAt === undefined ? 'no session ended' : `the last session ended ${clockTime(outcome.endedAt)}`}`,
    `  order: ${outcome.inPlanOrder ? "the planned items started in the plan's order" : "the planned items did not start in the plan's order (a window, a retry or new items changed it)"}`,
  ];
}

/** What the landings came to, and what a landed change cost. */
function landingLines(landing: LandingReport): string[] {
  const spent = addUsd(landing.landedCostUsd, landing.otherCostUsd);
  const cost = (usd: number) => formatCost(usd, landing.costEstimated);
  return [
    `Landing: ${landing.landed} landed, ${landing.waiting} waiting to land, ${landing.notLanded.length} not landed`,
    landing.costPerLandedUsd === undefined
      ? `  nothing landed yet: ${cost(spent)} spent`
      : `  cost per landed item: ${cost(landing.costPerLandedUsd)} (${cost(spent)} spent in all, ${cost(landing.otherCostUsd)} of it on items not landed)`,
    ...landing.notLanded.map(
      (n) => `  not landed: ${n.itemId} ${notLandedWords(n.status)}: ${n.error}`,
    ),
  ];
}

/** The sessions run on a fallback CLI, and what they cost (in the CLI table's sums too). */
function fallbackLines(fallbacks: FallbackReport): string[] {
  return [
    `Fallbacks: ${fallbacks.sessions} session${fallbacks.sessions === 1 ? '' : 's'} on another CLI while its own was held, ${formatCost(fallbacks.costUsd, fallbacks.costEstimated)}`,
    ...fallbacks.pairs.map(
      (p) =>
        `  ${p.cli} for ${p.for}: ${p.sessions} session${p.sessions === 1 ? '' : 's'}, ${formatCost(p.costUsd, fallbacks.costEstimated)}`,
    ),
  ];
}

/** Each pull request of the span: its link, where it stands, its checks. */
function pullRequestLines(pulls: readonly PullRequestReport[]): string[] {
  return [
    `Pull requests: ${pulls.length}`,
    ...pulls.map(
      (p) =>
        `  ${pullRequestName(p, 'number')} ${p.itemId} ${p.state.replaceAll('_', ' ')}${p.checks === undefined ? '' : ` (${p.checks})`}${p.redRounds > 0 ? `, red ${p.redRounds} time${p.redRounds === 1 ? '' : 's'}` : ''}: ${p.url}`,
    ),
  ];
}

/** The reviews: their verdicts, the items left unreviewed and why, and what reviewing cost. */
function reviewLines(report: ReviewReport): string[] {
  const share =
    report.costShare === undefined
      ? ''
      : `, ${Math.round(report.costShare * 100)}% of the authors'`;
  return [
    `Reviews: ${plural(report.reviews, 'review')}: ${report.approved} approved, ${plural(report.changesRequested, 'change request')}, ${report.failed} failed (${plural(report.unreviewed.length, 'item')} unreviewed); reviewers cost ${formatCost(report.reviewersCostUsd, false)}${share}`,
    ...report.unreviewed.map((u) => `  ${u.itemId} unreviewed: ${u.reason}`),
  ];
}

/** Which agents win as candidates, how often the person kept the judge's pick, and at what cost. */
function candidateReportLines(report: CandidatesReport): string[] {
  const { judge, costPerAccepted } = report;
  const cost = (usd: number | undefined) =>
    usd === undefined ? 'none accepted' : formatCost(usd, false);
  return [
    `Candidates: ${plural(report.items, 'item')} tried; the judge's ${plural(judge.picks, 'pick')}: you kept ${judge.kept}, overturned ${judge.overturned}; per accepted change ${cost(costPerAccepted.withCandidates)} with candidates, ${cost(costPerAccepted.without)} without`,
    ...renderTable(
      ['AGENT', 'CANDIDATES', 'PASSED', 'PICKED', 'ACCEPTED'],
      report.byAgent.map((a) => [
        a.agent,
        String(a.candidates),
        String(a.passed),
        String(a.picked),
        String(a.accepted),
      ]),
    ).split('\n'),
  ];
}

/** The imported items worked on: where each came from, and whether its issue was told. */
function importedLines(imported: readonly ImportedItem[]): string[] {
  return [
    `Imported: ${imported.length} item${imported.length === 1 ? '' : 's'}`,
    ...imported.map(
      (i) =>
        `  ${i.itemId} ${i.status}: ${i.source}${i.url === undefined ? '' : ` ${i.url}`}${i.writtenBackAt === undefined ? '' : ', written back'}`,
    ),
  ];
}

/** The notifications: how many went, wait or were given up, and the latest few with where. */
function notificationLines(report: NotificationsReport): string[] {
  const byEvent = Object.entries(report.byEvent)
    .map(([event, n]) => `${event} ${n}`)
    .join(', ');
  return [
    `Notifications: ${report.sent} sent, ${report.waiting} waiting, ${report.givenUp} given up (${byEvent})`,
    ...report.latest.slice(-5).map((m) => {
      const targets = m.targets
        .map((t) =>
          t.sentAt !== undefined
            ? `${t.target} sent`
            : `${t.target} not sent: ${t.error ?? 'not tried yet'}${t.retryAt === undefined ? '' : `, again at ${t.retryAt}`}`,
        )
        .join('; ');
      return `  ${m.at} ${m.event}: ${m.title} → ${targets}`;
    }),
  ];
}

/** The items worked on in the span, by where each stands now (an item, not a session, each). */
function itemCounts(items: readonly Item[], worked: ReadonlySet<string>): Record<string, number> {
  const counts: Record<string, number> = {};
  const now = Date.now();
  for (const item of items.filter((i) => worked.has(i.id))) {
    const key =
      statusIs(item.status, 'complete') && isAccepted(item)
        ? 'accepted'
        : waitsOnPerson(item, now)
          ? 'waiting on you'
          : statusIs(item.status, 'complete') && item.landedCommit !== undefined
            ? 'landed'
            : item.status;
    counts[key] = (counts[key] ?? 0) + 1;
  }
  return counts;
}

function itemsLine(items: readonly Item[], worked: ReadonlySet<string>): string {
  const counts = Object.entries(itemCounts(items, worked)).sort(([, a], [, b]) => b - a);
  const total = counts.reduce((sum, [, n]) => sum + n, 0);
  return `Items: ${total} worked on${total === 0 ? '' : `: ${counts.map(([k, n]) => `${n} ${k.replaceAll('_', ' ')}`).join(', ')}`}`;
}

/** The person's decisions: their pace, the wait for them, and how the reviewer agreed. */
function decisionLines(report: DecisionReport): string[] {
  const days = report.byDay.length;
  const { reviewed, reviewTime } = report;
  const minutes = (ms: number) => formatDuration(Math.round(ms / 1000));
  return [
    `Decisions: ${report.decisions} (${report.accepted} accepted, ${report.rejected} rejected, ${report.deferred} deferred), ${(report.decisions / Math.max(1, days)).toFixed(1)} a day over ${plural(days, 'day')}${report.medianWaitMs === undefined ? '' : `; median wait from done to decision ${formatDuration(Math.round(report.medianWaitMs / 1000))}`}`,
    ...(reviewed === undefined
      ? []
      : [
          `  the reviewer agreed with you on ${reviewed.agreed} of ${reviewed.decisions}; of its ${plural(reviewed.approvals, 'approval')}, you accepted ${reviewed.approvalsAccepted}${reviewed.approvals === 0 ? '' : ` (precision ${(reviewed.approvalsAccepted / reviewed.approvals).toFixed(2)})`}`,
        ]),
    ...(reviewTime === undefined
      ? []
      : [
          `  your time: ${minutes(reviewTime.medianMs)} a decision (the median of ${reviewTime.timed} timed on an item's page), ${minutes(reviewTime.totalMs)} in all`,
        ]),
  ];
}

/** The sessions of each group (a day, an item, a CLI) as a table's rows. */
function table(title: string, groups: ReportGroup[]): string[] {
  const rows = groups.map((g) => [
    g.key,
    String(g.sessions),
    String(g.succeeded),
    String(g.asked),
    String(g.retried),
    String(g.failed),
    String(g.interrupted),
    formatCost(g.costUsd, g.costEstimated),
    openingCell(g.opening),
    formatDuration(g.seconds),
  ]);
  return renderTable(
    [
      title,
      'SESSIONS',
      'SUCCEEDED',
      'ASKED',
      'RETRIED',
      'FAILED',
      'INTERRUPTED',
      'COST',
      'BEFORE WORK',
      'TIME',
    ],
    rows,
  ).split('\n');
}

/** The person's decisions night over night, a row a night. */
function nightLines(nights: readonly DecisionNight[]): string[] {
  if (nights.length === 0) return [];
  const ruled = nights.some((n) => n.rulesApplied > 0 || n.repeatedRejections > 0);
  const rows = nights.map((n) => [
    n.day,
    `${n.firstPassAccepted} of ${n.firstDecided}`,
    n.costed === 0 ? '-' : formatCost(n.acceptedCostUsd / n.costed, false),
    n.medianReviewMs === undefined ? '-' : formatDuration(Math.round(n.medianReviewMs / 1000)),
    ...(ruled ? [`${n.rulesBroken} of ${n.rulesApplied}`, String(n.repeatedRejections)] : []),
  ]);
  return renderTable(
    [
      'NIGHT',
      'ACCEPTED AT FIRST PASS',
      'PER ACCEPTED CHANGE',
      'YOUR TIME A DECISION',
      ...(ruled ? ['RULES BROKEN', 'REPEATED REJECTIONS'] : []),
    ],
    rows,
  )
    .split('\n')
    .map((line) => `  ${line}`);
}

/** The rules a person accepted: how often each was applied and broken, and the rejections it is about. */
function ruleLines(rules: readonly RuleRow[]): string[] {
  if (rules.length === 0) return [];
  const rows = rules.map((r) => [
    `${r.id}${r.status === 'retired' ? ' (retired)' : ''}`,
    String(r.applied),
    String(r.broken),
    `${r.rejectionsBefore} / ${r.rejectionsAfter}`,
    r.text,
  ]);
  return [
    'Rules:',
    ...renderTable(['RULE', 'APPLIED', 'BROKEN', 'REJECTIONS BEFORE / AFTER', 'TEXT'], rows)
      .split('\n')
      .map((line) => `  ${line}`),
  ];
}

/** `ralph report`: outcomes, cost and time per day and per item. */
export async function reportCommand(
  root: string,
  options: { since?: string; json?: boolean },
  output: Output,
  env: Readonly<Record<string, string | undefined>>,
): Promise<number> {
  const workspace = await openWorkspace(root);
  const since = options.since === undefined ? undefined : parseSince(options.since, Date.now());
  const entries = newestFirst((await sessionIndex(workspace, env)).entries, since).reverse();
  const { byDay, byItem, byCli, fallbacks, opening } = reportOf(entries);
  // The queue tells what landed; a queue out of reach (a fleet's database) leaves that out.
  const items = await withQueueReader(workspace, env, (queue) => queue.list()).catch(() => []);
  const landing = landingReport(entries, items, workspace.config.land.enabled);
  const pullRequests = pullRequestsReport(entries, items);
  const reviews = reviewReport(entries, items);
  const candidates = candidatesReport(items);
  const egress = egressReport(entries);
  const worked = new Set(entries.map((e) => e.itemId));
  const imported = importedReport(items, worked);
  const notifications = await outboxReport(new Outbox(workspace.paths.outbox), since);
  const ledger = await readLedger(workspace);
  const decisions = decisionReport(ledger, since);
  const ruled = await rulesReport(workspace, { ledger, items }, since);
  const nights = decisionNights(ledger, items, since, ruled.nights);
  const rules = ruled.rules;
  const plan = (await lastPlanOutcome(workspace.paths.plan, entries))?.outcome;
  if (options.json) {
    output.out(
      JSON.stringify(
        {
          since: since === undefined ? undefined : new Date(since).toISOString(),
          byDay,
          byItem,
          byCli,
          fallbacks,
          opening,
          landing,
          pullRequests,
          reviews,
          candidates,
          egress,
          imported,
          notifications,
          items: itemCounts(items, worked),
          decisions,
          nights,
          rules,
          plan,
        },
        null,
        2,
      ),
    );
    return ExitCode.ok;
  }
  if (entries.length === 0) {
    output.out('No sessions to report.');
    return ExitCode.ok;
  }

  const failures = byItem.flatMap((g) => g.failures);
  output.out(
    [
      itemsLine(items, worked),
      ...(decisions === undefined ? [] : decisionLines(decisions)),
      ...nightLines(nights),
      ...ruleLines(rules),
      ...(plan === undefined ? [] : planOutcomeLines(plan)),
      '',
      'Sessions:',
      ...table('DAY', byDay),
      ...(opening === undefined ? [] : [openingLine(opening)]),
      '',
      ...table('ITEM', byItem),
      // Only a workspace that ran more than one CLI needs the split.
      ...(byCli.length > 1 ? ['', ...table('CLI', byCli)] : []),
      ...(fallbacks === undefined ? [] : ['', ...fallbackLines(fallbacks)]),
      ...(landing === undefined ? [] : ['', ...landingLines(landing)]),
      ...(pullRequests === undefined ? [] : ['', ...pullRequestLines(pullRequests)]),
      ...(reviews === undefined ? [] : ['', ...reviewLines(reviews)]),
      ...(candidates === undefined ? [] : ['', ...candidateReportLines(candidates)]),
      ...(imported === undefined ? [] : ['', ...importedLines(imported)]),
      ...(notifications === undefined ? [] : ['', ...notificationLines(notifications)]),
      ...(egress === undefined ? [] : ['', ...egressLines(egress)]),
      ...(failures.length === 0
        ? []
        : [
            '',
            'Failures:',
            ...failures.map(
              (f) =>
                `  ${f.itemId} ${f.sessionId}: ${f.outcome}${f.message ? ` — ${f.message}` : ''}`,
            ),
          ]),
    ].join('\n'),
  );
  return ExitCode.ok;
}

/** Where an item that did not land stands, in words. */
function notLandedWords(status: string): string {
  return NOT_LANDED_WORDS[status as ItemStatus] ?? status;
}

const NOT_LANDED_WORDS: Partial<Record<ItemStatus, string>> = {
  failed: 'failed',
  pending: 'back with its agent',
  reviewing: 'unreviewed',
  needs_input: 'waits for you',
};
