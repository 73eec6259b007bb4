import { addUsd, formatCost } from '../lib/usd.js';
import { compareText } from '../lib/text.js';
import { allTokens } from './tokens.js';
import type { IndexEntry } from './index-entry.js';
import type { SessionRecord } from './record.js';
import { holderOf, statusIs, type ItemStatus } from '../queue/item-status.js';

/** Sums of a group of sessions. */
export interface ReportGroup {
  key: string;
  sessions: number;
  /** Sessions that ended in a success (not those that ended asking a person). */
  succeeded: number;
  /** Sessions that ended asking a person something: their item waits for an answer. */
  asked: number;
  /** Sessions that failed whose item ended in a success later: retried, not failures. */
  retried: number;
  failed: number;
  interrupted: number;
  costUsd: number;
  /** Some of the cost is an estimate from tokens. */
  costEstimated: boolean;
  seconds: number;
  failures: { sessionId: string; itemId: string; outcome: string; message?: string }[];
  /** What its sessions spent before their first tool call (absent when none counts it). */
  opening?: OpeningSums;
}

/**
 * What sessions spent before their first tool call, beside what the same sessions spent in all:
 * the tax of reading the system prompt, the tools and the task (CLIs that give each message's
 * usage: claude). The cost is each opening's share of its session's cost, an estimate.
 */
export interface OpeningSums {
  sessions: number;
  tokens: number;
  totalTokens: number;
  costUsd: number;
  totalCostUsd: number;
}

/** `sums` with the opening of `e` added (a session that does not count it adds nothing). */
function addOpening(sums: OpeningSums | undefined, e: IndexEntry): OpeningSums | undefined {
  if (e.opening === undefined) return sums;
  const next = sums ?? { sessions: 0, tokens: 0, totalTokens: 0, costUsd: 0, totalCostUsd: 0 };
  next.sessions++;
  next.tokens += e.opening.tokens;
  next.totalTokens += e.tokens === undefined ? e.opening.tokens : allTokens(e.tokens);
  if (e.opening.costUsd !== undefined) {
    next.costUsd = addUsd(next.costUsd, e.opening.costUsd);
    next.totalCostUsd = addUsd(next.totalCostUsd, e.costUsd);
  }
  return next;
}

/** What the sessions of `entries` spent before their first tool call; none counts it: undefined. */
export function openingOf(entries: readonly IndexEntry[]): OpeningSums | undefined {
  return entries.reduce<OpeningSums | undefined>(addOpening, undefined);
}

const SUCCESS = new Set(['success']);
const INTERRUPTED = new Set(['interrupted', 'stopped', 'rate_limited', 'resume_failed']);

/** The entries (oldest first) whose item succeeded in a later session. */
function laterSucceeded(entries: readonly IndexEntry[]): Set<IndexEntry> {
  const succeeded = new Set<string>();
  const found = new Set<IndexEntry>();
  for (let i = entries.length - 1; i >= 0; i--) {
    const e = entries[i] as IndexEntry;
    if (succeeded.has(e.itemId)) found.add(e);
    if (SUCCESS.has(e.outcome)) succeeded.add(e.itemId);
  }
  return found;
}

function group(entries: readonly IndexEntry[], keyOf: (e: IndexEntry) => string): ReportGroup[] {
  const groups = new Map<string, ReportGroup>();
  const retried = laterSucceeded(entries);
  for (const e of entries) {
    const key = keyOf(e);
    let g = groups.get(key);
    if (g === undefined) {
      g = {
        key,
        sessions: 0,
        succeeded: 0,
        asked: 0,
        retried: 0,
        failed: 0,
        interrupted: 0,
        costUsd: 0,
        costEstimated: false,
        seconds: 0,
        failures: [],
      };
      groups.set(key, g);
    }
    g.sessions++;
    g.opening = addOpening(g.opening, e);
    g.costUsd = addUsd(g.costUsd, e.costUsd);
    if (e.costEstimated === true) g.costEstimated = true;
    g.seconds += (e.durationMs ?? 0) / 1000;
    if (SUCCESS.has(e.outcome) && e.asked === true) g.asked++;
    else if (SUCCESS.has(e.outcome)) g.succeeded++;
    else if (INTERRUPTED.has(e.outcome)) g.interrupted++;
    else if (retried.has(e)) g.retried++;
    else {
      g.failed++;
      g.failures.push({
        sessionId: e.sessionId,
        itemId: e.itemId,
        outcome: e.outcome,
        message: e.message,
      });
    }
  }
  return [...groups.values()].sort((a, b) => compareText(a.key, b.key));
}

