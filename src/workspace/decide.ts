import { randomBytes } from 'node:crypto';
import type { IndexEntry } from '../archive/index-entry.js';
import type { Workspace } from '../config/workspace.js';
import { parseDuration } from '../lib/duration.js';
import { lowerMedian } from '../lib/lower-median.js';
import { InputError } from '../lib/errors.js';
import { appendPrivate } from '../lib/fs.js';
import type { Item, ItemDecision } from '../queue/item.js';
import type { DecisionKind } from '../queue/decision-kinds.js';
import { type LedgerLine, readLedger, standingLines } from '../queue/ledger.js';
import { applyEvent, type ItemEvent } from '../queue/lifecycle.js';
import { overReviewed } from '../queue/decisions.js';
import type { Queue } from '../queue/queue.js';
import { inboxRow } from './review-inbox.js';
import type { ItemStatus } from '../queue/item-status.js';

// A person's decisions, each written to the ledger (`state/decisions.jsonl`) before it takes
// effect on its item: the ledger line is the decision. A decision whose event a crash kept from
// its item is applied when the ledger is next read (`carryLedger`), and never twice: the item
// keeps the id of the decision it went through.

/** What a person decides on one item. */
export interface DecisionAsk {
  itemId: string;
  kind: DecisionKind;
  by: string;
  note?: string;
  /** Rejected: back in line (the default) or cancelled. */
  then?: 'retry' | 'cancel';
  /** Deferred: until when. */
  until?: number;
  /** Accepted: another of its candidates taken (its letter). */
  candidate?: string;
  /** How long the person had its page open before deciding, when that was measured. */
  reviewMs?: number;
}

function eventOf(line: LedgerLine): ItemEvent {
  const decision: ItemDecision = {
    id: line.id,
    kind: line.decision,
    by: line.by,
    at: line.at,
    note: line.note,
    then: line.then,
    until: line.until,
    candidate: line.candidate,
  };
  const now = Date.parse(line.at);
  // Accepted with another candidate than the one picked: that one is taken.
  if (line.decision === 'accepted' && line.candidate !== undefined)
    return { kind: 'candidate_taken', decision, now };
  if (line.decision === 'accepted' && line.over !== undefined)
    return { kind: 'accepted', decision, over: line.over, now };
  return { kind: line.decision, decision, now };
}

/**
 * Takes a person's decision: checked against the item as it is (a refusal writes nothing),
 * written to the ledger with the item's risk and verdict at the time, then applied to the item.
 */
export async function decide(
  workspace: Workspace,
  queue: Queue,
  ask: DecisionAsk,
  entries: readonly IndexEntry[],
  now: number,
): Promise<{ item: Item; line: LedgerLine }> {
  await carryLedger(workspace, queue);
  if (ask.kind === 'rejected' && ask.then !== 'cancel' && (ask.note ?? '').trim() === '')
    throw new InputError(
      'a rejection that puts the item back in line needs a note (--note): it is what its next attempt is told',
      'note',
    );
  if (ask.kind === 'deferred' && (ask.until === undefined || ask.until <= now))
    throw new InputError(
      'a deferral needs a time to come (such as 3d, 12h or 2026-12-01)',
      'until',
    );
  const item = (await queue.list()).find((i) => i.id === ask.itemId);
  if (item === undefined)
    throw new InputError(`no item ${JSON.stringify(ask.itemId)} in the queue`);
  const line = lineOf(workspace, item, ask, entries, now);
  const event = eventOf(line);
  const dry = applyEvent(item, event);
  if (dry.kind === 'refused')
    throw new InputError(`${ask.itemId} cannot be ${ask.kind}: ${dry.reason}`);
  await appendPrivate(workspace.paths.decisions, `${JSON.stringify(line)}\n`, { sync: true });
  const applied = await queue.apply(item.id, event);
  if (applied.kind === 'refused') {
    // The item changed between the check and the write: the line is voided, said once.
    await appendPrivate(
      workspace.paths.decisions,
      `${JSON.stringify({ ...line, void: applied.reason })}\n`,
      { sync: true },
    );
    throw new InputError(`${ask.itemId} cannot be ${ask.kind}: ${applied.reason}`);
  }
  return { item: applied.item, line };
}

