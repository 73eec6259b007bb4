import fs from 'node:fs';
import path from 'node:path';
import { CONFIG_FILE } from '../config/config-file.js';

/**
 * The workspace `start` is in: the nearest directory at or above it that holds a
 * `ralph.config.json` or a `state/queue.json`. Without one, `start` itself, so that the command
 * says there is no workspace there.
 */
export function findWorkspaceRoot(start: string): string {
  for (let dir = start; ; dir = path.dirname(dir)) {
    if (
      fs.existsSync(path.join(dir, CONFIG_FILE)) ||
      fs.existsSync(path.join(dir, 'state', 'queue.json'))
    )
      return dir;
    if (path.dirname(dir) === dir) return start;
  }
}