/** Sessions run on a fallback CLI, by the CLI they ran on and the one they stood in for. */
export interface FallbackReport {
  sessions: number;
  costUsd: number;
  costEstimated: boolean;
  pairs: { cli: string; for: string; sessions: number; costUsd: number }[];
}

/** The sessions of `entries` that ran on a fallback CLI; none: undefined. */
export function fallbackReport(entries: readonly IndexEntry[]): FallbackReport | undefined {
  const pairs = new Map<string, FallbackReport['pairs'][number]>();
  const report: FallbackReport = { sessions: 0, costUsd: 0, costEstimated: false, pairs: [] };
  for (const e of entries) {
    if (e.fallbackFrom === undefined) continue;
    report.sessions++;
    report.costUsd = addUsd(report.costUsd, e.costUsd);
    if (e.costEstimated === true) report.costEstimated = true;
    const key = `${e.cli} ${e.fallbackFrom}`;
    const pair = pairs.get(key) ?? { cli: e.cli, for: e.fallbackFrom, sessions: 0, costUsd: 0 };
    pair.sessions++;
    pair.costUsd = addUsd(pair.costUsd, e.costUsd);
    pairs.set(key, pair);
  }
  if (report.sessions === 0) return undefined;
  return { ...report, pairs: [...pairs.values()] };
}

/**
 * Outcomes, cost and time per day, per item and per agent CLI, oldest first (`--json`), and what
 * all the sessions spent before their first tool call.
 */
export function reportOf(entries: readonly IndexEntry[]): {
  byDay: ReportGroup[];
  byItem: ReportGroup[];
  byCli: ReportGroup[];
  fallbacks?: FallbackReport;
  opening?: OpeningSums;
} {
  return {
    byDay: group(entries, (e) => e.startedAt.slice(0, 10)),
    byItem: group(entries, (e) => e.itemId),
    byCli: group(entries, (e) => e.cli),
    fallbacks: fallbackReport(entries),
    opening: openingOf(entries),
  };
}

/** What `landingReport` reads of a queue item. */
export interface LandingOfItem {
  id: string;
  status: ItemStatus;
  branch?: string;
  land?: { enabled?: boolean };
  landedCommit?: string;
  landFailure?: string;
  lastError?: string;
  unreviewed?: string;
  question?: string;
}

/** What the landings of a span came to, and what an accepted change cost. */
export interface LandingReport {
  /** Items worked on in the span whose work is on a target. */
  landed: number;
  /** Items waiting to land now. */
  waiting: number;
  /**
   * Items worked on in the span, on a branch of their own and not held back from landing
   * (`--no-land`), that neither landed nor wait to land: a landing refused them, or they never
   * got there (failed, unreviewed, waiting for a person, back in line), each with why.
   */
  notLanded: { itemId: string; status: ItemStatus; error: string }[];
  /** Spend on the landed items: every attempt that led to them. */
  landedCostUsd: number;
  /** Spend on items that have not landed (failed, waiting, never finished). */
  otherCostUsd: number;
  /** All the span's spend over the items landed: what a landed change cost; none landed, none. */
  costPerLandedUsd?: number;
  costEstimated: boolean;
}

/**
 * The landings of the sessions in `entries`, given the queue's items now; undefined when
 * nothing in it had to do with landing.
 */
export function landingReport(
  entries: readonly IndexEntry[],
  items: readonly LandingOfItem[],
  /** Whether an item that says nothing of landing lands (the workspace's `land.enabled`). */
  landsByDefault: boolean,
): LandingReport | undefined {
  const byId = new Map(items.map((item) => [item.id, item]));
  const worked = new Set(entries.map((e) => e.itemId));
  const touched = items.filter(
    (item) =>
      holderOf(item.status) === 'lander' ||
      item.landedCommit !== undefined ||
      item.landFailure !== undefined,
  );
  if (touched.length === 0) return undefined;
  let landedCostUsd = 0;
  let otherCostUsd = 0;
  let costEstimated = false;
  for (const e of entries) {
    if (byId.get(e.itemId)?.landedCommit !== undefined)
      landedCostUsd = addUsd(landedCostUsd, e.costUsd);
    else otherCostUsd = addUsd(otherCostUsd, e.costUsd);
    if (e.costEstimated === true) costEstimated = true;
  }
  const landed = items.filter((i) => i.landedCommit !== undefined && worked.has(i.id)).length;
  const notLanded = items.filter(
    (i) =>
      (worked.has(i.id) || i.landFailure !== undefined) &&
      i.branch !== undefined &&
      (i.land?.enabled ?? landsByDefault) &&
      i.landedCommit === undefined &&
      holderOf(i.status) !== 'lander' &&
      !statusIs(i.status, 'withdrawn'),
  );
  return {
    landed,
    waiting: touched.filter((i) => holderOf(i.status) === 'lander').length,
    notLanded: notLanded.map((i) => ({
      itemId: i.id,
      status: i.status,
      error:
        i.unreviewed ??
        (statusIs(i.status, 'asksPerson') ? i.question : undefined) ??
        i.lastError ??
        i.status,
    })),
    landedCostUsd,
    otherCostUsd,
    costPerLandedUsd:
      landed === 0
        ? undefined
        : Math.round((addUsd(landedCostUsd, otherCostUsd) / landed) * 1e9) / 1e9,
    costEstimated,
  };
}

