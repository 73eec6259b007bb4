import { ExitCode } from '../../lib/exit-codes.js';
import { withQueue } from '../../queue/open.js';
import { liveRunner } from '../../control/runner-lock.js';
import { saidText, sayToItem } from '../../workspace/say.js';
import { readStdin } from '../item-flags.js';
import { openWorkspace } from '../open-workspace.js';
import type { Output } from '../output.js';

/**
 * `ralph say <item> <text...>` (`-`: the text from stdin): a message to the item's agent, given
 * at once to a running session (stopped and resumed with it), or kept for its next one.
 */
export async function sayCommand(
  root: string,
  id: string,
  words: readonly string[],
  output: Output,
  env: Readonly<Record<string, string | undefined>>,
): Promise<number> {
  const workspace = await openWorkspace(root);
  const text = words.length === 1 && words[0] === '-' ? await readStdin() : words.join(' ');
  const said = await withQueue(workspace, env, async (queue) =>
    sayToItem(workspace, queue, id, {
      text,
      from: 'cli',
      runnerLive: (await liveRunner(workspace.paths.runnerLock)) !== undefined,
    }),
  );
  output.out(saidText(id, said));
  return said.kind === 'not_in_time' ? ExitCode.itemsFailed : ExitCode.ok;
}
