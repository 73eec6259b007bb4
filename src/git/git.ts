import { AsyncLocalStorage } from 'node:async_hooks';
import { runCommand } from '../lib/command.js';

/** A git command that failed: its arguments and what it said. */
export class GitError extends Error {
  constructor(
    readonly args: readonly string[],
    readonly output: string,
  ) {
    super(`git ${args.join(' ')} failed: ${output.trim().split('\n').slice(-3).join(' ')}`);
    this.name = 'GitError';
  }
}

/** Long enough for a worktree of a large repository, short enough that a hung git is noticed. */
const GIT_TIMEOUT_MS = 120_000;

/** Git must never wait for a person: no prompts, no editor, no pager. */
const QUIET_GIT: Record<string, string> = {
  GIT_TERMINAL_PROMPT: '0',
  GIT_EDITOR: 'true',
  GIT_PAGER: 'cat',
  GIT_OPTIONAL_LOCKS: '0',
};

/**
 * The environment variable that marks the gits a runner starts, its value the workspace's root.
 * A runner killed with SIGKILL leaves its git running (its own process group): the next
 * runner finds it by this mark and ends it before touching a worktree.
 */
export const RUNNER_GIT_MARKER = 'RALPH_RUNNER_GIT';

const runnerOf = new AsyncLocalStorage<string>();

/** Runs `work` with every git it starts (however deep in the call) marked as the runner's. */
export function asRunnerOf<T>(root: string, work: () => Promise<T>): Promise<T> {
  return runnerOf.run(root, work);
}

/** Runs git in `cwd` (`input` on its stdin); returns its stdout, or throws a `GitError`. */
export async function git(
  cwd: string,
  args: readonly string[],
  env: Readonly<Record<string, string | undefined>> = process.env,
  input?: string,
): Promise<string> {
  const result = await runCommand({
    argv: ['git', ...args],
    input,
    cwd,
    env: { ...env, ...QUIET_GIT, ...runnerMark() },
    timeoutMs: GIT_TIMEOUT_MS,
    killGraceMs: 2_000,
    maxOutputBytes: 16 * 1024 * 1024,
  });
  if (result.code !== 0)
    throw new GitError(args, result.startError ?? (result.stderr || result.stdout || result.tail));
  return result.stdout;
}

function runnerMark(): Record<string, string> {
  const root = runnerOf.getStore();
  return root === undefined ? {} : { [RUNNER_GIT_MARKER]: root };
}

/** Runs git and says whether it exited 0 (for questions such as "does this ref exist"). */
export async function gitSucceeds(cwd: string, args: readonly string[]): Promise<boolean> {
  return git(cwd, args).then(
    () => true,
    () => false,
  );
}