/** What `pullRequestsReport` reads of a queue item. */
export interface PullRequestOfItem {
  id: string;
  status: ItemStatus;
  lastOutcome?: string;
  checks?: string;
  checkRounds?: number;
  pullRequest?: { number: number; url: string; forge?: 'gitlab' };
}

/** An item's pull request as the report tells it. */
export interface PullRequestReport {
  itemId: string;
  number: number;
  url: string;
  /** `merged`, `ready_to_merge`, `awaiting_checks`, or why it failed (`checks_failed`…). */
  state: string;
  checks?: string;
  /** Times its checks failed (or a review asked for changes). */
  redRounds: number;
  /** GitLab's merge request; GitHub's pull request when unsaid. */
  forge?: 'gitlab';
}

/** The pull requests of the items worked on in `entries`, by number; none: undefined. */
export function pullRequestsReport(
  entries: readonly IndexEntry[],
  items: readonly PullRequestOfItem[],
): PullRequestReport[] | undefined {
  const worked = new Set(entries.map((e) => e.itemId));
  const pulls = items.flatMap((item) =>
    item.pullRequest === undefined || !worked.has(item.id)
      ? []
      : [
          {
            itemId: item.id,
            number: item.pullRequest.number,
            url: item.pullRequest.url,
            // Finished: how (merged, ready_to_merge, checks_failed…); else its status.
            state:
              statusIs(item.status, 'finished') && !statusIs(item.status, 'withdrawn')
                ? (item.lastOutcome ?? item.status)
                : item.status,
            ...(item.checks === undefined ? {} : { checks: item.checks }),
            redRounds: item.checkRounds ?? 0,
            ...(item.pullRequest.forge === undefined ? {} : { forge: item.pullRequest.forge }),
          },
        ],
  );
  return pulls.length === 0 ? undefined : pulls.sort((a, b) => a.number - b.number);
}

/** What `reviewReport` reads of a queue item. */
export interface ReviewOfItem {
  id: string;
  status: ItemStatus;
  verdict?: { overall: string; session: string };
  reviewRounds?: number;
  unreviewed?: string;
}

/** What one reviewer's session came to. */
export type ReviewEnd = 'approved' | 'changes_asked' | 'failed';

/**
 * What each reviewer's session of an item came to, from what followed it: its author working
 * again (it asked for changes), another review (it gave no valid verdict), or nothing (the
 * item's last verdict is its own, else it gave none). `entries` are the item's sessions in
 * order; the one definition the report, the inbox's cause chain and the dashboard count by.
 */
export function reviewEnds(
  item: Pick<ReviewOfItem, 'verdict'>,
  entries: readonly Pick<IndexEntry, 'sessionId' | 'role'>[],
): Map<string, ReviewEnd> {
  const ends = new Map<string, ReviewEnd>();
  entries.forEach((entry, i) => {
    if (entry.role !== 'reviewer') return;
    const next = entries[i + 1];
    ends.set(
      entry.sessionId,
      next !== undefined
        ? next.role === 'reviewer'
          ? 'failed'
          : 'changes_asked'
        : item.verdict?.session !== entry.sessionId
          ? 'failed'
          : item.verdict.overall === 'approve'
            ? 'approved'
            : 'changes_asked',
    );
  });
  return ends;
}

/**
 * The night's reviews: their verdicts, and what the reviewers cost beside the authors. Each
 * review is approved, asked for changes or failed: the three add up to `reviews`.
 */
