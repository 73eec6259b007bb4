import { randomBytes } from 'node:crypto';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { workDirProblem, type Workspace } from '../config/workspace.js';
import { nextCronTime } from '../lib/cron.js';
import { InputError } from '../lib/errors.js';
import { slugOf } from '../lib/text.js';
import { formatIssues } from '../lib/validation.js';
import { refusalFor } from '../agent/clis/index.js';
import { namedWorkDir, pickLayer, resolveSettings } from '../agent/settings.js';
import { resolveWork } from '../session/work.js';
import { gateProgramProblem } from '../gates/gates.js';
import { repositoryRoot, resolveCommit } from '../git/worktree.js';
import type { SessionSettings } from '../config/schema.js';
import { personaFile } from '../persona/file.js';
import { parsePersona } from '../persona/persona.js';
import { MAX_BODY_CHARS } from '../prompt/assemble.js';
import { dependencyProblem } from '../queue/dependencies.js';
import { ItemSchema, MAX_TITLE_CHARS, itemSettingsOf, type Item } from '../queue/item.js';
import type { Queue } from '../queue/queue.js';

/**
 * How errors name an item's field: the command line speaks of its flags (`--max-turns`), the
 * HTTP API of its JSON fields (`maxTurns`).
 */
export type FieldNames = (field: string) => string;

/** A readable id from the title, made unique with a short random suffix. */
export function idFromTitle(title: string): string {
  return `${slugOf(title, 'item')}-${randomBytes(2).toString('hex')}`;
}

/**
 * A title is one line of at most 200 characters, shown in tables, logs and prompts. Characters
 * that reorder text (bidirectional overrides and isolates) are refused: they make a title read
 * otherwise than it is, on a terminal as on the dashboard.
 */
export function checkTitle(title: string): string {
  const oneLine = title.trim();
  if (/[\p{Cc}\u2028\u2029]/u.test(oneLine))
    throw new InputError(
      'the title must be one line of text (no newlines or control characters)',
      'title',
    );
  if (/[\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]/u.test(oneLine))
    throw new InputError(
      'the title holds a character that reorders text (U+202A–U+202E, U+2066–U+2069, U+200E, U+200F, U+061C): write it without',
      'title',
    );
  if ([...oneLine].length > MAX_TITLE_CHARS)
    throw new InputError(
      `the title is ${[...oneLine].length} characters, at most ${MAX_TITLE_CHARS}: put the rest in the task text (--body)`,
      'title',
    );
  return oneLine;
}

/** A task text a prompt can hold. */
export function checkBody(body: string): string {
  if (body.length > MAX_BODY_CHARS) {
    throw new InputError(
      `the task text is ${body.length.toLocaleString('en-US')} characters; a prompt holds at most ${MAX_BODY_CHARS.toLocaleString('en-US')} of it. Put the long text in a file of the work dir and say in the task where it is`,
      'body',
    );
  }
  return body;
}

/** When a recurring item first runs: its next time, not at once. */
export function scheduleStart(schedule: string, now: number): string | undefined {
  try {
    return new Date(nextCronTime(schedule, now)).toISOString();
  } catch {
    // An invalid expression: validation names it.
    return undefined;
  }
}

/** Validates an item; errors name the field as `names` says. */
export function validateItem(
  input: Record<string, unknown>,
  what: string,
  names: FieldNames,
): Item {
  const parsed = ItemSchema.safeParse(input);
  if (!parsed.success) {
    const first = parsed.error.issues[0]?.path[0];
    throw new InputError(
      formatIssues(what, parsed.error, (p) => names(String(p[0]))),
      first === undefined ? undefined : names(String(first)),
    );
  }
  return parsed.data;
}

const isDirectory = (dir: string) =>
  fsp.stat(dir).then(
    (s) => s.isDirectory(),
    () => false,
  );

/**
 * What its own settings (the item's and its persona's) need in git mode and for its gates: a
 * base that is a commit of the repository, gate programs that exist.
 */
