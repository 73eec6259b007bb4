import type { SSEMessage, SSEStreamingApi } from 'hono/streaming';
import type { Changes } from './changes.js';
import { coalesced } from './coalesced.js';

/** Sends one event; resolves once written (or once the stream is gone). */
export type Send = (message: SSEMessage) => Promise<void>;

/**
 * Keeps an event stream going until the client leaves or `step` says it is over: `step` runs
 * at once and after each change of the files, a comment goes out every heartbeat, and
 * `subscribe` may add sources of its own. Writes go out one at a time, in order; a write that
 * fails (the client went away) ends the stream, never the server.
 */
export function keepStreaming(
  sse: SSEStreamingApi,
  changes: Changes,
  heartbeatMs: number,
  step: (send: Send) => Promise<'more' | 'over'>,
  subscribe: (send: Send) => () => void = () => () => undefined,
): Promise<void> {
  return new Promise((resolve) => {
    let over = false;
    let writes: Promise<void> = Promise.resolve();
    const write = (out: () => Promise<unknown>) => {
      writes = writes
        .then(async () => {
          if (!over) await out();
        })
        .catch(stop);
      return writes;
    };
    const send: Send = (message) => write(() => sse.writeSSE(message));
    const heartbeat = setInterval(() => void write(() => sse.write(': ping\n\n')), heartbeatMs);
    const pump = coalesced(async () => {
      if ((await step(send)) === 'over') stop();
    }, stop);
    const unsubscribe = [changes.subscribe(pump), subscribe(send)];
    function stop() {
      if (over) return;
      over = true;
      clearInterval(heartbeat);
      for (const remove of unsubscribe) remove();
      resolve();
    }
    sse.onAbort(stop);
    pump();
  });
}
