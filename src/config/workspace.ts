import fsp from 'node:fs/promises';
import path from 'node:path';
import { digest } from '../lib/digest.js';
import { InputError } from '../lib/errors.js';
import { isWithin, parseJsonText, readIfExists, writeJsonAtomically } from '../lib/fs.js';
import { formatIssues } from '../lib/validation.js';
import { lowOnSpace } from '../lib/disk.js';
import { CONFIG_FILE } from './config-file.js';
import type { Config } from './schema.js';

/** Every path of a workspace, resolved to absolute paths. */
export interface WorkspacePaths {
  root: string;
  config: string;
  bootstrap: string;
  /** The template of the standing instructions of every session's system prompt. */
  instructions: string;
  agents: string;
  state: string;
  sessions: string;
  queue: string;
  /** One record per running session (`<session id>.json`). */
  running: string;
  /** A person's requests to stop one running item (`ralph stop`), one file an item. */
  stopRequests: string;
  /** Git mode's worktrees, one directory per item. */
  worktrees: string;
  interruptFile: string;
  /** `ralph pause --after-current`: becomes the interrupt file when the running item ends. */
  pauseAfterCurrent: string;
  /** What the runner is waiting for (a usage limit, a run window, a backoff), while it waits. */
  waiting: string;
  /** The agent CLIs the runner holds back (a usage limit, the reserve), while it holds any. */
  holds: string;
  budget: string;
  /** The night plan made as the last run started: `ralph report` holds the night to it. */
  plan: string;
  iterationLog: string;
  /** A person's decisions on items' work, one JSON line each, written before they take effect. */
  decisions: string;
  runnerLock: string;
  /** Where a malformed queue file is copied, beside the last valid queue, for the operator. */
  quarantine: string;
  /** Notifications and write-backs to deliver (`<id>.json`), and those delivered (`sent/`). */
  outbox: string;
}

/** A loaded workspace: its root, validated configuration and paths. */
export interface Workspace {
  root: string;
  config: Config;
  paths: WorkspacePaths;
}

/**
 * Why the workspace's state and archive file systems are too full to go on (below
 * `run.minFreeBytes`), or undefined when they are not.
 */
export function workspaceLowOnSpace(workspace: Workspace): string | undefined {
  const { paths, config } = workspace;
  return lowOnSpace([paths.state, paths.sessions], config.run.minFreeBytes);
}

/** Where git mode keeps an item's worktree. */
export function itemWorktree(paths: WorkspacePaths, itemId: string): string {
  return path.join(paths.worktrees, itemId);
}

/** Resolves the paths of a workspace from its root and configuration. */
export function workspacePaths(root: string, config: Config): WorkspacePaths {
  const at = (p: string) => path.resolve(root, p);
  const state = at(config.paths.state);
  return {
    root,
    config: at(CONFIG_FILE),
    bootstrap: at(config.paths.bootstrap),
    instructions: at(config.paths.instructions),
    agents: at(config.paths.agents),
    state,
    sessions: at(config.paths.sessions),
    queue: path.join(state, 'queue.json'),
    running: path.join(state, 'running'),
    stopRequests: path.join(state, 'stop'),
    worktrees: at(config.paths.worktrees),
    interruptFile: path.join(state, 'interrupt-request.txt'),
    pauseAfterCurrent: path.join(state, 'pause-after-current.txt'),
    waiting: path.join(state, 'waiting.json'),
    holds: path.join(state, 'holds.json'),
    budget: path.join(state, 'budget.json'),
    plan: path.join(state, 'plan.json'),
    iterationLog: path.join(state, 'iteration.log'),
    decisions: path.join(state, 'decisions.jsonl'),
    runnerLock: path.join(state, 'runner.lock'),
    quarantine: path.join(state, 'quarantine'),
    outbox: path.join(state, 'outbox'),
  };
}

