import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { Gate } from './config-schema.js';
import { runCommand, type CommandResult } from '../lib/command.js';
import { gateEndLine } from '../lib/gate-log.js';

/** How one gate ended. */
export interface GateResult {
  name: string;
  command: string[];
  passed: boolean;
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  durationMs: number;
  /** Bytes of output (past the cap, the rest was dropped from the log). */
  outputBytes: number;
}

/** The gates of one session: each one's result, and the first failure for the next prompt. */
export interface GatesRun {
  results: GateResult[];
  /** The failing gate's command and the end of its output (undefined when all passed). */
  failure?: string;
  /** One line saying how the failing gate failed: `gate "test" failed: exit 1`. */
  verdict?: string;
  /** The run was stopped (the runner is shutting down) before the gates could decide. */
  stopped: boolean;
  /** The failing gate could not be started at all (its program is missing). */
  unstartable?: boolean;
}

export interface GatesRequest {
  cwd: string;
  env: Readonly<Record<string, string>>;
  /** `<session>-gates.log`: every gate's command and output. */
  logFile: string;
  killGraceMs: number;
  maxOutputBytes: number;
  signal?: AbortSignal;
  onStart?: (gate: Gate) => void;
  onEnd?: (result: GateResult) => void;
  /** What its commands are called in the log and the failure (default: a quality gate). */
  kind?: { short: string; long: string };
  /** Puts a gate's command in a sandbox: how to start it there, or why it cannot be. */
  enter?: (command: readonly string[]) => Promise<EnteredGate | { problem: string }>;
}

/** A gate's command as started in its sandbox. */
export interface EnteredGate {
  command: string[];
  env: Record<string, string>;
  close(): Promise<void>;
}

const isExecutableFile = (file: string) =>
  fsp.stat(file).then(
    async (stat) =>
      stat.isFile() &&
      (await fsp.access(file, fs.constants.X_OK).then(
        () => true,
        () => false,
      )),
    () => false,
  );

/**
 * Where a gate's program is, or why it cannot be started: a name is looked up in `searchPath`
 * as the gate's spawn will, a path (with a `/`) taken from the work dir. Checked when an item is
 * added and before its agent is paid for, not found at 2 a.m. after the session.
 */
export async function locateGateProgram(
  gate: Pick<Gate, 'name' | 'command'>,
  cwd: string,
  searchPath: string | undefined,
): Promise<{ file: string } | { problem: string }> {
  const program = gate.command[0];
  if (program === undefined || program === '')
    return { problem: `gate "${gate.name}" has no command` };
  if (program.includes('/')) {
    const file = path.resolve(cwd, program);
    return (await isExecutableFile(file))
      ? { file }
      : { problem: `gate "${gate.name}": ${file} is not an executable file` };
  }
  for (const dir of (searchPath ?? '').split(path.delimiter).filter((d) => d !== '')) {
    const file = path.join(path.resolve(cwd, dir), program);
    if (await isExecutableFile(file)) return { file };
  }
  return { problem: `gate "${gate.name}": no program ${JSON.stringify(program)} on the PATH` };
}

/** Why a gate's program cannot be started, or undefined when it can. */
export async function gateProgramProblem(
  gate: Pick<Gate, 'name' | 'command'>,
  cwd: string,
  searchPath: string | undefined,
): Promise<string | undefined> {
  const found = await locateGateProgram(gate, cwd, searchPath);
  return 'problem' in found ? found.problem : undefined;
}

/** Characters of a failing gate's output given to the next attempt. */
const FAILURE_TAIL_CHARS = 2000;

/** How a gate ended, in a few words: `exit 1`, `timed out after 600 s`, `killed by SIGKILL`. */
export function gateVerdict(
  result: Pick<GateResult, 'timedOut' | 'signal' | 'exitCode'>,
  timeoutSeconds?: number,
): string {
  if (result.timedOut)
    return timeoutSeconds === undefined ? 'timed out' : `timed out after ${timeoutSeconds} s`;
  if (result.signal !== null) return `killed by ${result.signal}`;
  return `exit ${result.exitCode}`;
}

/** The result of a gate that could not be started at all. */
function unstarted(problem: string): CommandResult {
  return {
    code: null,
    signal: null,
    timedOut: false,
    stopped: false,
    startError: problem,
    stdout: '',
    stderr: '',
    tail: problem,
    bytes: 0,
    capped: false,
    durationMs: 0,
  };
}

/**
 * Runs the gates one after another in the work dir, each in its own process group with its
 * own timeout, their output into the log file; stops at the first that fails.
 */
export async function runGates(gates: readonly Gate[], request: GatesRequest): Promise<GatesRun> {
  const results: GateResult[] = [];
  const kind = request.kind ?? { short: 'gate', long: 'quality gate' };
  for (const gate of gates) {
    request.onStart?.(gate);
    fs.appendFileSync(
      request.logFile,
      `$ ${JSON.stringify(gate.command)}  (${kind.short} "${gate.name}", timeout ${gate.timeout} s)\n`,
      { mode: 0o600 },
    );
    const entered: EnteredGate | { problem: string } =
      request.enter === undefined
        ? { command: gate.command, env: { ...request.env }, close: () => Promise.resolve() }
        : await request.enter(gate.command);
    const ran =
      'problem' in entered
        ? unstarted(entered.problem)
        : await runCommand({
            argv: entered.command,
            cwd: request.cwd,
            env: entered.env,
            timeoutMs: gate.timeout * 1000,
            killGraceMs: request.killGraceMs,
            logFile: request.logFile,
            maxOutputBytes: request.maxOutputBytes,
            signal: request.signal,
          }).finally(() => entered.close());
    const result: GateResult = {
      name: gate.name,
      command: gate.command,
      passed: ran.code === 0 && !ran.timedOut && !ran.stopped,
      exitCode: ran.code,
      signal: ran.signal,
      timedOut: ran.timedOut,
      durationMs: ran.durationMs,
      outputBytes: ran.bytes,
    };
    const verdict = ran.startError ?? gateVerdict(result, gate.timeout);
    fs.appendFileSync(
      request.logFile,
      `\n${gateEndLine(kind.short, { ...result, verdict, durationMs: ran.durationMs })}\n\n`,
    );
    results.push(result);
    request.onEnd?.(result);
    if (ran.stopped) return { results, stopped: true };
    if (!result.passed) {
      const tail = ran.tail.slice(-FAILURE_TAIL_CHARS).trimEnd();
      const failure = [
        `The ${kind.long} "${gate.name}" (${JSON.stringify(gate.command)}) failed: ${verdict}.`,
        tail === '' ? 'It printed nothing.' : `The end of its output:\n${tail}`,
      ].join('\n');
      return {
        results,
        failure,
        verdict: `${kind.short} "${gate.name}" failed: ${verdict}`,
        stopped: false,
        unstartable: ran.startError !== undefined,
      };
    }
  }
  return { results, stopped: false };
}
