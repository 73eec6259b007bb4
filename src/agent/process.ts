import fs from 'node:fs';
import { spawn } from 'node:child_process';
import { openExclusive } from '../lib/fs.js';
import type { Argv } from './argv.js';
import { findSessionProcesses, processStartTime, signalQuietly } from '../lib/procfs.js';
import { SESSION_MARKER } from './env.js';

/** How the agent process ended. */
export interface ExitStatus {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** A running agent: the leader of its own process group. */
export interface AgentChild {
  pid: number;
  /** Start time of the pid, so a later runner never signals a reused pid. */
  startTime?: string;
  /** Resolves on the leader's exit, not on 'close': a grandchild may hold stdio open. */
  exited: Promise<ExitStatus>;
  hasExited(): boolean;
  /** Its live stdin, for a CLI that reads a person's messages there while it runs. */
  input?: AgentInput;
}

/** An agent's live stdin: each line written reaches it while it runs and is kept in its file. */
export interface AgentInput {
  /** Writes `line` (appended to the input file too); false once the input is closed. */
  write(line: string): boolean;
  /** Closes it: the CLI ends once it has answered what it was given. */
  end(): void;
}

/** What to spawn and where its output goes. */
export interface SpawnRequest {
  argv: Argv;
  cwd: string;
  env: Record<string, string>;
  /** Regular files for stdout and stderr: through a pipe the CLI has been seen to exit before writing all it had. */
  stdoutFile: string;
  stderrFile: string;
  /** What to tell a person whose CLI is not found. */
  missingHint: string;
}

/** The result of a spawn: a running child, or why it could not start. */
export type SpawnResult =
  { ok: true; child: AgentChild } | { ok: false; code?: string; message: string };

/**
 * The one place that spawns an agent: argv (no shell), stdin from /dev/null (the CLI waits
 * for stdin otherwise), from the prompt file for a CLI that reads its prompt there, or a pipe
 * given the input file's lines and kept open (`live`), stdout and stderr into new regular
 * files, and its own process group (`detached`) so the whole group can be signalled.
 */
export async function spawnAgent(request: SpawnRequest): Promise<SpawnResult> {
  const stdout = openExclusive(request.stdoutFile);
  const stderr = openExclusive(request.stderrFile);
  let stdin: number | undefined;
  try {
    const { stdinFile, live } = request.argv;
    if (stdinFile !== undefined && live !== true) stdin = fs.openSync(stdinFile, 'r');
    // node's spawn, not execa: the output goes straight into files, so there is nothing to
    // buffer or pipe, and the environment must be exactly the filtered one.
    const subprocess = spawn(request.argv.file, request.argv.args, {
      cwd: request.cwd,
      env: request.env,
      stdio: [live === true ? 'pipe' : (stdin ?? 'ignore'), stdout, stderr],
      detached: true,
      shell: false,
    });
    let done = false;
    const exited = new Promise<ExitStatus>((resolve) => {
      subprocess.once('exit', (code, signal) => {
        done = true;
        resolve({ code, signal });
      });
    });
    const started = await new Promise<{ ok: true } | { ok: false; error: NodeJS.ErrnoException }>(
      (resolve) => {
        subprocess.once('spawn', () => resolve({ ok: true }));
        subprocess.once('error', (error: NodeJS.ErrnoException) => resolve({ ok: false, error }));
      },
    );
    if (!started.ok || subprocess.pid === undefined) {
      const error = started.ok ? undefined : started.error;
      return {
        ok: false,
        code: error?.code,
        message:
          error?.code === 'ENOENT'
            ? `${request.argv.file}: command not found (${request.missingHint})`
            : `could not start ${request.argv.file}: ${error?.message ?? 'no pid'}`,
      };
    }
    const pid = subprocess.pid;
    return {
      ok: true,
      child: {
        pid,
        startTime: await processStartTime(pid),
        exited,
        hasExited: () => done,
        input:
          live === true && stdinFile !== undefined && subprocess.stdin !== null
            ? liveInput(subprocess.stdin, stdinFile)
            : undefined,
      },
    };
  } finally {
    fs.closeSync(stdout);
    fs.closeSync(stderr);
    if (stdin !== undefined) fs.closeSync(stdin);
  }
}

/** The agent's stdin pipe, given the input file's lines now and each line written later. */
function liveInput(pipe: NodeJS.WritableStream, file: string): AgentInput {
  let open = true;
  // An agent that exits (or closes its stdin) before reading all is not an error of ralph's.
  pipe.on('error', () => {
    open = false;
  });
  pipe.write(fs.readFileSync(file));
  return {
    write: (line) => {
      if (!open) return false;
      fs.appendFileSync(file, line);
      pipe.write(line);
      return true;
    },
    end: () => {
      if (!open) return;
      open = false;
      pipe.end();
    },
  };
}

/** Graces of the stop ladder, in milliseconds. */
export interface StopGraces {
  afterInterrupt: number;
  afterTerminate: number;
}

// Referenced timers: during a reap they may be all that keeps the runner's event loop alive.
const wait = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** `promise`, or nothing after `ms`; the timer is cleared so it never holds the process. */
async function orTimeout(promise: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([promise, new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}

/**
 * Stops an agent: SIGINT to its group, then SIGTERM, then SIGKILL, each after its grace unless
 * the leader has exited. Returns the last signal that was needed.
 */
export async function stopAgent(
  child: AgentChild,
  graces: StopGraces,
  options: { force?: boolean } = {},
): Promise<NodeJS.Signals | undefined> {
  const ladder: [NodeJS.Signals, number][] = options.force
    ? [['SIGKILL', 0]]
    : [
        ['SIGINT', graces.afterInterrupt],
        ['SIGTERM', graces.afterTerminate],
        ['SIGKILL', 0],
      ];
  let last: NodeJS.Signals | undefined;
  for (const [signal, grace] of ladder) {
    if (child.hasExited()) break;
    signalQuietly(-child.pid, signal);
    last = signal;
    if (signal === 'SIGKILL') break;
    await orTimeout(child.exited, grace);
  }
  if (!child.hasExited()) await child.exited;
  return last;
}

/**
 * Leaves nothing of a session alive: the rest of its process group, then every process that
 * carries the session's marker (the CLI runs tool commands in their own session and group,
 * out of reach of a group kill). SIGTERM first, SIGKILL after the grace. Returns the pids that
 * had to be killed. `since` is the start time of the session's CLI when known (see
 * `findSessionProcesses`).
 */
export function reapSession(
  groupId: number | undefined,
  sessionId: string,
  graceMs: number,
  since?: string,
): Promise<number[]> {
  return reapMarked(groupId, { name: SESSION_MARKER, value: sessionId }, graceMs, since);
}

/**
 * Leaves nothing alive of a process group and of every process carrying `marker` in its
 * environment (those started since `since`, when given): SIGTERM first, SIGKILL after the
 * grace. Returns the pids that had to be killed.
 */
export async function reapMarked(
  groupId: number | undefined,
  marker: { name: string; value: string },
  graceMs: number,
  since?: string,
): Promise<number[]> {
  const find = () => findSessionProcesses(groupId, marker, since);
  let survivors = await find();
  if (survivors.length === 0) return [];
  const found = survivors;
  for (const pid of survivors) signalQuietly(pid, 'SIGTERM');
  const deadline = Date.now() + graceMs;
  while (survivors.length > 0 && Date.now() < deadline) {
    await wait(50);
    survivors = await find();
  }
  for (const pid of survivors) signalQuietly(pid, 'SIGKILL');
  // Gone before this returns: whoever called may now touch what they were working on.
  const killDeadline = Date.now() + 5_000;
  while (survivors.length > 0 && Date.now() < killDeadline) {
    await wait(20);
    survivors = await find();
  }
  return found;
}

/**
 * Runs a short command of the agent's CLI (`claude --version`) to its end and returns its
 * stdout: argv (no shell), its own process group, killed with the group past `timeoutMs`.
 */
export function runToEnd(
  file: string,
  args: readonly string[],
  options: { env: Record<string, string | undefined>; timeoutMs: number },
): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, {
      env: options.env,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
      shell: false,
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      if (stdout.length < 64 * 1024) stdout += chunk;
    });
    // The end of what it said, for the reason of a failure.
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr = (stderr + chunk).slice(-4096);
    });
    const timer = setTimeout(() => {
      if (child.pid !== undefined) signalQuietly(-child.pid, 'SIGKILL');
    }, options.timeoutMs);
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      const said = stderr.trim().split('\n').slice(-2).join(' | ');
      if (code === 0) resolve(stdout);
      else
        reject(
          new Error(`exited with ${signal ?? `code ${code}`}${said === '' ? '' : `: ${said}`}`),
        );
    });
  });
}

