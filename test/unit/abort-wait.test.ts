// A wait that ends a night must end: on Node 20 an `AbortSignal.timeout` inside
// `AbortSignal.any` can be garbage-collected and never fire (nodejs/node#57736), which left a
// drained fleet runner waiting for ever after a database outage. The loop's wait holds its
// timer itself; proved here with the collector run between each wait's start and its end.
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

const MODULE = new URL('../../dist/lib/abort-wait.js', import.meta.url).href;

/** Runs `body` in a Node with the collector exposed; what it prints. */
function collected(body: string): string {
  return execFileSync(
    process.execPath,
    [
      '--expose-gc',
      '--input-type=module',
      '-e',
      `import { untilAbortedOr, timeoutSignal } from ${JSON.stringify(MODULE)};\n${body}`,
    ],
    { encoding: 'utf8', timeout: 60_000 },
  ).trim();
}

const collect = `
const settle = () => new Promise((r) => setImmediate(r));
const collectAll = async () => { globalThis.gc(); await settle(); globalThis.gc(); };`;

describe('a wait that ends a night', () => {
  it('ends after its time although the collector ran while it waited', () => {
    const out = collected(`${collect}
const stop = new AbortController();
let ended = 0;
const hung = setTimeout(() => { console.log('hung after ' + ended); process.exit(1); }, 20_000);
for (let i = 0; i < 30; i++) {
  const wait = untilAbortedOr([stop.signal, new AbortController().signal], 20);
  await new Promise((r) => setTimeout(r, 5));
  await collectAll();
  await wait;
  ended++;
}
clearTimeout(hung);
console.log('ended ' + ended);`);
    expect(out).toBe('ended 30');
  });

  it('ends at once when a signal aborts, and a bounded try is aborted after its time', () => {
    const out = collected(`${collect}
const stop = new AbortController();
const wait = untilAbortedOr([stop.signal], 60_000);
stop.abort();
await wait;
const bounded = timeoutSignal(new AbortController().signal, 20);
await collectAll();
await new Promise((r) => bounded.signal.addEventListener('abort', r, { once: true }));
bounded.release();
console.log('ended ' + bounded.signal.reason.name);`);
    expect(out).toBe('ended TimeoutError');
  });
});
