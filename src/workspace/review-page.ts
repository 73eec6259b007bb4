import path from 'node:path';
import type { IndexEntry } from '../archive/index-entry.js';
import { sessionFiles } from '../archive/paths.js';
import { SessionRecordSchema } from '../archive/record.js';
import type { Workspace } from '../config/workspace.js';
import { git } from '../git/git.js';
import { parseNumstat } from '../git/worktree.js';
import { readIfExists } from '../lib/fs.js';
import type { Item, ItemVerdict } from '../queue/item.js';
import { applyEvent } from '../queue/lifecycle.js';
import { branchOfItem } from './branches.js';
import { reviewInbox, type InboxRow } from './review-inbox.js';
import { DECISION_VERBS, type DecisionVerb } from '../queue/decision-kinds.js';

// Everything a person needs to decide on one item, on one page (the terminal's and the
// dashboard's): the task and its criteria with their verdicts, the diff file by file, the
// failing gate's command and output, the reviewer's findings, the agent's last words, the cost
// and the time, and the decisions the item allows.

/** Characters of one file's diff shown; a longer one is cut, and says so. */
const FILE_DIFF_CHARS = 60_000;
/** Characters of the whole diff shown; files past it are named, not shown. */
const DIFF_CHARS = 400_000;

/** One file of the item's diff. */
export interface FileDiff {
  path: string;
  added: number;
  deleted: number;
  /** Its hunks (`diff --git` on), cut at `FILE_DIFF_CHARS`; absent past `DIFF_CHARS`. */
  text?: string;
  cut?: boolean;
}

export interface ReviewPage {
  item: Item;
  /** Its inbox row (its risk and why), when it waits on a person. */
  row?: InboxRow;
  task: string;
  criteria: { text: string; verdict?: string; evidence?: string }[];
  /** The failing gate's command and the end of its output, as the agent was told them. */
  gateFailure?: string;
  landFailure?: string;
  checksFailure?: string;
  findings: ItemVerdict['findings'];
  verdict?: { overall: string; summary?: string; cli: string };
  /** The agent's last words in its last session. */
  finalMessage?: string;
  costUsd: number;
  durationMs: number;
  /** Every session of the item, its reviewers' included (as its cost and time count them). */
  sessions: number;
  /** Its reviewers' sessions, of `sessions`. */
  reviews: number;
  /** Git mode: what the branch (or its landing) changed; none: not in git mode. */
  diff?: { files: FileDiff[]; landed: boolean; error?: string };
  /** The decisions the item allows now. */
  decisions: DecisionVerb[];
}

/** The review page of `item`, from the queue, the index and the repository. */
export async function reviewPage(
  workspace: Workspace,
  item: Item,
  entries: readonly IndexEntry[],
  now: number,
): Promise<ReviewPage> {
  const own = entries.filter((e) => e.itemId === item.id);
  const work = own.filter((e) => e.role === undefined);
  const row = reviewInbox([item], own, workspace.config.review.sensitive, now)[0];
  const verdicts = new Map(item.verdict?.criteria.map((c) => [c.id, c]) ?? []);
  return {
    item,
    row,
    task: await taskOf(workspace, item),
    criteria: (item.criteria ?? []).map((text, i) => ({
      text,
      verdict: verdicts.get(i + 1)?.verdict,
      evidence: verdicts.get(i + 1)?.evidence,
    })),
    gateFailure: item.gateFailure,
    landFailure: item.landFailure,
    checksFailure: item.checksFailure,
    findings: item.verdict?.findings ?? [],
    verdict:
      item.verdict === undefined
        ? undefined
        : { overall: item.verdict.overall, summary: item.verdict.summary, cli: item.verdict.cli },
    finalMessage: await finalMessage(workspace, work.at(-1)),
    costUsd: item.costUsd,
    durationMs: own.reduce((sum, e) => sum + (e.durationMs ?? 0), 0),
    sessions: own.length,
    reviews: own.filter((e) => e.role === 'reviewer').length,
    diff: item.branch === undefined ? undefined : await diffOf(workspace, item),
    decisions: decisionsOf(item, now),
  };
}

/** The decisions the lifecycle allows the item now. */
export function decisionsOf(item: Item, now: number): DecisionVerb[] {
  const probe = { id: 'probe', by: 'probe', at: new Date(now).toISOString() };
  const allowed: DecisionVerb[] = [];
  if (
    applyEvent(item, { kind: 'accepted', decision: { ...probe, kind: 'accepted' }, now }).kind ===
    'applied'
  )
    allowed.push(DECISION_VERBS.accepted);
  if (
    applyEvent(item, {
      kind: 'rejected',
      decision: { ...probe, kind: 'rejected', then: 'cancel' },
      now,
    }).kind === 'applied'
  )
    allowed.push(DECISION_VERBS.rejected, DECISION_VERBS.deferred);
  return allowed;
}

async function taskOf(workspace: Workspace, item: Item): Promise<string> {
  if (item.bodyFile === undefined) return item.body ?? item.title;
  return (
    (await readIfExists(path.resolve(workspace.root, item.bodyFile)).catch(() => undefined)) ??
    item.title
  );
}

async function finalMessage(
  workspace: Workspace,
  entry: IndexEntry | undefined,
): Promise<string | undefined> {
  if (entry === undefined) return undefined;
  const dir = entry.archive ?? workspace.paths.sessions;
  const text = await readIfExists(sessionFiles(dir, entry.sessionId).record).catch(() => undefined);
  if (text === undefined) return entry.message;
  try {
    const parsed = SessionRecordSchema.safeParse(JSON.parse(text));
    return parsed.success ? (parsed.data.result?.text ?? parsed.data.lastText) : entry.message;
  } catch {
    return entry.message;
  }
}

/** The item's diff, file by file: its branch against its base, or what its landing brought. */
async function diffOf(workspace: Workspace, item: Item): Promise<ReviewPage['diff']> {
  try {
    const { repo, base, tip, landed } = await branchOfItem(workspace, item);
    const range = `${base}...${tip}`;
    const [numstat, patch] = await Promise.all([
      git(repo, ['diff', '--numstat', '-z', '--no-renames', range]),
      git(repo, ['diff', '--no-color', '--no-renames', '--no-ext-diff', range]),
    ]);
    return { files: splitDiff(numstat, patch), landed };
  } catch (error) {
    return {
      files: [],
      landed: false,
      error: error instanceof Error ? error.message : String(error),
    };
  }
}

/** A unified diff split into its files, with their line counts from `--numstat -z`. */
export function splitDiff(numstat: string, patch: string): FileDiff[] {
  const files: FileDiff[] = parseNumstat(numstat);
  const chunks = patch.split(/^(?=diff --git )/m).filter((c) => c.startsWith('diff --git '));
  let shown = 0;
  files.forEach((file, i) => {
    const chunk = chunks[i];
    if (chunk === undefined || shown >= DIFF_CHARS) return;
    const cut = chunk.length > FILE_DIFF_CHARS;
    file.text = cut ? chunk.slice(0, FILE_DIFF_CHARS) : chunk;
    if (cut) file.cut = true;
    shown += file.text.length;
  });
  return files;
}
