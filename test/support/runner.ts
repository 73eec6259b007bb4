import { spawn, type ChildProcess } from 'node:child_process';
import { runCommand } from '../../src/cli/commands/run.js';
import type { fakeTime } from './fake-time.js';
import { captureOutput } from './output.js';
import { RALPH_BIN } from './workspace.js';

/** `ralph run` in a process of its own, to be signalled or killed by the test. */
export function startRunner(
  root: string,
  env: Record<string, string>,
  ...args: string[]
): { child: ChildProcess; exited: Promise<number | null> } {
  const child = spawn(process.execPath, [RALPH_BIN, '-C', root, 'run', ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const exited = new Promise<number | null>((resolve) =>
    child.on('exit', (code, signal) => resolve(code ?? (signal ? -1 : null))),
  );
  return { child, exited };
}

/** `ralph run --drain` in this process, on a fake clock that moves when the runner waits. */
export async function runOnClock(
  root: string,
  env: Record<string, string>,
  time: ReturnType<typeof fakeTime>,
  options: Record<string, unknown> = {},
) {
  const output = captureOutput();
  const code = await runCommand(
    root,
    { drain: true, ...options },
    output,
    { PATH: process.env.PATH, ...env },
    { clock: time.clock, wait: time.wait },
  );
  return { code, output };
}
