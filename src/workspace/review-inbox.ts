import picomatch from 'picomatch';
import { pullRequestName } from '../queue/pull-request-name.js';
import type { IndexEntry } from '../archive/index-entry.js';
import { reviewEnds, type ReviewEnd } from '../archive/report.js';
import { waitOf, waitsOnPerson, type PersonWait } from '../queue/decisions.js';
import type { Item } from '../queue/item.js';
import { compareText, plural } from '../lib/text.js';
import { statusIs, type ItemStatus } from '../queue/item-status.js';

// The morning's inbox: every item that waits on a person, ranked by a risk score computed from
// the item's structure alone (what it changed and where, how hard it was to get there, what its
// reviewer said, what it cost), each part of the score shown with why.

/** One part of an item's risk score: its name, its points, and what earned them. */
export interface RiskPart {
  name: string;
  points: number;
  why: string;
}

/** What an item's branch changed, from its last session's record. */
export interface BranchChanges {
  files: number;
  added: number;
  deleted: number;
  paths: string[];
}

/** One row of the inbox. */
export interface InboxRow {
  item: Item;
  /** What the person is asked: to decide on done work, to answer, to look at a failure. */
  waits: PersonWait;
  score: number;
  parts: RiskPart[];
  /** What happened, in one line. */
  what: string;
  /** How it came to be, oldest first (`gate failed → done → land conflict`). */
  chain: string;
  /** Git mode: what its branch changed (none: not in git mode, or not recorded). */
  changes?: BranchChanges;
  /** The paths of its change the configuration marks sensitive. */
  sensitive: string[];
}

/** The weights of the score's parts: a failure or a question outranks any size of change. */
const WEIGHT = {
  failed: 40,
  question: 35,
  decisionFailed: 40,
  unreviewed: 20,
  changesRequested: 20,
  failedCriterion: 8,
  sensitiveFile: 12,
  sensitiveCap: 36,
  filePoint: 1,
  fileCap: 15,
  linesPer: 40,
  linesCap: 15,
  denial: 4,
  denialCap: 16,
  gateRetry: 5,
  landRound: 6,
  checkRound: 5,
  costPerUsd: 2,
  costCap: 10,
  noChanges: 10,
} as const;

/** The statuses that weigh on their own, and why, in the row's words. */
const WEIGHED_STATUS: Partial<Record<ItemStatus, { weight: keyof typeof WEIGHT; why: string }>> = {
  failed: { weight: 'failed', why: 'it failed' },
  parked: { weight: 'failed', why: 'it was parked' },
  needs_input: { weight: 'question', why: 'its agent asks a question' },
};

/** Builds the inbox: the items waiting on a person at `now`, most at risk first. */
export function reviewInbox(
  items: readonly Item[],
  entries: readonly IndexEntry[],
  sensitive: readonly string[],
  now: number,
): InboxRow[] {
  const waiting = items.filter((item) => waitsOnPerson(item, now));
  const ids = new Set(waiting.map((item) => item.id));
  const sessions = new Map<string, IndexEntry[]>();
  for (const entry of entries) {
    if (!ids.has(entry.itemId)) continue;
    const list = sessions.get(entry.itemId) ?? [];
    list.push(entry);
    sessions.set(entry.itemId, list);
  }
  const isSensitive = picomatch([...sensitive], { dot: true });
  // A decision the world refused heads the inbox, whatever the scores: a person's word undone.
  const refused = (row: InboxRow) => (row.item.decision?.failure === undefined ? 0 : 1);
  return waiting
    .map((item) => rowOf(item, sessions.get(item.id) ?? [], isSensitive))
    .sort(
      (a, b) =>
        refused(b) - refused(a) ||
        b.score - a.score ||
        compareText(
          a.item.finishedAt ?? a.item.updatedAt ?? '',
          b.item.finishedAt ?? b.item.updatedAt ?? '',
        ) ||
        compareText(a.item.id, b.item.id),
    );
}

/** An item's row whether it waits on a person or not (what a decision records of it). */
export function inboxRow(
  item: Item,
  entries: readonly IndexEntry[],
  sensitive: readonly string[],
): InboxRow {
  const isSensitive = picomatch([...sensitive], { dot: true });
  return rowOf(
    item,
    entries.filter((e) => e.itemId === item.id),
    isSensitive,
  );
}

