import fs from 'node:fs';

/** Bytes an unprivileged process may still write on the file system holding `dir`. */
export function freeBytes(dir: string): number | undefined {
  try {
    const stat = fs.statfsSync(dir);
    return stat.bavail * stat.bsize;
  } catch {
    return undefined;
  }
}

/**
 * Names the first of `dirs` whose file system has less than `minFree` bytes left, with what is
 * left, or returns undefined. Synchronous: it runs in the supervisor's tick.
 */
export function lowOnSpace(dirs: readonly string[], minFree: number): string | undefined {
  if (minFree <= 0) return undefined;
  for (const dir of dirs) {
    const free = freeBytes(dir);
    if (free !== undefined && free < minFree) {
      return `the disk is almost full: ${free} bytes free under ${dir} (run.minFreeBytes is ${minFree})`;
    }
  }
  return undefined;
}