async function checkWork(
  workspace: Workspace,
  layers: readonly SessionSettings[],
  searchPath: string | undefined,
  names: FieldNames,
): Promise<void> {
  const { workDir } = resolveSettings(workspace.config.defaults, layers, (p) =>
    path.resolve(workspace.root, p),
  );
  const problem = workDirProblem(
    workspace.paths,
    namedWorkDir(workspace.config.defaults, layers) === undefined ? undefined : workDir,
  );
  if (problem !== undefined) throw new InputError(problem, names('workDir'));
  const work = resolveWork(workspace.config, layers);
  if (pickLayer(layers, 'land')?.enabled === true && !work.git)
    throw new InputError(
      `${names('land')}: landing merges an item's branch, and this item runs without git mode (--git, or "git.enabled")`,
      names('land'),
    );
  const base = pickLayer(layers, 'base');
  if (work.git && base !== undefined && (await isDirectory(workDir))) {
    const repo = await repositoryRoot(workDir);
    if (
      repo !== undefined &&
      !(await resolveCommit(repo, base).then(
        () => true,
        () => false,
      ))
    )
      throw new InputError(
        `${names('base')} ${base}: not a commit of the repository at ${repo}`,
        names('base'),
      );
  }
  for (const gate of pickLayer(layers, 'gates') ?? []) {
    const problem = await gateProgramProblem(gate, workDir, searchPath);
    if (problem !== undefined)
      throw new InputError(`${names('gates')}: ${problem}`, names('gates'));
  }
}

/**
 * What the workspace must hold for the item to run, checked when it is added or edited rather
 * than at 2 a.m.: its persona, its work dir, its git base and its gates' programs (its
 * dependencies are checked under the lock). `searchPath` is where gate programs are looked up.
 */
export async function checkRunnable(
  workspace: Workspace,
  item: Item,
  names: FieldNames,
  searchPath: string | undefined,
): Promise<void> {
  if (item.permissionMode === 'bypassPermissions' && !workspace.config.yolo) {
    throw new InputError(
      `${names('permissionMode')} bypassPermissions needs "yolo": true in ralph.config.json`,
      names('permissionMode'),
    );
  }
  const git = item.git ?? workspace.config.git.enabled;
  // A slug is a safe file name, but git refuses a few as branch names.
  if (git && /\.\.|\.$|\.lock$/.test(item.id))
    throw new InputError(
      `${names('id')} ${item.id}: git mode would work on branch ralph/${item.id}, which git refuses (no "..", no "." or ".lock" at the end); choose another id`,
      names('id'),
    );
  const own = itemSettingsOf(item);
  if ('problem' in own) throw new InputError(own.problem);
  const layers: SessionSettings[] = [own.settings];
  if (item.agent !== undefined) {
    const file = personaFile(workspace.paths.agents, item.agent);
    const text = await fsp.readFile(file, 'utf8').catch(() => undefined);
    if (text === undefined)
      throw new InputError(
        `${names('agent')} ${item.agent}: there is no persona file ${file}`,
        names('agent'),
      );
    layers.unshift(parsePersona(item.agent, file, text).settings);
  }
  const refusal = refusalFor(workspace.config, layers);
  if (refusal !== undefined) throw new InputError(refusal, names('cli'));
  if (item.workDir !== undefined) {
    const dir = path.resolve(workspace.root, item.workDir);
    if (!(await isDirectory(dir)))
      throw new InputError(
        `${names('workDir')} ${item.workDir}: ${dir} is not a directory`,
        names('workDir'),
      );
  }
  await checkWork(workspace, layers, searchPath, names);
}

/** Refuses dependencies that can never be met; `closure` is what the item depends on in its queue. */
export function checkDependencies(item: Item, closure: readonly Item[], names: FieldNames): void {
  if (item.dependsOn.length === 0) return;
  const byId = new Map(closure.map((i) => [i.id, i]));
  byId.set(item.id, item);
  const problem = dependencyProblem(item, byId);
  if (problem !== undefined)
    throw new InputError(
      `${names('dependsOn')}: ${problem.replace(/^it /, `${item.id} `)}`,
      names('dependsOn'),
    );
}

/**
 * Adds a validated item to the queue, after the checks of `checkRunnable` and
 * `checkDependencies`; an item with the same id is replaced only when `replace` says so and it
 * is not running.
 */
export async function addItem(
  workspace: Workspace,
  queue: Queue,
  item: Item,
  options: { replace: boolean; names: FieldNames; searchPath: string | undefined },
): Promise<void> {
  await checkRunnable(workspace, item, options.names, options.searchPath);
  await queue.add(item, {
    replace: options.replace,
    replaceFlag: options.names('replace'),
    check: (added, closure) => checkDependencies(added, closure, options.names),
  });
}