function rowOf(
  item: Item,
  entries: readonly IndexEntry[],
  isSensitive: (path: string) => boolean,
): InboxRow {
  const work = entries.filter((e) => e.role === undefined);
  const last = work.at(-1);
  const changes = last?.changes;
  const sensitive = (changes?.paths ?? []).filter((path) => isSensitive(path));
  const parts = riskParts(item, work, changes, sensitive);
  return {
    item,
    waits: waitOf(item) ?? 'decide',
    score: parts.reduce((sum, part) => sum + part.points, 0),
    parts,
    what: whatHappened(item, changes),
    chain: causeChain(item, entries),
    changes,
    sensitive,
  };
}

/** The parts of an item's risk score, each with its points and why. */
function riskParts(
  item: Item,
  work: readonly IndexEntry[],
  changes: BranchChanges | undefined,
  sensitive: readonly string[],
): RiskPart[] {
  const parts: RiskPart[] = [];
  const add = (name: string, points: number, why: string) => {
    const rounded = Math.round(points);
    if (rounded > 0) parts.push({ name, points: rounded, why });
  };
  if (item.decision?.failure !== undefined)
    add(
      'decision',
      WEIGHT.decisionFailed,
      `its ${item.decision.kind} decision could not be carried out`,
    );
  const weighed = WEIGHED_STATUS[item.status];
  if (weighed !== undefined) add('status', WEIGHT[weighed.weight], weighed.why);
  if (item.unreviewed !== undefined)
    add('review', WEIGHT.unreviewed, 'its reviewer failed: unreviewed');
  const verdict = item.verdict;
  // BranchChanges asked before an approval are part of its story, not forgotten by it.
  const rounds = Math.max(item.reviewRounds ?? 0, verdict?.overall === 'request_changes' ? 1 : 0);
  if (rounds > 0)
    add(
      'review',
      WEIGHT.changesRequested,
      `its reviewer asked for changes${rounds > 1 ? ` ${rounds} times` : ''}`,
    );
  const failedCriteria = verdict?.criteria.filter((c) => c.verdict !== 'PASS').length ?? 0;
  add(
    'criteria',
    failedCriteria * WEIGHT.failedCriterion,
    `${plural(failedCriteria, 'criterion', 'criteria')} not shown to hold`,
  );
  add(
    'sensitive',
    Math.min(WEIGHT.sensitiveCap, sensitive.length * WEIGHT.sensitiveFile),
    `${plural(sensitive.length, 'sensitive path')}: ${sensitive.slice(0, 3).join(', ')}${sensitive.length > 3 ? ', …' : ''}`,
  );
  if (changes !== undefined) {
    add(
      'files',
      Math.min(WEIGHT.fileCap, changes.files * WEIGHT.filePoint),
      plural(changes.files, 'file'),
    );
    const lines = changes.added + changes.deleted;
    add(
      'lines',
      Math.min(WEIGHT.linesCap, lines / WEIGHT.linesPer),
      `${plural(lines, 'line')} (+${changes.added} −${changes.deleted})`,
    );
    if (changes.files === 0 && statusIs(item.status, 'complete'))
      add('no changes', WEIGHT.noChanges, 'done, yet its branch changed nothing');
  }
  const denials = work.reduce((sum, e) => sum + (e.denials ?? 0), 0);
  add(
    'denials',
    Math.min(WEIGHT.denialCap, denials * WEIGHT.denial),
    `${plural(denials, 'tool call')} refused`,
  );
  const gateFailures = work.filter((e) => e.outcome === 'gate_failed').length;
  add(
    'gate retries',
    gateFailures * WEIGHT.gateRetry,
    `${plural(gateFailures, 'failed gate')} before`,
  );
  add(
    'landing',
    (item.landRounds ?? 0) * WEIGHT.landRound,
    `${plural(item.landRounds ?? 0, 'landing')} refused`,
  );
  add(
    'checks',
    (item.checkRounds ?? 0) * WEIGHT.checkRound,
    `${plural(item.checkRounds ?? 0, 'round')} of failed checks`,
  );
  add(
    'cost',
    Math.min(WEIGHT.costCap, item.costUsd * WEIGHT.costPerUsd),
    `cost $${item.costUsd.toFixed(2)}`,
  );
  return parts.sort((a, b) => b.points - a.points);
}

