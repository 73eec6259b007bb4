import { spawn } from 'node:child_process';
import { git } from '../../git/git.js';
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
  const { repo, base, tip } = await itemBranch(workspace, id, env);
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
