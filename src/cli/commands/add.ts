import { randomBytes } from 'node:crypto';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { InputError } from '../../lib/errors.js';
import { ExitCode } from '../../lib/exit-codes.js';
import { formatIssues } from '../../lib/validation.js';
import { ItemSchema, type Item } from '../../queue/item.js';
import { QueueStore } from '../../queue/store.js';
import { openWorkspace } from '../open-workspace.js';
import type { Output } from '../output.js';

/** Flag names for the item fields they set, so errors speak of what the person typed. */
const FLAG_OF: Record<string, string> = {
  id: '--id',
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

function number(flag: string, value: unknown, integer: boolean): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (
    (typeof value === 'string' && value.trim() === '') ||
    !Number.isFinite(n) ||
    (integer && !Number.isInteger(n))
  ) {
    throw new InputError(
      `${flag}: expected ${integer ? 'a whole number' : 'a number'}, got ${JSON.stringify(value)}`,
    );
  }
  return n;
}

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

/** A readable id from the title, made unique with a short random suffix. */
export function idFromTitle(title: string): string {
  const slug = title
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40)
    .replace(/-+$/, '');
  return `${slug === '' ? 'item' : slug}-${randomBytes(2).toString('hex')}`;
}

/** Builds and validates a new item from the command line. */
export async function itemFromFlags(
  title: string,
  o: Record<string, unknown>,
  now: number,
): Promise<Item> {
  let body: string | undefined;
  if (o.body !== undefined && o.file !== undefined)
    throw new InputError('give --body or --file, not both');
  if (o.body === '-' || o.file === '-') body = await readStdin();
  else if (typeof o.body === 'string') body = o.body;
  else if (typeof o.file === 'string') {
    try {
      body = await fsp.readFile(path.resolve(o.file), 'utf8');
    } catch (error) {
      throw new InputError(
        `--file ${o.file}: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  }
  const vars: Record<string, string> = {};
  for (const pair of (o.var as string[] | undefined) ?? []) {
    const eq = pair.indexOf('=');
    if (eq <= 0) throw new InputError(`--var: expected KEY=VALUE, got ${JSON.stringify(pair)}`);
    vars[pair.slice(0, eq)] = pair.slice(eq + 1);
  }
  let notBefore: string | undefined;
  if (typeof o.notBefore === 'string') {
    const time = Date.parse(o.notBefore);
    if (Number.isNaN(time))
      throw new InputError(`--not-before: not a time: ${JSON.stringify(o.notBefore)}`);
    notBefore = new Date(time).toISOString();
  }
  const stamp = new Date(now).toISOString();
  const input = {
    id: typeof o.id === 'string' ? o.id : idFromTitle(title),
    title,
    body,
    priority: number('--priority', o.priority, true),
    maxAttempts: number('--max-attempts', o.maxAttempts, true),
    maxTurns: number('--max-turns', o.maxTurns, true),
    maxBudgetUsd: number('--max-budget-usd', o.maxBudgetUsd, false),
    timeout: o.timeout,
    idleTimeout: o.idleTimeout,
    model: o.model,
    workDir: o.workDir,
    agent: o.agent,
    tools: list(o.tools),
    allowedTools: list(o.allowedTools),
    disallowedTools: list(o.disallowedTools),
    permissionMode: o.permissionMode,
    dependsOn: ((o.dependsOn as string[] | undefined) ?? []).flatMap((v) => list(v) ?? []),
    notBefore,
    schedule: o.schedule,
    vars,
    createdAt: stamp,
    updatedAt: stamp,
  };
  const parsed = ItemSchema.safeParse(input);
  if (!parsed.success) {
    throw new InputError(
      formatIssues(
        'the new item',
        parsed.error,
        (p) => FLAG_OF[String(p[0])] ?? `--${String(p[0])}`,
      ),
    );
  }
  return parsed.data;
}

/** `ralph add`: validates the item and adds it under the queue lock; prints the id. */
export async function addCommand(
  root: string,
  title: string,
  options: Record<string, unknown>,
  output: Output,
): Promise<number> {
  const workspace = await openWorkspace(root);
  const item = await itemFromFlags(title, options, Date.now());
  if (item.permissionMode === 'bypassPermissions' && !workspace.config.yolo) {
    throw new InputError(
      '--permission-mode bypassPermissions needs "yolo": true in ralph.config.json',
    );
  }
  const store = new QueueStore(workspace.paths.queue);
  await store.update((items) => {
    const index = items.findIndex((i) => i.id === item.id);
    if (index === -1) return { items: [...items, item], value: undefined };
    const existing = items[index] as Item;
    if (options.replace !== true) {
      throw new InputError(
        `an item with id ${JSON.stringify(item.id)} is already queued (use --replace)`,
      );
    }
    if (existing.status === 'running') {
      throw new InputError(`item ${JSON.stringify(item.id)} is running; it cannot be replaced now`);
    }
    const copy = items.slice();
    copy[index] = item;
    return { items: copy, value: undefined };
  });
  output.out(item.id);
  return ExitCode.ok;
}