export interface ReviewReport {
  /** Reviewers' sessions. */
  reviews: number;
  /** Reviews that approved an item's work. */
  approved: number;
  /** Reviews that sent an item back to its author. */
  changesRequested: number;
  /** Reviews that gave no valid verdict (an error, a timeout, an answer that was none). */
  failed: number;
  /** Items waiting with no valid verdict (their reviewer failed), each with why. */
  unreviewed: { itemId: string; reason: string }[];
  reviewersCostUsd: number;
  authorsCostUsd: number;
  /** The reviewers' cost over the authors' (none: the authors cost nothing). */
  costShare?: number;
}

/** The reviews of the sessions in `entries`, given the queue's items now; none: undefined. */
export function reviewReport(
  entries: readonly IndexEntry[],
  items: readonly ReviewOfItem[],
): ReviewReport | undefined {
  const reviewers = entries.filter((e) => e.role === 'reviewer');
  if (reviewers.length === 0) return undefined;
  const reviewed = new Set(reviewers.map((e) => e.itemId));
  const mine = items.filter((item) => reviewed.has(item.id));
  const cost = (of: readonly IndexEntry[]) => of.reduce((sum, e) => addUsd(sum, e.costUsd), 0);
  const reviewersCostUsd = cost(reviewers);
  const authorsCostUsd = cost(entries.filter((e) => e.role !== 'reviewer'));
  const counts: Record<ReviewEnd, number> = { approved: 0, changes_asked: 0, failed: 0 };
  for (const item of mine)
    for (const end of reviewEnds(
      item,
      entries.filter((e) => e.itemId === item.id),
    ).values())
      counts[end]++;
  // A review of an item no longer in the queue gave a verdict nobody can read now: none.
  counts.failed += reviewers.filter((e) => !mine.some((item) => item.id === e.itemId)).length;
  return {
    reviews: reviewers.length,
    approved: counts.approved,
    changesRequested: counts.changes_asked,
    failed: counts.failed,
    unreviewed: mine
      .filter((item) => holderOf(item.status) === 'reviewer' && item.unreviewed !== undefined)
      .map((item) => ({ itemId: item.id, reason: item.unreviewed ?? '' })),
    reviewersCostUsd,
    authorsCostUsd,
    costShare:
      authorsCostUsd === 0
        ? undefined
        : Math.round((reviewersCostUsd / authorsCostUsd) * 1000) / 1000,
  };
}

/** What the sandbox refused in a span: each `host:port`, in how many sessions. */
export interface EgressReport {
  /** Connections refused in all. */
  refused: number;
  hosts: { host: string; sessions: number }[];
}

/** The sandbox's refusals of the sessions in `entries`; none: undefined. */
export function egressReport(entries: readonly IndexEntry[]): EgressReport | undefined {
  const sessionsByHost = new Map<string, number>();
  let refused = 0;
  for (const e of entries) {
    refused += e.egressBlocked ?? 0;
    for (const host of e.blockedHosts ?? [])
      sessionsByHost.set(host, (sessionsByHost.get(host) ?? 0) + 1);
  }
  if (refused === 0) return undefined;
  const hosts = [...sessionsByHost]
    .map(([host, sessions]) => ({ host, sessions }))
    .sort((a, b) => b.sessions - a.sessions || compareText(a.host, b.host));
  return { refused, hosts };
}

/** A session's sandbox for people: where it ran, and each connection its proxy refused. */
export function sandboxLines(record: SessionRecord): string[] {
  if (record.sandbox === undefined) return [];
  const blocked = record.egressBlocked ?? [];
  const more = (record.egressBlockedCount ?? blocked.length) - blocked.length;
  return [
    `Sandbox:  ${record.sandbox.kind}, network ${record.sandbox.network}${record.sandbox.cliOwn === 'off' ? ` (${record.cli ?? 'the CLI'}'s own sandbox off: ralph's holds it)` : ''}${blocked.length === 0 ? ', nothing refused' : ''}`,
    ...blocked.map((b) => `Blocked:  ${b.host}:${b.port} at ${b.at} (by the ${b.by})`),
    ...(more > 0 ? [`Blocked:  … and ${more} more (state/iteration.log has each)`] : []),
  ];
}

/** A session run on a fallback CLI, for people: for which CLI, why, and what it was handed. */
export function fallbackLines(record: SessionRecord): string[] {
  if (record.fallback === undefined) return [];
  const handed =
    record.handoverChars === undefined
      ? 'nothing handed over'
      : `handed over ${record.handoverChars} characters of what the session before it did`;
  return [
    `Fallback: ${record.cli} for ${record.fallback.cli} (${record.fallback.reason}); ${handed}`,
  ];
}

