import fsp from 'node:fs/promises';
import path from 'node:path';
import { InputError, isErrnoException } from '../lib/errors.js';
import type { Item, ItemEdit } from '../queue/item.js';
import {
  checkBody,
  checkTitle,
  scheduleStart,
  validateItem as validateFields,
} from '../workspace/admission.js';
import { errnoMeaning } from './failure.js';
import { numberFlag } from './flags.js';

/** Flag names for the item fields they set, so errors speak of what the person typed. */
const FLAG_OF: Record<string, string> = {
  id: '--id',
  title: 'the title',
  body: '--body',
  maxAttempts: '--max-attempts',
  cli: '--cli',
  maxTurns: '--max-turns',
  maxBudgetUsd: '--max-budget-usd',
  timeout: '--timeout',
  idleTimeout: '--idle-timeout',
  workDir: '--work-dir',
  allowedTools: '--allowed-tools',
  disallowedTools: '--disallowed-tools',
  permissionMode: '--permission-mode',
  dependsOn: '--depends-on',
  criteria: '--criterion',
  notBefore: '--not-before',
  vars: '--var',
  git: '--git',
  base: '--base',
  gates: '--gate',
  setup: '--setup',
  land: '--land',
  review: '--review',
  sandbox: '--sandbox',
  fallback: '--fallback',
  candidates: '--candidates',
  lean: '--lean',
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

export async function readStdin(): Promise<string> {
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

/**
 * The item fields the flags set, and only those: `ralph add` lays them over the defaults,
 * `ralph edit` over the item as it is. Each is checked in the words of its flag.
 */
export async function fieldsFromFlags(o: Record<string, unknown>, now: number): Promise<ItemEdit> {
  const fields: Record<string, unknown> = {};
  const set = (key: string, value: unknown) => {
    if (value !== undefined) fields[key] = value;
  };
  if (typeof o.title === 'string') set('title', checkTitle(o.title));
  const body = await readBody(o);
  set('body', body === undefined ? undefined : checkBody(body));
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
  if (o.criterion !== undefined) set('criteria', o.criterion);
  set('id', o.id);
  set('priority', number('--priority', o.priority, true));
  set('maxAttempts', number('--max-attempts', o.maxAttempts, true));
  set('maxTurns', number('--max-turns', o.maxTurns, true));
  set('maxBudgetUsd', number('--max-budget-usd', o.maxBudgetUsd, false));
  for (const key of [
    'cli',
    'timeout',
    'idleTimeout',
    'model',
    'workDir',
    'agent',
    'permissionMode',
  ])
    set(key, o[key]);
  set('tools', list(o.tools));
  set('allowedTools', list(o.allowedTools));
  set('disallowedTools', list(o.disallowedTools));
  if (o.dependsOn !== undefined)
    set(
      'dependsOn',
      (o.dependsOn as string[]).flatMap((v) => list(v) ?? []),
    );
  if (typeof o.git === 'boolean') set('git', o.git);
  if (typeof o.land === 'boolean') set('land', { enabled: o.land });
  // Only the "no": an item cannot ask for a forge the workspace does not set.
  if (o.forge === false) set('forge', false);
  if (typeof o.review === 'boolean') set('review', o.review);
  if (typeof o.sandbox === 'string') set('sandbox', { kind: o.sandbox });
  if (typeof o.lean === 'boolean') set('lean', o.lean);
  const fallback = list(o.fallback);
  if (fallback !== undefined) set('fallback', { clis: fallback.map((entry) => cliChoice(entry)) });
  const candidates = list(o.candidates);
  const candidatesCap = number('--candidates-max-cost', o.candidatesMaxCost, false);
  if (candidates !== undefined || o.candidatesWhen !== undefined || candidatesCap !== undefined)
    set('candidates', {
      ...(candidates === undefined
        ? {}
        : { clis: candidates.map((entry) => cliChoice(entry, true)) }),
      ...(o.candidatesWhen === undefined ? {} : { when: o.candidatesWhen }),
      ...(candidatesCap === undefined ? {} : { maxCostUsd: candidatesCap }),
    });
  set('base', o.base);
  if (o.gate !== undefined) set('gates', (o.gate as string[]).map(gateArgv));
  if (o.setup !== undefined) set('setup', (o.setup as string[]).map(gateArgv));
  if (typeof o.schedule === 'string') {
    set('schedule', o.schedule);
    // A recurring item first runs at its next time, not at once (unless --not-before says when).
    if (o.notBefore === undefined) set('notBefore', scheduleStart(o.schedule, now));
  }
  return fields;
}

/** A CLI named as `codex`, or with its model after a colon (`codex:gpt-5`). */
function cliChoice(entry: string, whole = false) {
  const colon = entry.indexOf(':');
  if (colon < 0) return whole ? { cli: entry } : entry;
  return { cli: entry.slice(0, colon), model: entry.slice(colon + 1) || undefined };
}

/**
 * A `--gate`: a JSON argv array as it is, or words split on spaces (no shell: quoting and
 * pipes need `["sh", "-c", "…"]`).
 */
function gateArgv(text: string): string[] {
  if (!text.trim().startsWith('[')) return text.split(/\s+/).filter((word) => word !== '');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    value = undefined;
  }
  if (!Array.isArray(value) || !value.every((word) => typeof word === 'string'))
    throw new InputError(
      `--gate: expected words or a JSON array of strings, got ${JSON.stringify(text)}`,
      '--gate',
    );
  return value;
}

/** Validates an item built from flags; errors name the flag. */
export function validateItem(input: Record<string, unknown>, what: string): Item {
  return validateFields(input, what, flagOf);
}

/** The flag of an item field, for errors. */
export function flagOf(field: string): string {
  return FLAG_OF[field] ?? `--${field.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
}
