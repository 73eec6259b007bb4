import fsp from 'node:fs/promises';
import type { Workspace } from '../config/workspace.js';
import { personaFile } from '../persona/file.js';
import { parsePersona } from '../persona/persona.js';
import { InputError } from '../lib/errors.js';
import { MAX_BODY_CHARS } from '../prompt/assemble.js';
import { MAX_CRITERIA, MAX_CRITERION_CHARS, MAX_TITLE_CHARS, type Item } from '../queue/item.js';
import type { Queue } from '../queue/queue.js';
import type { SourcedFields } from '../queue/transitions.js';
import type { SourceEntry } from '../sources/entry.js';
import { checkDependencies, checkRunnable, validateItem, type FieldNames } from './admission.js';
import { appliesTo } from '../queue/lifecycle.js';

/** What an import does with one entry of its source. */
export type ImportStep =
  | { kind: 'add'; item: Item }
  | { kind: 'update'; item: Item; fields: SourcedFields }
  | { kind: 'cancel'; item: Item }
  /** Done at its source (a ticked box, a passing story, an issue closed as completed). */
  | { kind: 'complete'; item: Item }
  /** Not taken: its author is not trusted (`import.trust`). */
  | { kind: 'skip'; entry: SourceEntry; reason: string }
  /** Nothing to do: unchanged, not waiting any more (running, done…), or closed and never taken. */
  | { kind: 'keep'; entry: SourceEntry; item?: Item };

export interface ImportOptions {
  /** Fields every new item gets (`ralph add`'s flags), under the entry's own. */
  defaults: Partial<Item>;
  /** Each new item depends on the open entry before it. */
  chain: boolean;
  now: number;
  names: FieldNames;
}

/** Characters and marks that make a line read otherwise than it is: gone from imported titles. */
const UNSAFE_IN_TITLE = /[\p{Cc}\u2028\u2029\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]/gu;

/** An issue's title made a title ralph takes: one line, at most its length. */
function titleOf(title: string): string {
  const line = title.replace(UNSAFE_IN_TITLE, ' ').replace(/\s+/g, ' ').trim();
  const chars = [...line];
  return chars.length <= MAX_TITLE_CHARS
    ? line
    : `${chars.slice(0, MAX_TITLE_CHARS - 1).join('')}…`;
}

/** A text a prompt can hold; a longer one is cut, saying where the whole is. */
function bodyOf(entry: SourceEntry): string {
  if (entry.body.length <= MAX_BODY_CHARS) return entry.body;
  const where =
    entry.source.url ??
    `${entry.source.ref}${entry.source.line === undefined ? '' : `:${entry.source.line}`}`;
  const note = `\n\n…(cut: ${entry.body.length - MAX_BODY_CHARS + 200} more characters; the whole text is at ${where})`;
  return entry.body.slice(0, MAX_BODY_CHARS - 200) + note;
}

/** An id not taken: the entry's own, else with `-2`, `-3`… */
function freeId(wanted: string, taken: Set<string>): string {
  let id = wanted.slice(0, 90);
  for (let n = 2; taken.has(id); n++) id = `${wanted.slice(0, 90)}-${n}`;
  taken.add(id);
  return id;
}

const fieldsOf = (entry: SourceEntry, item: Item): SourcedFields => ({
  title: titleOf(entry.title),
  body: entry.body === '' ? undefined : bodyOf(entry),
  priority: entry.priority ?? item.priority,
  vars: { ...item.vars, ...entry.vars },
  criteria: criteriaOf(entry),
});

/** The entry's criteria, as many as an item takes (the source keeps the rest). */
const criteriaOf = (entry: SourceEntry): string[] | undefined =>
  entry.criteria === undefined || entry.criteria.length === 0
    ? undefined
    : entry.criteria.slice(0, MAX_CRITERIA).map((c) => c.slice(0, MAX_CRITERION_CHARS));

const sameFields = (a: SourcedFields, b: SourcedFields) =>
  a.title === b.title &&
  a.body === b.body &&
  a.priority === b.priority &&
  JSON.stringify(a.vars) === JSON.stringify(b.vars) &&
  JSON.stringify(a.criteria) === JSON.stringify(b.criteria);

/**
 * What importing `entries` into a queue holding `items` does, entry by entry: a new open entry
 * is added, one already imported is updated while it waits (or cancelled once its source
 * closed it), anything else is kept as it is. A second import of the same source adds nothing.
 */