/** Validates configuration text; the error names the file and every bad key. */
export async function parseConfig(text: string | undefined, file: string): Promise<Config> {
  const raw = text === undefined ? {} : parseJsonText(text, file);
  const { ConfigSchema } = await import('./schema.js');
  const parsed = ConfigSchema.safeParse(raw);
  if (!parsed.success) throw new InputError(formatIssues(file, parsed.error));
  return parsed.data;
}

/** The validated configuration, kept in the state directory, for commands that start often. */
interface ConfigCache {
  key: string;
  config: Config;
}

/** Where the cache goes: the state directory the text names (not yet validated) or the default. */
function cacheFileOf(root: string, text: string | undefined): string {
  let state: unknown;
  try {
    state = (JSON.parse(text ?? '{}') as { paths?: { state?: unknown } }).paths?.state;
  } catch {
    // Invalid JSON: validation says so, and nothing is cached.
  }
  return path.join(root, typeof state === 'string' ? state : 'state', '.config-cache.json');
}

/**
 * Validation loads the whole schema library, which costs most of a short command's start-up.
 * Its result is kept for the same configuration text and the same build of the schema (its
 * module file's size and time), so `ralph status` in a watch loop validates once.
 */
async function cacheKey(text: string | undefined): Promise<string> {
  // schema.js once built, schema.ts when run from the sources; named from the directory above,
  // which holds both this module's directory and the bundles' (dist/main, dist/quick).
  const ext = path.extname(new URL(import.meta.url).pathname);
  const schema = await fsp.stat(new URL(`../config/schema${ext}`, import.meta.url));
  return digest(`${schema.size}:${schema.mtimeMs}\0${text ?? ''}`);
}

async function cachedConfig(root: string, text: string | undefined, file: string): Promise<Config> {
  const cacheFile = cacheFileOf(root, text);
  const key = await cacheKey(text);
  try {
    const cache = JSON.parse(await fsp.readFile(cacheFile, 'utf8')) as ConfigCache;
    if (cache.key === key) return cache.config;
  } catch {
    // No cache, or a broken one: validate.
  }
  const config = await parseConfig(text, file);
  // Only into a state directory that is there (never created here, never through a link) and
  // is this user's, and only as an optimisation: not flushed to disk, as a cache a machine crash
  // lost or cut short only costs one validation.
  const state = await fsp.lstat(path.dirname(cacheFile)).catch(() => undefined);
  if (state?.isDirectory() === true && state.uid === process.getuid?.())
    await writeJsonAtomically(cacheFile, { key, config } satisfies ConfigCache, {
      durable: false,
    }).catch(() => undefined);
  return config;
}

/** Loads the workspace at `root` (the configuration file is optional). */
export async function loadWorkspace(root: string): Promise<Workspace> {
  const absolute = path.resolve(root);
  const file = path.join(absolute, CONFIG_FILE);
  const config = await cachedConfig(absolute, await readIfExists(file), file);
  return { root: absolute, config, paths: workspacePaths(absolute, config) };
}

/**
 * Why `workDir` may not be an agent's work dir: none was named (the agent would work in the
 * workspace), or it holds the workspace, or it lies in the workspace's state or archive. The
 * workspace's state is never the agent's to reach.
 */
export function workDirProblem(
  paths: WorkspacePaths,
  workDir: string | undefined,
): string | undefined {
  const fix =
    'name the project: "defaults.workDir" in ralph.config.json (`ralph init <workspace> --project <repo>` writes it), or the item\'s --work-dir';
  if (workDir === undefined)
    return `no project is named, and the agent would work in the workspace ${paths.root}, beside ralph's state: ${fix}`;
  if (isWithin(paths.root, workDir))
    return `work dir ${workDir} holds the workspace ${paths.root}, and the agent would reach ralph's state: keep the workspace outside the project, and ${fix}`;
  for (const inside of [paths.state, paths.sessions])
    if (isWithin(workDir, inside))
      return `work dir ${workDir} is in the workspace's ${path.basename(inside)}: ${fix}`;
  return undefined;
}
