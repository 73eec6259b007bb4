// The night loop's workers, over a scripted iteration: when a drained run may end.
import os from 'node:os';
import { describe, expect, it, vi } from 'vitest';
import type { Outcome } from '../../src/agent/outcome.js';
import type { RunnerContext } from '../../src/runner/context.js';
import { StopControl } from '../../src/runner/stop-control.js';
import type { IterationResult } from '../../src/runner/iteration.js';

const iterations = vi.hoisted(() => ({
  next: (): Promise<IterationResult> => Promise.resolve({ kind: 'idle' }),
}));
vi.mock('../../src/runner/iteration.js', () => ({ runIteration: () => iterations.next() }));
const { runLoop } = await import('../../src/runner/loop.js');

const success = { kind: 'success', countsAsFailure: false } as unknown as Outcome;

/** A context with just what the loop reads between iterations; `delay` makes each turn wait. */
function loopContext(): RunnerContext {
  const tmp = os.tmpdir();
  return {
    workspace: {
      paths: { state: tmp, sessions: tmp },
      config: {
        run: { pollInterval: 60, delay: 1, minFreeBytes: 0, maxConsecutiveFailures: 0 },
        queue: {},
      },
    },
    queue: {
      subscribe: () => () => undefined,
      landing: () => Promise.resolve([]),
      awaitingChecks: () => Promise.resolve([]),
      deciding: () => Promise.resolve([]),
      reviewing: () => Promise.resolve([]),
    },
    controlFiles: {
      watched: { dir: tmp, names: [] },
      pendingPauseReason: () => Promise.resolve(undefined),
      promotePauseAfterCurrent: () => Promise.resolve(),
      pauseReason: () => Promise.resolve(undefined),
    },
    events: { info: () => undefined, warn: () => undefined, error: () => undefined },
    clock: { now: () => Date.now() },
    lockLost: () => undefined,
    // The delay between sessions lasts a few turns of the event loop.
    wait: ({ ms }: { ms: number }) =>
      new Promise<void>((resolve) => setTimeout(resolve, ms >= 60_000 ? 60_000 : 20)),
  } as unknown as RunnerContext;
}

describe('the night loop with workers', () => {
  it('does not end a drained run on a claim that looked while another session was ending', async () => {
    // Three items in one work dir: while one runs, the other worker's claim finds nothing.
    let pending = 3;
    let running: Promise<void> | undefined;
    iterations.next = async () => {
      if (running !== undefined) {
        // The claim read the queue while the item ran, and returns after its session ended.
        await running;
        await new Promise((resolve) => setImmediate(resolve));
        return { kind: 'idle' };
      }
      if (pending === 0) return { kind: 'idle' };
      pending--;
      let end = () => undefined as void;
      running = new Promise<void>((resolve) => (end = resolve));
      await new Promise((resolve) => setTimeout(resolve, 5));
      running = undefined;
      end();
      return {
        kind: 'ran',
        itemId: 'x',
        sessionId: 's',
        outcome: success,
        itemStatus: 'done',
        costUsd: 0,
        cli: 'claude',
        canFallBack: false,
        candidate: false,
      };
    };
    const result = await runLoop(
      loopContext(),
      { once: false, drain: true, limits: { windows: [] }, workers: 2, stages: [] },
      new StopControl(),
      1,
    );
    expect(pending).toBe(0);
    expect(result.succeeded).toBe(3);
  });
});
