// Waits that end a night rest on timers held here. `AbortSignal.timeout` inside
// `AbortSignal.any` can be garbage-collected on Node 20 before it fires (nodejs/node#57736):
// a wait on it alone may never end.

/** Resolves once any of `signals` aborts or `ms` have passed, whichever is first. */
export function untilAbortedOr(signals: readonly AbortSignal[], ms: number): Promise<void> {
  return new Promise((resolve) => {
    if (signals.some((signal) => signal.aborted)) {
      resolve();
      return;
    }
    const done = () => {
      clearTimeout(timer);
      for (const signal of signals) signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    for (const signal of signals) signal.addEventListener('abort', done, { once: true });
  });
}

/**
 * A signal that aborts with `signal` or after `ms`, and the means to let its timer go once the
 * work it bounds is over.
 */
export function timeoutSignal(
  signal: AbortSignal,
  ms: number,
): { signal: AbortSignal; release: () => void } {
  const controller = new AbortController();
  const abort = () => controller.abort(signal.reason);
  const timer = setTimeout(
    () => controller.abort(new DOMException('The operation timed out.', 'TimeoutError')),
    ms,
  );
  if (signal.aborted) abort();
  else signal.addEventListener('abort', abort, { once: true });
  return {
    signal: controller.signal,
    release: () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', abort);
    },
  };
}
