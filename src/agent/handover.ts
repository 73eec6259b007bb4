import type { SessionRecord } from '../archive/record.js';
import { decoderOf } from './clis/index.js';
import { oneLine, summariseToolInput } from '../archive/transcript-rules.js';
import { git } from '../git/git.js';
import { parseStreamFile } from '../stream/archive-file.js';

/** Tools that change files, by the names each CLI's decoder gives them. */
const FILE_TOOLS = new Set([
  'Edit',
  'MultiEdit',
  'Write',
  'NotebookEdit',
  'file_change',
  'apply_patch',
  'write_file',
  'replace',
  'edit',
  'write',
  'patch',
]);
/** The agent's last messages kept, and the characters of each. */
const LAST_MESSAGES = 3;
const MESSAGE_CHARS = 1_500;
const STREAM_READ_BYTES = 64 * 1024 * 1024;

/** What a session did, as the next CLI is told it. */
export interface SessionWork {
  cli: string;
  sessionId: string;
  /** How it ended, in words. */
  ended: string;
  /** Its last assistant messages, oldest first. */
  messages: string[];
  /** Its file-changing tool calls, each on one line (`Edit src/a.ts`). */
  fileChanges: string[];
  /** The quality gate's failure it left, if it left one. */
  gateFailure?: string;
  /** Git mode: its branch's diff against the base, the work dir's uncommitted changes with it. */
  diff?: string;
}

/** What a session did, read back from its stream (bounded) and, in git mode, its branch. */
export async function sessionWork(
  previous: SessionRecord,
  stdoutFile: string,
  gateFailure: string | undefined,
  checkout: { worktree: string; baseCommit: string } | undefined,
): Promise<SessionWork> {
  const messages: string[] = [];
  const fileChanges: string[] = [];
  await parseStreamFile(
    stdoutFile,
    decoderOf(previous.cli),
    (parsed) => {
      // A synthetic message is the CLI's (an API error in the model's place), not the agent's.
      if (parsed.kind !== 'assistant' || parsed.synthetic) return;
      const text = parsed.texts.join('\n').trim();
      if (text !== '') messages.push(text);
      if (messages.length > LAST_MESSAGES) messages.shift();
      for (const use of parsed.toolUses)
        if (FILE_TOOLS.has(use.name))
          fileChanges.push(`${use.name} ${summariseToolInput(use.name, use.input)}`.trim());
    },
    STREAM_READ_BYTES,
  );
  const diff = checkout === undefined ? undefined : await branchDiff(checkout);
  return {
    cli: previous.cli,
    sessionId: previous.sessionId,
    ended: previous.outcome?.message ?? previous.status,
    messages,
    fileChanges,
    gateFailure,
    diff: diff?.trim() === '' ? undefined : diff,
  };
}

/**
 * The item's work against its base: its commits and what its worktree holds uncommitted, new
 * files too (marked to be added, so that the diff shows them; ralph commits them later anyway).
 */
async function branchDiff(checkout: {
  worktree: string;
  baseCommit: string;
}): Promise<string | undefined> {
  try {
    await git(checkout.worktree, ['add', '--all', '--intent-to-add']);
    return await git(checkout.worktree, ['diff', checkout.baseCommit]);
  } catch {
    return undefined;
  }
}

/**
 * The handover a fallback's first prompt holds, at most `chars` long: what the session before
 * it did, the most telling first (its gate's failure, the files it changed, its last words),
 * then its diff in what room is left. A session that did nothing hands over nothing, and says so.
 */
export function handoverText(work: SessionWork, chars: number): string {
  const who = `${work.cli} session ${work.sessionId}`;
  const nothing =
    work.messages.length === 0 &&
    work.fileChanges.length === 0 &&
    work.diff === undefined &&
    work.gateFailure === undefined;
  if (nothing)
    return cut(
      `The ${who} that began this item ended (${work.ended}) before doing any of it: there is nothing to hand over. Start the task from the beginning.`,
      chars,
    );
  const parts = [
    `This item was begun by another agent: ${who}, which ended (${work.ended}). You take it over: go on from where it stopped, in the same work dir${work.diff === undefined ? '' : ' and on the same branch'}, and do not redo what it did.`,
  ];
  if (work.gateFailure !== undefined)
    parts.push(`The quality gate failed on its work:\n${work.gateFailure}`);
  if (work.fileChanges.length > 0)
    parts.push(
      `The files it changed (in order):\n${work.fileChanges.map((c) => `- ${c}`).join('\n')}`,
    );
  if (work.messages.length > 0)
    parts.push(
      `Its last messages:\n${work.messages.map((m) => `> ${oneLine(m, MESSAGE_CHARS)}`).join('\n')}`,
    );
  const head = cut(parts.join('\n\n'), chars);
  if (work.diff === undefined) return head;
  const opening = `\n\nIts work so far (\`git diff\` against the item's base):\n\`\`\`diff\n`;
  const closing = '\n```';
  const room = chars - head.length - opening.length - closing.length;
  if (room < 200) return head;
  return `${head}${opening}${cut(work.diff.trimEnd(), room)}${closing}`;
}

/** `text` at most `chars` long, its cut said. */
function cut(text: string, chars: number): string {
  if (text.length <= chars) return text;
  // The note's own length is room the text gives up (a digit or so of slack).
  const kept = Math.max(0, chars - `\n… (${text.length} more characters cut)`.length);
  return `${text.slice(0, kept)}\n… (${text.length - kept} more characters cut)`;
}