/** What happened to the item, in one line, a change of nothing said plainly. */
function whatHappened(item: Item, changes: BranchChanges | undefined): string {
  const size =
    changes === undefined
      ? ''
      : changes.files === 0
        ? ', no changes'
        : `, ${plural(changes.files, 'file')} +${changes.added} −${changes.deleted}`;
  const failure = item.decision?.failure;
  if (failure !== undefined)
    return `${item.decision?.kind} but not carried out: ${firstLine(failure)}`;
  return (WHAT_HAPPENED[item.status] ?? doneText)(item, size);
}

/** What happened to an item in a status that says more than done, in one line. */
const WHAT_HAPPENED: Partial<Record<ItemStatus, (item: Item, size: string) => string>> = {
  needs_input: (item) => `asks: ${firstLine(item.question ?? '')}`,
  failed: (item) =>
    `failed after ${plural(item.attempts, 'attempt')}: ${firstLine(item.lastError ?? item.lastOutcome ?? '')}`,
  parked: (item) =>
    `parked: ${firstLine(item.lastError ?? item.environment?.failure ?? 'a person stopped it')}`,
  reviewing: (item) => `unreviewed: ${firstLine(item.unreviewed ?? '')}`,
  landing: (item) =>
    `waits to land: ${firstLine(item.lastError ?? 'its landing could not be made')}`,
  deciding: (item) =>
    `${item.decision?.kind ?? 'decided'}, being carried out (${(item.decision?.effects ?? []).join(', ')}); if no night runs, ralph recover finishes it`,
  awaiting_merge: (item, size) => `${pullRequestName(item.pullRequest)} ready to merge${size}`,
};

function doneText(item: Item, size: string): string {
  return item.landedCommit !== undefined
    ? `done, landed on ${item.landedOn ?? 'its target'} at ${item.landedCommit.slice(0, 12)}${size}`
    : item.branch !== undefined
      ? `done, not landed (branch ${item.branch})${size}`
      : `done${size}`;
}

/** Short words for a session's outcome in a cause chain. */
const OUTCOME_WORDS: Readonly<Record<string, string>> = {
  success: 'done',
  gate_failed: 'gate failed',
  needs_input: 'asked',
  timeout: 'timed out',
  idle_timeout: 'went quiet',
  budget_exceeded: 'over budget',
  rate_limited: 'rate limited',
  interrupted: 'interrupted',
};

/** How the item came to where it is: its sessions' outcomes, then its landings' and reviews'. */
export function causeChain(item: Item, entries: readonly IndexEntry[]): string {
  const reviews = reviewEnds(item, entries);
  const steps = entries.flatMap((e) =>
    e.role === 'reviewer'
      ? REVIEW_WORDS[reviews.get(e.sessionId) ?? 'failed']
      : [OUTCOME_WORDS[e.outcome] ?? e.outcome.replaceAll('_', ' ')],
  );
  if ((item.landRounds ?? 0) > 0) steps.push(`landing refused ×${item.landRounds}`);
  if (item.lastOutcome === 'land_conflict') steps.push('conflict');
  const compact: string[] = [];
  let count = 0;
  steps.forEach((step, i) => {
    count++;
    if (steps[i + 1] === step) return;
    compact.push(count > 1 ? `${step} ×${count}` : step);
    count = 0;
  });
  return compact.join(' → ');
}

/** A review in a cause chain. */
const REVIEW_WORDS: Readonly<Record<ReviewEnd, readonly string[]>> = {
  approved: ['reviewed'],
  changes_asked: ['reviewed', 'changes asked'],
  failed: ['review failed'],
};

function firstLine(text: string): string {
  const line = text.split('\n').find((l) => l.trim() !== '') ?? '';
  return line.length > 120 ? `${line.slice(0, 119)}…` : line;
}
