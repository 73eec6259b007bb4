import { credentialsOf } from '../agent/availability.js';
import { which } from '../lib/which.js';
import { resolveSandbox, resolveSettings } from '../agent/settings.js';
import { cliNamed, commandOf, missingHint } from '../agent/clis/index.js';
import type { CliName } from '../config/cli-names.js';
import { cliOfFallback } from '../agent/config-schema.js';
import type { Workspace } from '../config/workspace.js';
import type { FileCache } from '../lib/file-cache.js';
import { statusIs } from '../queue/item-status.js';
import type { Item } from '../queue/item.js';
import { resolveSession } from './prepare.js';

/** A fallback CLI, with the first unfinished item (or the workspace) that names it. */
export interface FallbackInUse {
  cli: CliName;
  namedFor: string;
}

/**
 * The CLIs the unfinished items may fall back on, as each item's settings resolve (its own, its
 * persona's, the workspace's), and the workspace's own list even with no item waiting.
 */
export async function fallbackClisInUse(
  workspace: Workspace,
  items: readonly Item[],
  cache: FileCache,
): Promise<FallbackInUse[]> {
  const found = new Map<CliName, string>();
  for (const choice of workspace.config.defaults.fallback?.clis ?? [])
    found.set(cliOfFallback(choice), 'defaults.fallback');
  for (const item of items) {
    if (statusIs(item.status, 'finished')) continue;
    const resolved = await resolveSession({ workspace, item, cache });
    if ('reason' in resolved) continue;
    for (const { cli } of resolved.fallback.clis)
      if (!found.has(cli)) found.set(cli, `item ${item.id}`);
  }
  return [...found].map(([cli, namedFor]) => ({ cli, namedFor }));
}

/** A CLI the unfinished items will run on: who names it, and the items it alone can run. */
export interface CliInUse {
  cli: CliName;
  namedFor: string;
  /** The items whose own CLI it is, with no other to fall back on. */
  onlyFor: string[];
}

/** The CLIs the unfinished items run on (their own, as their settings resolve) and fall back on. */
export async function clisInUse(
  workspace: Workspace,
  items: readonly Item[],
  cache: FileCache,
): Promise<CliInUse[]> {
  const found = new Map<CliName, CliInUse>();
  const use = (cli: CliName, namedFor: string) => {
    const known = found.get(cli) ?? { cli, namedFor, onlyFor: [] };
    found.set(cli, known);
    return known;
  };
  for (const item of items) {
    if (statusIs(item.status, 'finished')) continue;
    const resolved = await resolveSession({ workspace, item, cache });
    if ('reason' in resolved) continue;
    const own = use(resolved.settings.cli, `item ${item.id}`);
    if (resolved.fallback.clis.length === 0) own.onlyFor.push(item.id);
  }
  for (const { cli, namedFor } of await fallbackClisInUse(workspace, items, cache))
    use(cli, namedFor);
  return [...found.values()];
}

/**
 * Why a fallback CLI could not take over at 3 a.m.: not installed or unable to run in ralph's
 * sandbox (a refusal), or no login seen.
 */
export function fallbackProblem(
  workspace: Workspace,
  { cli, namedFor }: FallbackInUse,
  env: Readonly<Record<string, string | undefined>>,
): { refuse: boolean; problem: string } | undefined {
  const [command] = commandOf(workspace.config, cli);
  if (command === undefined || which(command, env.PATH) === undefined)
    return {
      refuse: true,
      problem: `the fallback CLI ${cli} (${namedFor}) is not installed: ${command ?? '(empty command)'} not found; ${missingHint(cli)}`,
    };
  const config = workspace.config;
  if (resolveSandbox(config, []).kind !== 'none') {
    const settings = resolveSettings(config.defaults, [{ cli }], (p) => p);
    const refusal = cliNamed(cli).sandbox.refusal?.(settings);
    if (refusal !== undefined)
      return {
        refuse: true,
        problem: `the fallback CLI ${cli} (${namedFor}) cannot run in ralph's sandbox: ${refusal}`,
      };
  }
  const credentials = credentialsOf(cliNamed(cli), env);
  if (credentials.kind === 'none')
    return {
      refuse: false,
      problem: `the fallback CLI ${cli} (${namedFor}) may not log in: ${credentials.problem}`,
    };
  return undefined;
}
