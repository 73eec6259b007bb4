import fsp from 'node:fs/promises';
import path from 'node:path';
import type { Workspace } from '../../config/workspace.js';
import { ForgeError, type IssueQuery } from '../../forge/forge.js';
import type { ForgeKind } from '../../forge/config-schema.js';
import { openIssues } from '../../forge/open.js';
import { InputError, RalphError, isErrnoException } from '../../lib/errors.js';
import { ExitCode } from '../../lib/exit-codes.js';
import type { Item, Source } from '../../queue/item.js';
import { withQueue } from '../../queue/open.js';
import { SourceError, type SourceEntry } from '../../sources/entry.js';
import { issueEntries } from '../../sources/issues.js';
import { planEntries, planText } from '../../sources/plan.js';
import { linearEntries } from '../../linear/issues.js';
import { LinearRefusal, openLinear, type LinearQuery } from '../../linear/tracker.js';
import { prdEntries } from '../../sources/prd.js';
import {
  applyImport,
  planImport,
  untrustedDefaults,
  type ImportStep,
} from '../../workspace/import.js';
import { errnoMeaning } from '../failure.js';
import { fieldsFromFlags, flagOf } from '../item-flags.js';
import { openWorkspace } from '../open-workspace.js';
import type { Output } from '../output.js';

/** A forge's issues as a source: `github:owner/name`, `gitlab:group/subgroup/name`. */
const FORGE_SOURCE = /^(github|gitlab):([\w.-]+(?:\/[\w.-]+)+)$/;

function forgeSourceOf(source: string): { kind: ForgeKind; repo: string } | undefined {
  const found = FORGE_SOURCE.exec(source);
  if (found === null) return undefined;
  const kind = found[1] === 'gitlab' ? 'gitlab' : 'github';
  const repo = found[2] ?? '';
  if (kind === 'github' && repo.split('/').length !== 2)
    throw new InputError(`${source}: a GitHub repository is "github:owner/name"`, 'source');
  return { kind, repo };
}

/** A file as the items name it: from the workspace when it is inside it. */
function refOf(root: string, file: string): string {
  const relative = path.relative(root, file);
  return relative.startsWith('..') || path.isAbsolute(relative) ? file : relative;
}

async function readSource(file: string): Promise<Buffer> {
  try {
    return await fsp.readFile(file);
  } catch (error) {
    throw new InputError(
      `${file}: cannot be read: ${isErrnoException(error) ? errnoMeaning(error) : String(error)}`,
    );
  }
}

/** A forge's issues, read with the workspace's `forge` settings (or that forge's defaults). */
async function forgeEntries(
  workspace: Workspace,
  from: { kind: ForgeKind; repo: string },
  query: IssueQuery,
  items: readonly Item[],
  env: Readonly<Record<string, string | undefined>>,
): Promise<SourceEntry[]> {
  try {
    const forge = await openIssues(workspace.config.forge, from.kind, from.repo, env);
    return await issueEntries(forge, from, query, items, workspace.config.import.trust);
  } catch (error) {
    if (!(error instanceof ForgeError)) throw error;
    throw new RalphError(
      `ralph import: ${error.message}; nothing was imported`,
      error.kind === 'rate_limited' || error.kind === 'unavailable'
        ? ExitCode.unavailable
        : ExitCode.usage,
    );
  }
}

const LINEAR_SOURCE = /^linear:([A-Za-z0-9]{1,7})$/;

/** The issues of a Linear team, read with the workspace's `linear` settings. */
async function linearEntriesOf(
  workspace: Workspace,
  team: string,
  options: Record<string, unknown>,
  items: readonly Item[],
  env: Readonly<Record<string, string | undefined>>,
): Promise<SourceEntry[]> {
  if (options.milestone !== undefined)
    throw new InputError(
      '--milestone: Linear has no milestones of issues; --project or --cycle',
      '--milestone',
    );
  const text = (key: string) => (typeof options[key] === 'string' ? options[key] : undefined);
  const states = text('state')
    ?.split(',')
    .map((s) => s.trim());
  for (const state of states ?? [])
    if (!LINEAR_STATE_TYPES.includes(state))
      throw new InputError(
        `--state ${state}: a Linear state type, one of ${LINEAR_STATE_TYPES.join(', ')} (types, never names: a team names its states as it likes)`,
        '--state',
      );
  const cycle = text('cycle');
  if (cycle !== undefined && cycle !== 'current' && !/^\d+$/.test(cycle))
    throw new InputError(`--cycle ${cycle}: a cycle's number, or "current"`, '--cycle');
  const { linear } = workspace.config;
  try {
    const tracker = await openLinear({ ...linear, token: env[linear.tokenEnv] });
    const query: LinearQuery = {
      ...(states === undefined ? {} : { states }),
      ...(text('label') === undefined ? {} : { label: text('label') }),
      ...(text('project') === undefined ? {} : { project: text('project') }),
      ...(cycle === undefined ? {} : { cycle }),
      ...(text('assignee') === undefined ? {} : { assignee: text('assignee') }),
    };
    return await linearEntries(
      tracker,
      team.toUpperCase(),
      query,
      items,
      workspace.config.import.trust,
    );
  } catch (error) {
    if (!(error instanceof LinearRefusal)) throw error;
    throw new RalphError(
      `ralph import: ${error.message}; nothing was imported`,
      error.kind === 'rate_limited' || error.kind === 'unavailable'
        ? ExitCode.unavailable
        : ExitCode.usage,
    );
  }
}

/** The state types of Linear's workflows an import may ask for. */
const LINEAR_STATE_TYPES = ['triage', 'backlog', 'unstarted', 'started'];