/** The ledger line of a decision: who, when, and the item's risk and verdict at the time. */
function lineOf(
  workspace: Workspace,
  item: Item,
  ask: DecisionAsk,
  entries: readonly IndexEntry[],
  now: number,
): LedgerLine {
  const { parts } = inboxRow(item, entries, workspace.config.review.sensitive);
  const findings = unmet(item);
  return {
    id: `${new Date(now).toISOString().replace(/[-:.]/g, '').slice(0, 15)}-${randomBytes(3).toString('hex')}`,
    item: item.id,
    decision: ask.kind,
    ...(ask.note === undefined || ask.note.trim() === '' ? {} : { note: ask.note.trim() }),
    ...(ask.kind === 'rejected' ? { then: ask.then ?? 'retry' } : {}),
    ...(ask.until === undefined ? {} : { until: new Date(ask.until).toISOString() }),
    ...(ask.candidate === undefined ? {} : { candidate: ask.candidate.toUpperCase() }),
    ...(ask.kind === 'accepted' && ask.candidate === undefined && overReviewed(item)
      ? {
          over: {
            land: item.land?.enabled ?? workspace.config.land.enabled,
            pullRequest: workspace.config.forge !== undefined,
          },
        }
      : {}),
    by: ask.by,
    at: new Date(now).toISOString(),
    status: item.status,
    risk: { score: parts.reduce((sum, p) => sum + p.points, 0), parts },
    verdict: item.verdict?.overall ?? null,
    ...(findings.length === 0 ? {} : { findings }),
    ...(item.finishedAt === undefined ? {} : { doneAt: item.finishedAt }),
    ...(item.baseCommit === undefined || item.head === undefined
      ? {}
      : { change: { base: item.baseCommit, head: item.head } }),
    ...(ask.reviewMs === undefined ? {} : { reviewMs: Math.round(ask.reviewMs) }),
  };
}

/** What the item's reviewer found not met: its failed criteria, its blocking and major findings. */
function unmet(item: Item): string[] {
  const verdict = item.verdict;
  if (verdict === undefined) return [];
  const criteria = item.criteria ?? [];
  return [
    ...verdict.criteria
      .filter((c) => c.verdict === 'FAIL')
      .map((c) => `criterion ${c.id} (${criteria[c.id - 1] ?? ''}) fails: ${c.evidence}`),
    ...verdict.findings
      .filter((f) => f.severity !== 'minor')
      .map((f) => `${f.place}: ${f.finding}`),
  ];
}

/** What the person's decisions of a span came to: their pace, and how the reviewer agreed. */
export interface DecisionReport {
  decisions: number;
  accepted: number;
  rejected: number;
  deferred: number;
  /** Decisions by day (UTC), oldest first. */
  byDay: { day: string; decisions: number }[];
  /** The median wait from an item's work done to the person's decision on it. */
  medianWaitMs?: number;
  /** The person's time on the decisions whose page time was measured: each one's median, all. */
  reviewTime?: { timed: number; medianMs: number; totalMs: number };
  /**
   * Accepts and rejects of items a reviewer had given a verdict on: how often the verdict agreed
   * (approve and accept, changes and reject), and of its approvals, how many the person accepted
   * (its precision as a reviewer).
   */
  reviewed?: { decisions: number; agreed: number; approvals: number; approvalsAccepted: number };
}

/** The report of the ledger's decisions since `since` (voided ones left out); none: undefined. */
export function decisionReport(
  lines: readonly LedgerLine[],
  since: number | undefined,
): DecisionReport | undefined {
  const taken = standingLines(lines).filter(
    (l) => since === undefined || Date.parse(l.at) >= since,
  );
  if (taken.length === 0) return undefined;
  const count = (kind: DecisionKind) => taken.filter((l) => l.decision === kind).length;
  const days = new Map<string, number>();
  for (const line of taken)
    days.set(line.at.slice(0, 10), (days.get(line.at.slice(0, 10)) ?? 0) + 1);
  const waits = taken
    .filter((l) => l.doneAt !== undefined && l.decision !== 'deferred')
    .map((l) => Date.parse(l.at) - Date.parse(l.doneAt ?? ''))
    .filter((ms) => Number.isFinite(ms) && ms >= 0);
  const timed = taken.flatMap((l) => (l.reviewMs === undefined ? [] : [l.reviewMs]));
  const judged = taken.filter((l) => l.verdict !== null && l.decision !== 'deferred');
  const approvals = judged.filter((l) => l.verdict === 'approve');
  return {
    decisions: taken.length,
    accepted: count('accepted'),
    rejected: count('rejected'),
    deferred: count('deferred'),
    byDay: [...days.entries()]
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([day, decisions]) => ({ day, decisions })),
    medianWaitMs: lowerMedian(waits),
    reviewTime:
      timed.length === 0
        ? undefined
        : {
            timed: timed.length,
            medianMs: lowerMedian(timed) ?? 0,
            totalMs: timed.reduce((sum, ms) => sum + ms, 0),
          },
    reviewed:
      judged.length === 0
        ? undefined
        : {
            decisions: judged.length,
            agreed: judged.filter(
              (l) =>
                (l.verdict === 'approve' && l.decision === 'accepted') ||
                (l.verdict === 'request_changes' && l.decision === 'rejected'),
            ).length,
            approvals: approvals.length,
            approvalsAccepted: approvals.filter((l) => l.decision === 'accepted').length,
          },
  };
}

