import { RalphError } from '../lib/errors.js';
import type { Output } from './output.js';

/**
 * The exit code of a command that threw. Ralph's own errors say what to do in one line; any
 * other is reported with the whole error kept in the workspace's log.
 */
export async function commandFailed(
  error: unknown,
  root: () => string,
  command: string,
  output: Output,
  env: Readonly<Record<string, string | undefined>>,
): Promise<number> {
  if (error instanceof RalphError) {
    output.err(`ralph: ${error.message}`);
    return error.exitCode;
  }
  const { reportFailure } = await import('./report-failure.js');
  return reportFailure(root(), command, error, output, env);
}
