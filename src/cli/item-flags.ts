import fsp from 'node:fs/promises';
import path from 'node:path';
import type { Workspace } from '../config/workspace.js';
import { InputError, isErrnoException } from '../lib/errors.js';
import { nextCronTime } from '../lib/cron.js';
import { formatIssues } from '../lib/validation.js';
import { personaFile } from '../persona/file.js';
import { MAX_BODY_CHARS } from '../prompt/assemble.js';
import { dependencyProblem } from '../queue/dependencies.js';
import { ItemSchema, type Item } from '../queue/item.js';
import { errnoMeaning } from './failure.js';
import { numberFlag } from './flags.js';

/** Flag names for the item fields they set, so errors speak of what the person typed. */
const FLAG_OF: Record<string, string> = {
  id: '--id',
  title: 'the title',
  body: '--body',
  maxAttempts: '--max-attempts',
  maxTurns: '--max-turns',
  maxBudgetUsd: '--max-budget-usd',
  timeout: '--timeout',
  idleTimeout: '--idle-timeout',
  workDir: '--work-dir',
  allowedTools: '--allowed-tools',
  disallowedTools: '--disallowed-tools',
  permissionMode: '--permission-mode',
  dependsOn: '--depends-on',
  notBefore: '--not-before',
  vars: '--var',
};

const number = (flag: string, value: unknown, integer: boolean) =>
  numberFlag(flag, value, { integer });

const list = (value: unknown): string[] | undefined =>
  typeof value === 'string'
    ? value
        .split(',')
        .map((s) => s.trim())
        .filter((s) => s !== '')
    : undefined;

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

async function readBody(o: Record<string, unknown>): Promise<string | undefined> {
  if (o.body !== undefined && o.file !== undefined)
    throw new InputError('give --body or --file, not both');
  if (o.body === '-' || o.file === '-') return readStdin();
  if (typeof o.body === 'string') return o.body;
  if (typeof o.file !== 'string') return undefined;
  try {
    return await fsp.readFile(path.resolve(o.file), 'utf8');
  } catch (error) {
    const meaning = isErrnoException(error) ? errnoMeaning(error) : String(error);
    throw new InputError(`--file ${o.file}: cannot be read: ${meaning}`);
  }
}

/** A title is one line: it is shown in tables, logs and prompts. */
function checkTitle(title: string): string {
  const oneLine = title.trim();
  if (/[\p{Cc}\u2028\u2029]/u.test(oneLine))
    throw new InputError('the title must be one line of text (no newlines or control characters)');
  return oneLine;
}

/**
 * The item fields the flags set, and only those: `ralph add` lays them over the defaults,
 * `ralph edit` over the item as it is. Each is checked in the words of its flag.
 */
export async function fieldsFromFlags(
  o: Record<string, unknown>,
  now: number,
): Promise<Partial<Item>> {
  const fields: Record<string, unknown> = {};
  const set = (key: string, value: unknown) => {
    if (value !== undefined) fields[key] = value;
  };
  if (typeof o.title === 'string') set('title', checkTitle(o.title));
  const body = await readBody(o);
  if (body !== undefined && body.length > MAX_BODY_CHARS) {
    throw new InputError(
      `the task text is ${body.length.toLocaleString('en-US')} characters; a prompt holds at most ${MAX_BODY_CHARS.toLocaleString('en-US')} of it. Put the long text in a file of the work dir and say in the task where it is`,
    );
  }
  set('body', body);
  if (o.var !== undefined) {
    const vars: Record<string, string> = {};
    for (const pair of o.var as string[]) {
      const eq = pair.indexOf('=');
      if (eq <= 0) throw new InputError(`--var: expected KEY=VALUE, got ${JSON.stringify(pair)}`);
      vars[pair.slice(0, eq)] = pair.slice(eq + 1);
    }
    set('vars', vars);
  }
  if (typeof o.notBefore === 'string') {
    const time = Date.parse(o.notBefore);
    if (Number.isNaN(time))
      throw new InputError(
        `--not-before: expected a time such as "2026-11-23T22:00" or "2026-11-23T22:00:00Z", got ${JSON.stringify(o.notBefore)}`,
      );
    set('notBefore', new Date(time).toISOString());
  }
  set('id', o.id);
  set('priority', number('--priority', o.priority, true));
  set('maxAttempts', number('--max-attempts', o.maxAttempts, true));
  set('maxTurns', number('--max-turns', o.maxTurns, true));
  set('maxBudgetUsd', number('--max-budget-usd', o.maxBudgetUsd, false));
  for (const key of ['timeout', 'idleTimeout', 'model', 'workDir', 'agent', 'permissionMode'])
    set(key, o[key]);
  set('tools', list(o.tools));
  set('allowedTools', list(o.allowedTools));
  set('disallowedTools', list(o.disallowedTools));
  if (o.dependsOn !== undefined)
    set(
      'dependsOn',
      (o.dependsOn as string[]).flatMap((v) => list(v) ?? []),
    );
  if (typeof o.schedule === 'string') {
    set('schedule', o.schedule);
    // A recurring item first runs at its next time, not at once (unless --not-before says when).
    if (o.notBefore === undefined) set('notBefore', scheduleStart(o.schedule, now));
  }
  return fields;
}

function scheduleStart(schedule: string, now: number): string | undefined {
  try {
    return new Date(nextCronTime(schedule, now)).toISOString();
  } catch {
    // An invalid expression: validation names it.
    return undefined;
  }
}

/** Validates an item built from flags; errors name the flag. */
export function validateItem(input: Record<string, unknown>, what: string): Item {
  const parsed = ItemSchema.safeParse(input);
  if (!parsed.success) {
    throw new InputError(
      formatIssues(what, parsed.error, (p) => FLAG_OF[String(p[0])] ?? `--${String(p[0])}`),
    );
  }
  return parsed.data;
}

/**
 * What the workspace must hold for the item to run, checked when it is added or edited rather
 * than at 2 a.m.: its persona and its work dir (its dependencies are checked under the lock).
 */
export async function checkRunnable(workspace: Workspace, item: Item): Promise<void> {
  if (item.permissionMode === 'bypassPermissions' && !workspace.config.yolo) {
    throw new InputError(
      '--permission-mode bypassPermissions needs "yolo": true in ralph.config.json',
    );
  }
  if (item.agent !== undefined) {
    const file = personaFile(workspace.paths.agents, item.agent);
    if (
      !(await fsp.stat(file).then(
        (s) => s.isFile(),
        () => false,
      ))
    )
      throw new InputError(`--agent ${item.agent}: there is no persona file ${file}`);
  }
  if (item.workDir !== undefined) {
    const dir = path.resolve(workspace.root, item.workDir);
    if (
      !(await fsp.stat(dir).then(
        (s) => s.isDirectory(),
        () => false,
      ))
    )
      throw new InputError(`--work-dir ${item.workDir}: ${dir} is not a directory`);
  }
}

/** Refuses dependencies that can never be met; `items` is the queue the item goes into. */
export function checkDependencies(item: Item, items: readonly Item[]): void {
  if (item.dependsOn.length === 0) return;
  const byId = new Map(items.map((i) => [i.id, i]));
  byId.set(item.id, item);
  const problem = dependencyProblem(item, byId);
  if (problem !== undefined)
    throw new InputError(`--depends-on: ${problem.replace(/^it /, `${item.id} `)}`);
}
