import { commandFailed } from './command-failed.js';
import { workspaceRoot } from './find-workspace.js';
import { processOutput, type Output } from './output.js';

/** The parser's name of each quick command (`ls` is an alias of `queue`). */
const QUICK: Record<string, 'status' | 'queue'> = { status: 'status', ls: 'queue', queue: 'queue' };

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
  const hasRoot = args[0] === '-C' || args[0] === '--root';
  const given = hasRoot ? args[1] : undefined;
  if (hasRoot && (given === undefined || given === '' || given.startsWith('-'))) return undefined;
  const [word = '', ...flags] = args.slice(hasRoot ? 2 : 0);
  const command = Object.hasOwn(QUICK, word) ? QUICK[word] : undefined;
  if (command === undefined || flags.some((flag) => flag !== '--json') || flags.length > 1)
    return undefined;
  const options = { json: flags.length === 1 };
  const root = () => workspaceRoot(given);
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