/**
 * Applies the ledger's decisions a crash kept from their items: for each item, its last
 * decision that is neither voided nor the one the item already went through. Each is applied
 * once (the item then holds its id); one the item's status no longer allows is voided.
 */
export async function carryLedger(workspace: Workspace, queue: Queue): Promise<string[]> {
  const lines = await readLedger(workspace);
  if (lines.length === 0) return [];
  const voided = new Set(lines.filter((l) => l.void !== undefined).map((l) => l.id));
  const last = new Map<string, LedgerLine>();
  for (const line of lines) if (line.void === undefined) last.set(line.item, line);
  const items = new Map((await queue.list()).map((item) => [item.id, item]));
  const carried: string[] = [];
  for (const line of last.values()) {
    if (voided.has(line.id)) continue;
    const item = items.get(line.item);
    if (item === undefined || item.decision?.id === line.id) continue;
    // The item went through a later decision (taken where the ledger was not written).
    if (item.decision !== undefined && item.decision.at > line.at) continue;
    const applied = await queue.apply(line.item, eventOf(line));
    if (applied.kind === 'applied') carried.push(line.id);
    else
      await appendPrivate(
        workspace.paths.decisions,
        `${JSON.stringify({ ...line, void: applied.reason })}\n`,
        { sync: true },
      );
  }
  return carried;
}

/** How far ahead a deferral may reach: further is a typo, not a plan. */
const MAX_DEFER_MS = 366 * 24 * 3600 * 1000;

/**
 * Reads when a deferral ends: a duration from now (`3d`, `12h`) or a time to come. `named` is
 * what the person typed it as (`--until` on the command line; a date box says nothing more).
 */
export function parseUntil(text: string, now: number, named = 'a deferral'): number {
  const seconds = parseDuration(text);
  const time = seconds !== undefined ? now + seconds * 1000 : Date.parse(text);
  if (Number.isNaN(time) || time <= now || time - now > MAX_DEFER_MS)
    throw new InputError(
      `${named}: expected a duration (3d, 12h) or a time within a year to come, got ${JSON.stringify(text)}`,
      'until',
    );
  return time;
}

/** What became of a decided item, in a line. */
export function decidedText(kind: DecisionKind, item: Item, runnerLive = true): string {
  const failure = item.decision?.failure;
  if (failure !== undefined) return `${item.id}: ${kind}, but not carried out: ${failure}`;
  if (kind === 'deferred') return `${item.id}: deferred until ${item.decision?.until ?? '?'}`;
  const said = DECIDED[item.status]?.(kind, item, runnerLive);
  if (said !== undefined) return `${item.id}: ${said}`;
  return item.landedCommit !== undefined && kind === 'accepted'
    ? `${item.id}: accepted (landed on ${item.landedOn ?? 'its target'} at ${item.landedCommit.slice(0, 12)})`
    : `${item.id}: ${kind} (${item.status})`;
}

/** What a decision left an item in each status that says more than its name, in words. */
const DECIDED: Partial<
  Record<ItemStatus, (kind: DecisionKind, item: Item, runnerLive: boolean) => string>
> = {
  deciding: (kind, item, runnerLive) =>
    `${kind}; ${runnerLive ? 'the running night' : 'the next ralph run'} carries it out (${(item.decision?.effects ?? []).join(', ')})`,
  landing: (_, item, runnerLive) =>
    `accepted; it waits to land${runnerLive ? '' : ' (the next ralph run lands it)'}${item.lastError === undefined ? '' : `: ${item.lastError}`}`,
  pending: (_, item) =>
    `rejected; back in line with your note, its work kept at refs/ralph/rejected/${item.id}/${item.decision?.id ?? ''}`,
  cancelled: () => 'rejected and cancelled',
  needs_input: (kind, item) =>
    `${kind}, but it waits for you: ${item.lastError ?? item.question ?? ''}`,
};
