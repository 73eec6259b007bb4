import fsp from 'node:fs/promises';
import path from 'node:path';
import type { Workspace } from '../config/workspace.js';
import { ContentionError, CorruptStateError, isErrnoException } from '../lib/errors.js';
import { appendPrivate, parseJsonText, readIfExists, writeJsonAtomically } from '../lib/fs.js';
import { readJsonLines } from '../lib/json-lines.js';
import type { FileCache } from '../lib/file-cache.js';
import * as z from '../lib/zod.js';
import { EMPTY_LESSONS, LessonsStateSchema, type LessonsState } from './state.js';

// The lessons' state file and the rule checks' ledger, as the workspace keeps them. The state is
// changed under a lock, read whole and written whole (atomically): a proposal written by a
// night and a person's decision taken in the inbox never lose each other's change.

export const lessonsFile = (workspace: Workspace) =>
  path.join(workspace.paths.state, 'lessons.json');
export const ruleChecksFile = (workspace: Workspace) =>
  path.join(workspace.paths.state, 'rule-checks.jsonl');

/**
 * The lessons' state; a file that cannot be read is refused by name, and left as it is. Read
 * through `cache` where it is read for every session.
 */
export async function readLessons(workspace: Workspace, cache?: FileCache): Promise<LessonsState> {
  const file = lessonsFile(workspace);
  const text = cache === undefined ? await readIfExists(file) : await cache.read(file);
  if (text === undefined) return structuredClone(EMPTY_LESSONS);
  const parsed = LessonsStateSchema.safeParse(parseJsonText(text, file));
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw new CorruptStateError(
    `${file}: ${issue?.path.join('.') || '(top)'}: ${issue?.message ?? 'invalid'} (the file is left as it is)`,
  );
}

/**
 * Changes the lessons' state under its lock: `change` is given the state as it is and returns
 * what it makes of it (and its own answer); nothing is written when it throws.
 */
export async function changeLessons<T>(
  workspace: Workspace,
  change: (
    state: LessonsState,
  ) => Promise<{ state: LessonsState; answer: T }> | { state: LessonsState; answer: T },
): Promise<T> {
  const file = lessonsFile(workspace);
  const release = await lock(file);
  try {
    const before = await readLessons(workspace);
    const unchanged = JSON.stringify(before);
    const { state, answer } = await change(before);
    const after = LessonsStateSchema.parse(state);
    // Nothing changed, nothing written: a night with nothing to gather leaves no file behind.
    if (JSON.stringify(after) !== unchanged) await writeJsonAtomically(file, after);
    return answer;
  } finally {
    await release().catch(() => undefined);
  }
}

async function lock(file: string): Promise<() => Promise<void>> {
  const { default: lockfile } = await import('proper-lockfile');
  try {
    return await lockfile.lock(file, {
      realpath: false,
      stale: 15_000,
      update: 3_000,
      retries: { retries: 200, factor: 1.3, minTimeout: 5, maxTimeout: 100, randomize: true },
    });
  } catch (error) {
    if (isErrnoException(error) && error.code === 'ELOCKED')
      throw new ContentionError(`${file} stayed locked by another process; nothing written`);
    throw error;
  }
}

/** One rule checked on one item's change, by its reviewer or its candidates' judge. */
export const RuleCheckSchema = z.strictObject({
  rule: z.string(),
  item: z.string(),
  session: z.string(),
  by: z.enum(['reviewer', 'judge']),
  held: z.boolean(),
  at: z.string(),
});
export type RuleCheck = z.output<typeof RuleCheckSchema>;

/** Appends the checks of one verdict to the ledger of rule checks. */
export async function recordRuleChecks(
  workspace: Workspace,
  checks: readonly RuleCheck[],
): Promise<void> {
  if (checks.length === 0) return;
  await fsp.mkdir(workspace.paths.state, { recursive: true });
  await appendPrivate(
    ruleChecksFile(workspace),
    checks.map((check) => `${JSON.stringify(check)}\n`).join(''),
  );
}

/** The rule checks, oldest first; a line a crash cut short is left out. */
export function readRuleChecks(workspace: Workspace): Promise<RuleCheck[]> {
  return readJsonLines(ruleChecksFile(workspace), RuleCheckSchema);
}
