import { watchNames } from '../lib/watch.js';

/** What the loop waits for: a time, a change to some files, or a stop. */
export interface WaitOptions {
  ms: number;
  watchDir?: string;
  /** Only changes to these file names count (the runner's own log writes must not wake it). */
  names?: readonly string[];
  signal?: AbortSignal;
}

/** How the loop sleeps; tests inject one that moves a fake clock instead. */
export type Wait = (options: WaitOptions) => Promise<void>;

/**
 * Sleeps until `ms` pass, a watched file changes, or `signal` aborts, whichever comes first.
 * The watch makes new work visible at once; the timer is the fallback for mounts where
 * watching does not work. No polling loop: an idle or paused runner costs no CPU.
 */
export const waitForChange: Wait = (options) =>
  new Promise((resolve) => {
    if (options.signal?.aborted) return resolve();
    const finish = () => {
      clearTimeout(timer);
      watcher?.close();
      options.signal?.removeEventListener('abort', finish);
      resolve();
    };
    // setTimeout overflows past 2^31 - 1 ms; a longer wait is cut short and re-checked.
    const timer = setTimeout(finish, Math.min(Math.max(0, options.ms), 2 ** 31 - 1));
    const watcher =
      options.watchDir === undefined
        ? undefined
        : watchNames(options.watchDir, options.names, finish);
    options.signal?.addEventListener('abort', finish, { once: true });
  });
