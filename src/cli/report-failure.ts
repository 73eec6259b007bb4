import { loadWorkspace } from '../config/workspace.js';
import { displayPath, pathExists } from '../lib/fs.js';
import { RunLog } from '../runner/log.js';
import { describeFailure } from './failure.js';
import type { Output } from './output.js';
import { secretsOf } from './redactor.js';

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
  let logFile: string | undefined;
  let log: RunLog | undefined;
  try {
    const workspace = await loadWorkspace(root);
    if (await pathExists(workspace.paths.state)) {
      log = new RunLog(workspace.paths.iterationLog, workspace.config.log.maxBytes);
      log.addSecrets(secretsOf(workspace, env));
      logFile = displayPath(workspace.paths.iterationLog, process.cwd());
    }
  } catch {
    // No readable workspace: the line alone has to do.
  }
  const failure = describeFailure(command, error, logFile);
  log?.error('command_failed', { command, pid: process.pid, error: failure.detail });
  output.err(failure.line);
  return failure.exitCode;
}
