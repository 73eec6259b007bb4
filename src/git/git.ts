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

/** Runs git in `cwd`; returns its stdout, or throws a `GitError`. */
export async function git(
  cwd: string,
  args: readonly string[],
  env: Readonly<Record<string, string | undefined>> = process.env,
): Promise<string> {
  const result = await runCommand({
    argv: ['git', ...args],
    cwd,
    env: { ...env, ...QUIET_GIT },
    timeoutMs: GIT_TIMEOUT_MS,
    killGraceMs: 2_000,
    maxOutputBytes: 16 * 1024 * 1024,
  });
  if (result.code !== 0)
    throw new GitError(args, result.startError ?? (result.stderr || result.stdout || result.tail));
  return result.stdout;
}

/** Runs git and says whether it exited 0 (for questions such as "does this ref exist"). */
export async function gitSucceeds(cwd: string, args: readonly string[]): Promise<boolean> {
  return git(cwd, args).then(
    () => true,
    () => false,
  );
}