/**
 * Runs the agent on this terminal for a person (`ralph replay --exec`): argv (no shell), stdin
 * closed, output to the terminal, in the terminal's process group so that Ctrl-C reaches it;
 * whatever of its session is left when it exits is reaped. Resolves with its exit status.
 */
export function runOnTerminal(
  argv: Argv,
  options: { cwd: string; env: Record<string, string>; sessionId: string; killGraceMs: number },
): Promise<ExitStatus | { error: NodeJS.ErrnoException }> {
  return new Promise((resolve) => {
    let stdin: number | undefined;
    try {
      if (argv.stdinFile !== undefined) stdin = fs.openSync(argv.stdinFile, 'r');
    } catch (error) {
      resolve({ error: error as NodeJS.ErrnoException });
      return;
    }
    const child = spawn(argv.file, argv.args, {
      cwd: options.cwd,
      env: options.env,
      stdio: [stdin ?? 'ignore', 'inherit', 'inherit'],
      shell: false,
    });
    if (stdin !== undefined) fs.closeSync(stdin);
    child.once('error', (error: NodeJS.ErrnoException) => resolve({ error }));
    child.once('exit', (code, signal) => {
      void reapSession(undefined, options.sessionId, options.killGraceMs).then(() =>
        resolve({ code, signal }),
      );
    });
  });
}