/** The night as a person reads it in the morning: one run's span, outcomes, spend and failures. */
export interface NightSummary {
  /** When the run started; undefined before the first run. */
  startedAt?: string;
  /** When its last session ended. */
  lastEndedAt?: string;
  sessions: number;
  /**
   * Items, not sessions: those worked on this night that are `done` now, and those `failed` now
   * (as the board's columns and status count them); and the failed sessions of items that
   * succeeded later.
   */
  done: number;
  failed: number;
  retried: number;
  costUsd: number;
  costEstimated: boolean;
  maxCostUsd?: number;
  budgetLeftUsd?: number;
  /** The sessions that failed and were not retried into a success, newest first. */
  failures: ReportGroup['failures'];
}

/** The night of the run that started at `run.startedAt`: its sessions since then. */
export function nightOf(
  entries: readonly IndexEntry[],
  run: { startedAt: string; costUsd: number; maxCostUsd?: number } | undefined,
  /** The queue's items now: where each item worked on stands. */
  items: readonly { id: string; status: ItemStatus }[],
): NightSummary {
  if (run === undefined)
    return {
      sessions: 0,
      done: 0,
      failed: 0,
      retried: 0,
      costUsd: 0,
      costEstimated: false,
      failures: [],
    };
  const start = Date.parse(run.startedAt);
  const night = entries.filter((e) => Date.parse(e.startedAt) >= start);
  const [all] = group(night, () => 'night');
  const worked = new Set(night.map((e) => e.itemId));
  const now = items.filter((item) => worked.has(item.id));
  const ends = night
    .map((e) => e.endedAt)
    .filter((t) => t !== undefined)
    .sort();
  return {
    startedAt: run.startedAt,
    lastEndedAt: ends.at(-1),
    sessions: all?.sessions ?? 0,
    done: now.filter((item) => statusIs(item.status, 'complete')).length,
    failed: now.filter((item) => statusIs(item.status, 'failure')).length,
    retried: all?.retried ?? 0,
    costUsd: run.costUsd,
    costEstimated: all?.costEstimated ?? false,
    maxCostUsd: run.maxCostUsd,
    budgetLeftUsd:
      run.maxCostUsd === undefined ? undefined : Math.max(0, addUsd(run.maxCostUsd, -run.costUsd)),
    failures: [...(all?.failures ?? [])].reverse(),
  };
}

const percent = (part: number, whole: number) =>
  whole === 0 ? '' : ` (${Math.round((part / whole) * 100)}%)`;

/** An opening's cost and its share of its sessions' cost, for a table's cell. */
export function openingCell(opening: OpeningSums | undefined): string {
  if (opening === undefined) return '-';
  return `${formatCost(opening.costUsd, true)}${percent(opening.costUsd, opening.totalCostUsd)}`;
}

/** What sessions spent before their first tool call, beside their total, for people. */
export function openingLine(opening: OpeningSums): string {
  const count = (n: number) => n.toLocaleString('en-US');
  return `Before the first tool call: ${count(opening.tokens)} of ${count(opening.totalTokens)} tokens${percent(opening.tokens, opening.totalTokens)}, ${formatCost(opening.costUsd, true)} of ${formatCost(opening.totalCostUsd, false)}${percent(opening.costUsd, opening.totalCostUsd)}, over ${opening.sessions} session${opening.sessions === 1 ? '' : 's'} that count it (claude's: other CLIs report no request's usage)`;
}

/** What one session spent before its first tool call, for `ralph show` (none counted: none). */
export function sessionOpeningLines(record: SessionRecord): string[] {
  const { opening } = record;
  if (opening === undefined) return [];
  const tokens = allTokens(opening.tokens).toLocaleString('en-US');
  const cost = opening.costUsd === undefined ? '' : `, ${formatCost(opening.costUsd, true)}`;
  return [
    `Before work: ${tokens} tokens${cost} ${opening.toolCalled ? 'before its first tool call' : 'in all: it called no tool'}`,
  ];
}

/** A session's cost for people, saying when it is an estimate. */
export function costLine(record: SessionRecord): string {
  if (record.result !== undefined && record.result.costUsd === undefined)
    return `unknown: ${record.cli} reported none (a price in "prices" of ralph.config.json estimates it)`;
  const estimated = record.result?.costEstimated === true;
  const usd = record.result?.costUsd ?? record.heartbeat.costUsd ?? 0;
  return `${formatCost(usd, estimated)}${estimated ? ' (estimated from its tokens)' : ''}`;
}