/** The entries of a plan, a prd.json, or a forge's issues. */
async function entriesOf(
  workspace: Workspace,
  source: string,
  options: Record<string, unknown>,
  items: readonly Item[],
  env: Readonly<Record<string, string | undefined>>,
): Promise<SourceEntry[]> {
  const team = LINEAR_SOURCE.exec(source)?.[1];
  if (team !== undefined) return linearEntriesOf(workspace, team, options, items, env);
  for (const flag of ['state', 'project', 'cycle'])
    if (options[flag] !== undefined)
      throw new InputError(`--${flag}: only for linear:<TEAM>`, `--${flag}`);
  const from = forgeSourceOf(source);
  if (from !== undefined) {
    const query: IssueQuery = {};
    for (const key of ['label', 'milestone', 'assignee'] as const)
      if (typeof options[key] === 'string') query[key] = options[key];
    return forgeEntries(workspace, from, query, items, env);
  }
  for (const flag of ['label', 'milestone', 'assignee'])
    if (options[flag] !== undefined)
      throw new InputError(
        `--${flag}: only for github:<owner>/<repo> or gitlab:<group>/<project>`,
        `--${flag}`,
      );
  const file = path.resolve(source);
  const ref = refOf(workspace.root, file);
  const bytes = await readSource(file);
  try {
    return file.endsWith('.json')
      ? prdEntries(ref, planText(ref, bytes))
      : planEntries(ref, planText(ref, bytes));
  } catch (error) {
    if (error instanceof SourceError)
      throw new InputError(`${error.message}; nothing was imported`);
    throw error;
  }
}

/** Where an entry came from, in a few characters: `acme/app#12`, `ENG-12`, `plan.md:4`. */
function sourceRef(s: Source): string {
  if (s.kind === 'github' || s.kind === 'gitlab') return `${s.ref}#${s.number ?? '?'}`;
  if (s.kind === 'linear') return `${s.ref}-${s.number ?? '?'}`;
  return `${s.ref}${s.line === undefined ? '' : `:${s.line}`}${s.story === undefined ? '' : ` ${s.story}`}`;
}

const where = (item: Item) => (item.source === undefined ? '' : ` (${sourceRef(item.source)})`);

/** One line a step: what was (or would be) done. */
function stepLine(step: ImportStep, dryRun: boolean): string | undefined {
  const would = (done: string, doing: string) => (dryRun ? `would ${doing}` : done);
  switch (step.kind) {
    case 'add':
      return `${would('added', 'add')} ${step.item.id}: ${step.item.title}${where(step.item)}${step.item.dependsOn.length > 0 ? ` after ${step.item.dependsOn.join(', ')}` : ''}`;
    case 'update':
      return `${would('updated', 'update')} ${step.item.id}: ${step.fields.title}${where(step.item)}`;
    case 'cancel':
      return `${would('cancelled', 'cancel')} ${step.item.id}: ${step.item.title}${where(step.item)} — closed at its source`;
    case 'complete':
      return `${would('done', 'mark done')} ${step.item.id}: ${step.item.title}${where(step.item)} — done at its source`;
    case 'skip':
      return `${would('skipped', 'skip')} ${step.entry.title} (${sourceRef(step.entry.source)}) — ${step.reason}`;
    case 'keep':
      return undefined;
  }
}

/**
 * `ralph import <source>`: the open tasks of a markdown plan, the stories of a prd.json that
 * do not pass, or a GitHub repository's or GitLab project's open issues (by label, milestone,
 * assignee), as items.
 * A second import adds nothing it added before: it updates what still waits, and cancels what
 * its source closed.
 */
export async function importWorkCommand(
  root: string,
  source: string,
  options: Record<string, unknown>,
  output: Output,
  env: Readonly<Record<string, string | undefined>>,
): Promise<number> {
  for (const flag of ['body', 'file'])
    if (options[flag] !== undefined)
      throw new InputError(
        `--${flag}: an imported item's task text is its source's (the task's lines, the story, the issue)`,
        `--${flag}`,
      );
  const workspace = await openWorkspace(root);
  const now = Date.now();
  const untrusted = forgeSourceOf(source) !== undefined || LINEAR_SOURCE.test(source);
  const flags = await fieldsFromFlags(options, now);
  const defaults = untrusted ? untrustedDefaults(workspace, flags, flagOf) : flags;
  const dryRun = options.dryRun === true;
  const steps = await withQueue(workspace, env, async (queue) => {
    const items = await queue.list();
    const entries = await entriesOf(workspace, source, options, items, env);
    const planned = planImport(entries, items, {
      defaults,
      chain: options.chain === true,
      now,
      names: flagOf,
    });
    if (!dryRun)
      await applyImport(workspace, queue, planned, {
        untrusted,
        names: flagOf,
        searchPath: env.PATH,
        now,
      });
    return planned;
  });
  const lines = steps.flatMap((step) => stepLine(step, dryRun) ?? []);
  if (steps.length === 0)
    lines.push(
      untrusted
        ? `No open issue of ${source.slice(source.indexOf(':') + 1)} matches.`
        : `${source} holds no task: a plan's tasks are list items with a box ("- [ ] …"), a prd.json's its userStories.`,
    );
  const count = (kind: ImportStep['kind']) => steps.filter((s) => s.kind === kind).length;
  output.out(
    [
      ...lines,
      `${dryRun ? 'Would import' : 'Imported'} from ${source}: ${[
        `${count('add')} new`,
        `${count('update')} updated`,
        `${count('cancel')} cancelled`,
        ...(count('complete') > 0 ? [`${count('complete')} done at their source`] : []),
        ...(count('skip') > 0 ? [`${count('skip')} skipped`] : []),
        `${count('keep')} left as they are`,
      ].join(', ')}${dryRun ? ' (nothing was changed)' : ''}`,
    ].join('\n'),
  );
  return ExitCode.ok;
}
