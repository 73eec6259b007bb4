import { spawn } from 'node:child_process';
import { git, gitSucceeds } from '../../git/git.js';
import { ExitCode } from '../../lib/exit-codes.js';
import { itemBranch } from '../../workspace/branches.js';
import { openWorkspace } from '../open-workspace.js';
import type { Output } from '../output.js';

/**
 * `ralph diff <item>`: `git diff base...branch` of the item's branch (of a landed item, what its
 * landing brought onto the target). On a terminal git runs
 * with the terminal, so it pages through the user's pager as it always does; otherwise the diff
 * is printed.
 */
export async function diffCommand(
  root: string,
  id: string,
  options: { stat?: boolean },
  output: Output,
  env: Readonly<Record<string, string | undefined>>,
): Promise<number> {
  const workspace = await openWorkspace(root);
  const { repo, base, tip, landed } = await itemBranch(workspace, id, env);
  // An empty diff is said, never shown as nothing at all.
  if (await gitSucceeds(repo, ['diff', '--quiet', `${base}...${tip}`, '--'])) {
    output.out(
      `${id}: no changes: ${landed ? 'its landing brought nothing onto the target' : 'its branch changed nothing since its base'}`,
    );
    return ExitCode.ok;
  }
  const args = ['diff', ...(options.stat === true ? ['--stat'] : []), `${base}...${tip}`, '--'];
  if (!output.isTTY) {
    output.raw(Buffer.from(await git(repo, args)));
    return ExitCode.ok;
  }
  return new Promise((resolve, reject) => {
    const child = spawn('git', args, { cwd: repo, env: { ...env }, stdio: 'inherit' });
    child.once('error', reject);
    child.once('exit', (code) => resolve(code === 0 ? ExitCode.ok : ExitCode.usage));
  });
}
