import fs from 'node:fs';

/**
 * Calls `onChange` when one of `names` changes in `dir` (any name when `names` is undefined).
 * The directory is watched, not the files: a deleted and re-created file is a new inode that a
 * file watch would miss. Undefined where watching is not possible (callers poll as well).
 */
export function watchNames(
  dir: string,
  names: readonly string[] | undefined,
  onChange: () => void,
): fs.FSWatcher | undefined {
  try {
    const watcher = fs.watch(dir, { persistent: false }, (_event, changed) => {
      if (names === undefined || changed === null || names.includes(String(changed))) onChange();
    });
    watcher.on('error', () => undefined);
    return watcher;
  } catch {
    return undefined;
  }
}
