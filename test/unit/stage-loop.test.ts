// The one stage loop, driven with a declared stage of the test's own: what is due is stepped
// as many at once as the stage allows, a stored look-again is waited for, a step that throws
// keeps its item waiting (logged, counted), and a drained run ends once nothing is due.
import { describe, expect, it } from 'vitest';
import { RunEvents, type RunnerEvent } from '../../src/events/events.js';
import { Redactor } from '../../src/lib/redact.js';
import type { Item } from '../../src/queue/item.js';
import type { StageContext } from '../../src/stage/context.js';
import { StageLoop } from '../../src/stage/loop.js';
import type { StageDeclaration, Stepped } from '../../src/stage/stage.js';
import { queueItem } from '../support/items.js';

const NOW = Date.parse('2026-12-06T10:00:00Z');

/** A queue of `items` in `reviewing`, and a clock the stage's sleeps move. */
function world(items: Item[]) {
  let now = NOW;
  const events = new RunEvents(() => now);
  const logged: RunnerEvent[] = [];
  events.subscribe((entry) => logged.push(entry));
  const ctx = {
    queue: {
      inStatus: (status: string) => Promise.resolve(items.filter((item) => item.status === status)),
    },
    clock: { now: () => now },
    events,
    redactor: new Redactor([]),
    stopped: () => false,
    pauseReason: () => Promise.resolve(undefined),
    persistently: <T>(_operation: string, run: () => Promise<T>) => run(),
  } as unknown as StageContext;
  const slept: number[] = [];
  const pace = {
    sleep: (ms: number) => {
      slept.push(ms);
      now += ms;
      return Promise.resolve();
    },
    untilChanged: () => Promise.resolve(),
  };
  return { ctx, pace, slept, logged, now: () => now };
}

function declared(step: (item: Item) => Promise<Stepped>, width = 1): StageDeclaration {
  return {
    name: 'test',
    on: true,
    tends: { status: 'reviewing', order: (items) => [...items] },
    width,
    pauses: true,
    unmoved: 'stuck',
    awaits: 'due',
    step,
  };
}

describe('the stage loop', () => {
  it('steps what is due, waits for a stored look-again, and ends once nothing is left', async () => {
    const later = new Date(NOW + 60_000).toISOString();
    const items = [
      queueItem('a', { status: 'reviewing' }),
      queueItem('b', { status: 'reviewing', lookAgain: { at: later, looks: 1 } }),
    ];
    const { ctx, pace, slept } = world(items);
    const stepped: string[] = [];
    const moved: (Item | undefined)[] = [];
    const stage = new StageLoop(
      declared((item) => {
        stepped.push(item.id);
        item.status = 'done';
        return Promise.resolve({ kind: 'moved', item });
      }),
      ctx,
      (item) => moved.push(item),
    );
    const over = () => items.every((item) => item.status === 'done');
    await stage.run(over, pace);
    expect(stepped).toEqual(['a', 'b']);
    // It slept until b's stored look, not a poll interval.
    expect(slept).toEqual([60_000]);
    expect(moved.map((item) => item?.id)).toEqual(['a', 'b']);
    expect(stage.stuck).toBe(0);
  });

  it('keeps an item whose step threw waiting, logged and counted as stuck once the run ends', async () => {
    const items = [queueItem('a', { status: 'reviewing' })];
    const { ctx, pace, logged } = world(items);
    let tries = 0;
    const stage = new StageLoop(
      declared(() => {
        tries++;
        // Its next look stored far ahead, as a stage's own error handling stores it.
        items[0]!.lookAgain = { at: new Date(NOW + 3_600_000).toISOString(), looks: 1 };
        return Promise.reject(new Error('git failed'));
      }),
      ctx,
      () => undefined,
    );
    await stage.run(() => true, pace);
    expect(tries).toBe(1);
    expect(logged.find((e) => e.event === 'stage_failed')).toMatchObject({
      stage: 'test',
      item: 'a',
      error: 'git failed',
    });
    expect(stage.stuck).toBe(1);
  });

  it('steps as many at once as the stage declares', async () => {
    const items = ['a', 'b', 'c', 'd'].map((id) => queueItem(id, { status: 'reviewing' }));
    const { ctx, pace } = world(items);
    let running = 0;
    let most = 0;
    const stage = new StageLoop(
      declared(async (item) => {
        most = Math.max(most, ++running);
        await new Promise((resolve) => setImmediate(resolve));
        running--;
        item.status = 'done';
        return { kind: 'moved', item };
      }, 2),
      ctx,
      () => undefined,
    );
    await stage.run(() => items.every((item) => item.status === 'done'), pace);
    expect(most).toBe(2);
  });
});
