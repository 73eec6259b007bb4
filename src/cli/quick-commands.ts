import { commandFailed } from './command-failed.js';
import { workspaceRoot } from './find-workspace.js';
import { processOutput, type Output } from './output.js';
import { quickArgs } from './quick-args.js';

/**
 * `[-C <dir>] status|ls|queue [--json]`: the commands a watch loop or a shell prompt runs most,
 * run without loading the parser and the definitions of every other command, which would be a
 * third of their start. Any other shape (another flag, `--help`, a typo) is undefined: the
 * parser takes it and answers as it always does.
 */
export function quickCommand(
  args: readonly string[],
  output: Output = processOutput,
  env: Readonly<Record<string, string | undefined>> = process.env,
): (() => Promise<number>) | undefined {
  const quick = quickArgs(args);
  if (quick === undefined) return undefined;
  const { command } = quick;
  const options = { json: quick.json };
  const root = () => workspaceRoot(quick.root);
  return async () => {
    try {
      if (command === 'status') {
        const { statusCommand } = await import('./commands/status.js');
        return await statusCommand(root(), options, output, env);
      }
      const { queueCommand } = await import('./commands/queue.js');
      return await queueCommand(root(), options, output, env);
    } catch (error) {
      return commandFailed(error, root, command, output, env);
    }
  };
}
