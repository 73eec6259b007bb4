import { constants as fsConstants } from 'node:fs';
import fsp from 'node:fs/promises';
import { redactorFor } from '../agent/redaction.js';
import { loadWorkspace } from '../config/workspace.js';
import { displayPath, pathExists } from '../lib/fs.js';
import { logFile, RunEvents } from '../runner/index.js';
import { describeFailure } from './failure.js';
import type { Output } from './output.js';

/**
 * Reports an error no command handled: one line for the person, the whole error (redacted) in
 * the workspace's log when there is one. Returns the exit code.
 */
export async function reportFailure(
  root: string,
  command: string,
  error: unknown,
  output: Output,
  env: Readonly<Record<string, string | undefined>>,
): Promise<number> {
  let logTo: string | undefined;
  const events = new RunEvents();
  try {
    const workspace = await loadWorkspace(root);
    // Named only where it can be written (not on a read-only or full file system).
    const writable = await fsp.access(workspace.paths.state, fsConstants.W_OK).then(
      () => true,
      () => false,
    );
    if (writable && (await pathExists(workspace.paths.state))) {
      events.redactWith(redactorFor(workspace, env));
      events.subscribe(logFile(workspace.paths.iterationLog, workspace.config.log.maxBytes));
      logTo = displayPath(workspace.paths.iterationLog, process.cwd());
    }
  } catch {
    // No readable workspace: the line alone has to do.
  }
  const failure = describeFailure(command, error, logTo);
  events.error('command_failed', { command, pid: process.pid, error: failure.detail });
  output.err(failure.line);
  return failure.exitCode;
}
