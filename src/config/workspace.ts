import path from 'node:path';
import { readIfExists, parseJsonText } from '../lib/fs.js';
import { InputError } from '../lib/errors.js';
import { formatIssues } from '../lib/validation.js';
import { ConfigSchema, type Config } from './schema.js';
import { lowOnSpace } from '../lib/disk.js';

/** Name of the workspace configuration file. */
export const CONFIG_FILE = 'ralph.config.json';

/** Every path of a workspace, resolved to absolute paths. */
export interface WorkspacePaths {
  root: string;
  config: string;
  bootstrap: string;
  agents: string;
  state: string;
  sessions: string;
  queue: string;
  currentSession: string;
  interruptFile: string;
  /** `ralph pause --after-current`: becomes the interrupt file when the running item ends. */
  pauseAfterCurrent: string;
  /** What the runner is waiting for (a usage limit, a run window, a backoff), while it waits. */
  waiting: string;
  budget: string;
  iterationLog: string;
  runnerLock: string;
  /** Where a malformed queue file is copied, beside the last valid queue, for the operator. */
  quarantine: string;
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

/** Resolves the paths of a workspace from its root and configuration. */
export function workspacePaths(root: string, config: Config): WorkspacePaths {
  const at = (p: string) => path.resolve(root, p);
  const state = at(config.paths.state);
  return {
    root,
    config: at(CONFIG_FILE),
    bootstrap: at(config.paths.bootstrap),
    agents: at(config.paths.agents),
    state,
    sessions: at(config.paths.sessions),
    queue: path.join(state, 'queue.json'),
    currentSession: path.join(state, 'current-session.json'),
    interruptFile: path.join(state, 'interrupt-request.txt'),
    pauseAfterCurrent: path.join(state, 'pause-after-current.txt'),
    waiting: path.join(state, 'waiting.json'),
    budget: path.join(state, 'budget.json'),
    iterationLog: path.join(state, 'iteration.log'),
    runnerLock: path.join(state, 'runner.lock'),
    quarantine: path.join(state, 'quarantine'),
  };
}

/** Validates configuration text; the error names the file and every bad key. */
export function parseConfig(text: string | undefined, file: string): Config {
  const raw = text === undefined ? {} : parseJsonText(text, file);
  const parsed = ConfigSchema.safeParse(raw);
  if (!parsed.success) throw new InputError(formatIssues(file, parsed.error));
  return parsed.data;
}

/** Loads the workspace at `root` (the configuration file is optional). */
export async function loadWorkspace(root: string): Promise<Workspace> {
  const absolute = path.resolve(root);
  const file = path.join(absolute, CONFIG_FILE);
  const config = parseConfig(await readIfExists(file), file);
  return { root: absolute, config, paths: workspacePaths(absolute, config) };
}
