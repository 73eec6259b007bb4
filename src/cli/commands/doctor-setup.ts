import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { redactorFor } from '../../agent/redaction.js';
import { resolveSandbox } from '../../agent/settings.js';
import type { Workspace } from '../../config/workspace.js';
import { makeReady } from '../../environment/make-ready.js';
import { withRepositoryEnvironment } from '../../environment/repository.js';
import { git } from '../../git/git.js';
import { removeWorktree, repositoryRoot } from '../../git/worktree.js';
import { EgressProxy } from '../../sandbox/proxy.js';
import type { Check } from './doctor-check.js';

/**
 * `ralph doctor --setup`: the workspace's setup run once, as the setup stage runs it, in a
 * throw-away worktree of the project's HEAD: a setup that would park every item is found in the
 * evening, not in the morning.
 */
export async function checkSetup(
  workspace: Workspace,
  parentEnv: Readonly<Record<string, string | undefined>>,
): Promise<Check> {
  const { config } = workspace;
  const named = config.defaults.workDir;
  const workDir = named === undefined ? undefined : path.resolve(workspace.root, named);
  const repo = workDir === undefined ? undefined : await repositoryRoot(workDir);
  if (workDir === undefined || repo === undefined)
    return {
      verdict: 'FAIL',
      name: 'setup',
      detail: `a setup runs in a worktree of the project's repository, and "defaults.workDir" ${named ?? '(none)'} is in none`,
    };
  let environment;
  try {
    environment = await withRepositoryEnvironment(config.environment, repo);
  } catch (error) {
    return {
      verdict: 'FAIL',
      name: 'setup',
      detail: error instanceof Error ? error.message : String(error),
    };
  }
  const dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'ralph-doctor-setup-'));
  const worktree = path.join(dir, 'worktree');
  const logFile = path.join(dir, 'setup.log');
  const egress = new EgressProxy();
  const started = Date.now();
  try {
    await git(repo, ['worktree', 'add', '--detach', '--quiet', '--', worktree, 'HEAD']);
    const readied = await makeReady(
      { egress, parentEnv, workspace, redactor: redactorFor(workspace, parentEnv) },
      {
        itemId: 'doctor-setup',
        wanted: 'setup',
        environment,
        sandbox: resolveSandbox(config, []),
        repo,
        worktree,
        workDir: path.join(worktree, path.relative(repo, workDir)),
        logFile,
        onRefused: () => undefined,
      },
    );
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    const copied = readied.copied.length === 0 ? '' : `, copied ${readied.copied.join(', ')}`;
    const trees = readied.trees
      .map((tree) => `, ${tree.paths.join(', ')} ${tree.given} (tree ${tree.key})`)
      .join('');
    return readied.failure === undefined
      ? {
          verdict: 'ok',
          name: 'setup',
          detail: `${environment.setup.length} command(s) ran in a throw-away worktree of ${repo} in ${seconds} s${copied}${trees}`,
        }
      : { verdict: 'FAIL', name: 'setup', detail: readied.failure };
  } catch (error) {
    return {
      verdict: 'FAIL',
      name: 'setup',
      detail: `the setup could not run: ${error instanceof Error ? error.message : String(error)}`,
    };
  } finally {
    await egress.close();
    await removeWorktree(repo, worktree).catch(() => undefined);
    await fsp.rm(dir, { recursive: true, force: true });
  }
}
