import fs from 'node:fs';

/**
 * Resolves when `condition` holds, re-checking whenever something changes under `dir` (and on a
 * slow timer as a fallback); rejects after `timeoutMs`. Tests synchronise on files this way, never
 * on fixed sleeps.
 */
export async function waitUntil(
  dir: string,
  condition: () => boolean,
  timeoutMs = 20_000,
  what = 'condition',
): Promise<void> {
  if (condition()) return;
  await new Promise<void>((resolve, reject) => {
    const check = () => {
      let ok = false;
      try {
        ok = condition();
      } catch {
        ok = false;
      }
      if (ok) {
        done();
        resolve();
      }
    };
    const watcher = fs.watch(dir, { recursive: false }, check);
    const timer = setInterval(check, 100);
    const deadline = setTimeout(() => {
      done();
      reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}`));
    }, timeoutMs);
    const done = () => {
      watcher.close();
      clearInterval(timer);
      clearTimeout(deadline);
    };
  });
}

/** Resolves when `check` holds, asking again every 100 ms; rejects after `timeoutMs`. */
export async function eventually(
  check: () => boolean | Promise<boolean>,
  timeoutMs: number,
  what: string,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline)
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
