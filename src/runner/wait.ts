import fs from 'node:fs';

/**
 * Sleeps until `ms` pass, something changes in `watchDir`, or `signal` aborts, whichever comes
 * first. The directory watch makes new work visible at once; the timer is the fallback for
 * mounts where watching does not work.
 */
export function waitForChange(options: {
  ms: number;
  watchDir?: string;
  /** Only changes to these file names count (the runner's own log writes must not wake it). */
  names?: readonly string[];
  signal?: AbortSignal;
}): Promise<void> {
  return new Promise((resolve) => {
    if (options.signal?.aborted) return resolve();
    let watcher: fs.FSWatcher | undefined;
    const finish = () => {
      clearTimeout(timer);
      watcher?.close();
      options.signal?.removeEventListener('abort', finish);
      resolve();
    };
    const timer = setTimeout(finish, Math.max(0, options.ms));
    if (options.watchDir !== undefined) {
      try {
        watcher = fs.watch(options.watchDir, { persistent: false }, (_event, filename) => {
          if (options.names === undefined || options.names.includes(String(filename))) finish();
        });
        watcher.on('error', () => undefined);
      } catch {
        watcher = undefined;
      }
    }
    options.signal?.addEventListener('abort', finish, { once: true });
  });
}
