import { spawn, type ChildProcess } from 'node:child_process';
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