export function planImport(
  entries: readonly SourceEntry[],
  items: readonly Item[],
  options: ImportOptions,
): ImportStep[] {
  const byKey = new Map<string, Item>();
  for (const item of items) if (item.source !== undefined) byKey.set(item.source.key, item);
  const taken = new Set(items.map((i) => i.id));
  const stamp = new Date(options.now).toISOString();
  // Each new entry's id, known before any is made: an entry may wait for one listed after it.
  const idOf = new Map<string, string>();
  for (const item of items) if (item.source !== undefined) idOf.set(item.source.key, item.id);
  for (const entry of entries)
    if (!idOf.has(entry.source.key) && entry.state === 'open' && entry.skip === undefined)
      idOf.set(entry.source.key, freeId(entry.id, taken));
  const waitsFor = (entry: SourceEntry) =>
    (entry.after ?? []).flatMap((key) => {
      const id = idOf.get(key);
      return id === undefined ? [] : [id];
    });
  let previous: string | undefined;
  return entries.map((entry): ImportStep => {
    const known = byKey.get(entry.source.key);
    if (known !== undefined) {
      if (entry.state !== 'dropped') previous = known.id;
      if (!appliesTo('source_updated', known.status)) return { kind: 'keep', entry, item: known };
      if (entry.state === 'done') return { kind: 'complete', item: known };
      if (entry.state === 'dropped') return { kind: 'cancel', item: known };
      const fields = fieldsOf(entry, known);
      return sameFields(fields, known)
        ? { kind: 'keep', entry, item: known }
        : { kind: 'update', item: known, fields };
    }
    if (entry.state !== 'open') return { kind: 'keep', entry };
    if (entry.skip !== undefined) return { kind: 'skip', entry, reason: entry.skip };
    const { defaults } = options;
    const item = validateItem(
      {
        ...defaults,
        id: idOf.get(entry.source.key) ?? freeId(entry.id, taken),
        title: titleOf(entry.title),
        body: entry.body === '' ? undefined : bodyOf(entry),
        priority: entry.priority ?? defaults.priority ?? 0,
        vars: { ...defaults.vars, ...entry.vars },
        criteria: criteriaOf(entry) ?? defaults.criteria,
        dependsOn: [
          ...new Set([
            ...(defaults.dependsOn ?? []),
            ...(options.chain && previous !== undefined ? [previous] : []),
            ...waitsFor(entry),
          ]),
        ],
        source: entry.source,
        createdAt: stamp,
        updatedAt: stamp,
      },
      `${entry.source.ref}: ${entry.title}`,
      options.names,
    );
    previous = item.id;
    return { kind: 'add', item };
  });
}

/**
 * Work written by anyone runs under `import.persona`, or the workspace's allowlist: never with
 * permission checks off, whatever the defaults say.
 */
export function untrustedDefaults(
  workspace: Workspace,
  defaults: Partial<Item>,
  names: FieldNames,
): Partial<Item> {
  if (defaults.permissionMode === 'bypassPermissions')
    throw new InputError(
      `${names('permissionMode')} bypassPermissions: issues are written by anyone, so an item imported from one never runs with permission checks off`,
      names('permissionMode'),
    );
  const agent = defaults.agent ?? workspace.config.import.persona;
  const bypassed = workspace.config.defaults.permissionMode === 'bypassPermissions';
  return {
    ...defaults,
    ...(agent === undefined ? {} : { agent }),
    // The workspace's allowlist, not its bypass: a persona's own mode is checked at admission.
    ...(bypassed && defaults.permissionMode === undefined ? { permissionMode: 'dontAsk' } : {}),
  };
}

/**
 * Carries out an import's steps: every new item checked as `ralph add` checks it, then added
 * all at once (an id taken meanwhile refuses the whole batch), then the updates and cancels.
 */
export async function applyImport(
  workspace: Workspace,
  queue: Queue,
  steps: readonly ImportStep[],
  options: { untrusted: boolean; names: FieldNames; searchPath: string | undefined; now: number },
): Promise<void> {
  const added = steps.flatMap((s) => (s.kind === 'add' ? [s.item] : []));
  for (const item of added) await checkRunnable(workspace, item, options.names, options.searchPath);
  if (options.untrusted)
    for (const agent of new Set(added.flatMap((i) => (i.agent === undefined ? [] : [i.agent]))))
      await refuseBypassPersona(workspace, agent);
  if (added.length > 0) {
    const closure = await queue.dependencyClosure(added.flatMap((i) => i.dependsOn));
    for (const item of added) checkDependencies(item, [...closure, ...added], options.names);
    await queue.importItems(added);
  }
  for (const step of steps) {
    if (step.kind === 'update')
      await queue.apply(step.item.id, {
        kind: 'source_updated',
        fields: step.fields,
        now: options.now,
      });
    if (step.kind === 'cancel')
      await queue.apply(step.item.id, { kind: 'closed_at_source', now: options.now });
    if (step.kind === 'complete')
      await queue.apply(step.item.id, { kind: 'done_at_source', now: options.now });
  }
}

/** A persona that turns permission checks off is no place for an issue's text. */
async function refuseBypassPersona(workspace: Workspace, agent: string): Promise<void> {
  const file = personaFile(workspace.paths.agents, agent);
  const persona = parsePersona(agent, file, await fsp.readFile(file, 'utf8'));
  if (persona.settings.permissionMode === 'bypassPermissions')
    throw new InputError(
      `import.persona ${agent}: its permissionMode is bypassPermissions, and issues are written by anyone: give imported issues a persona with an allowlist`,
      'import.persona',
    );
}
