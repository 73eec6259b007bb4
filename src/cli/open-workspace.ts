import fsp from 'node:fs/promises';
import { loadWorkspace, type Workspace } from '../config/workspace.js';
import { RalphError } from '../lib/errors.js';

/** Loads an initialised workspace, or says how to create one. */
export async function openWorkspace(root: string): Promise<Workspace> {
  const dir = await fsp.stat(root).catch(() => undefined);
  if (dir === undefined)
    throw new RalphError(
      `${root} does not exist; give the directory of a workspace (ralph init makes one)`,
    );
  if (!dir.isDirectory()) throw new RalphError(`${root} is not a directory`);
  const workspace = await loadWorkspace(root);
  const stat = await fsp.stat(workspace.paths.state).catch(() => undefined);
  if (stat === undefined || !stat.isDirectory()) {
    throw new RalphError(
      `${workspace.root} is not a ralph workspace (no ${workspace.paths.state}); run "ralph init" there first`,
    );
  }
  return workspace;
}
