import fs from 'node:fs';
import path from 'node:path';
import { CONFIG_FILE } from '../config/config-file.js';
import { InputError } from '../lib/errors.js';

/**
 * The workspace `start` is in: the nearest directory at or above it that holds a
 * `ralph.config.json` or a `state/queue.json`, or whose project it is (the workspace beside it,
 * `<project>.ralph`, as `ralph init` run in a repository makes it). Without one, `start` itself,
 * so that the command says there is no workspace there.
 */
export function findWorkspaceRoot(start: string): string {
  for (let dir = start; ; dir = path.dirname(dir)) {
    if (
      fs.existsSync(path.join(dir, CONFIG_FILE)) ||
      fs.existsSync(path.join(dir, 'state', 'queue.json'))
    )
      return dir;
    const beside = `${dir}.ralph`;
    if (dir !== path.dirname(dir) && fs.existsSync(path.join(beside, CONFIG_FILE))) return beside;
    if (path.dirname(dir) === dir) return start;
  }
}

/** The workspace a command works on: `-C` as given, or found from the current directory. */
export function workspaceRoot(given: string | undefined): string {
  if (given === '') throw new InputError('-C: give a directory');
  return given === undefined ? findWorkspaceRoot(process.cwd()) : path.resolve(given);
}
