import { describe, expect, it } from 'vitest';
import { ItemSchema, QueueFileSchema, type Item } from '../../src/queue/item.js';
import { blockedReason, nextWakeTime, selectNext } from '../../src/queue/select.js';
import { claim, reclaim, retryBackoffMs, settle } from '../../src/queue/transitions.js';

const T0 = Date.parse('2026-11-22T00:00:00Z');
const item = (fields: Partial<Item> & { id: string }): Item =>
  ItemSchema.parse({ title: fields.id, createdAt: new Date(T0).toISOString(), ...fields });

describe('ItemSchema', () => {
  it.each(['../x', 'a/b', '..', '.hidden', 'a b', 'x\u0000', '', 'é', 'a'.repeat(101)])(
    'refuses the unsafe id %j',
    (id) => {
      expect(ItemSchema.safeParse({ id, title: 't' }).success).toBe(false);
    },
  );

  it('accepts a safe slug and fills the defaults', () => {
    expect(ItemSchema.parse({ id: 'fix-login_2.0', title: 'Fix' })).toMatchObject({
      status: 'pending',
      attempts: 0,
      priority: 0,
      dependsOn: [],
      vars: {},
      sessions: [],
      costUsd: 0,
    });
  });

  it('refuses unknown keys, wrong types, empty cron and built-in vars', () => {
    expect(ItemSchema.safeParse({ id: 'a', title: 't', colour: 'red' }).success).toBe(false);
    expect(ItemSchema.safeParse({ id: 'a', title: 't', maxTurns: 'ten' }).success).toBe(false);
    expect(ItemSchema.safeParse({ id: 'a', title: 't', schedule: '' }).success).toBe(false);
    expect(ItemSchema.safeParse({ id: 'a', title: 't', schedule: '* * *' }).success).toBe(false);
    expect(ItemSchema.safeParse({ id: 'a', title: 't', vars: { ITEM_ID: 'x' } }).success).toBe(
      false,
    );
    expect(ItemSchema.safeParse({ id: 'a', title: 't', body: 'b', bodyFile: 'f' }).success).toBe(
      false,
    );
  });

  it('reads durations as seconds', () => {
    expect(
      ItemSchema.parse({ id: 'a', title: 't', timeout: '2h', idleTimeout: '90s' }),
    ).toMatchObject({
      timeout: 7200,
      idleTimeout: 90,
    });
  });

  it('refuses duplicate ids in the queue file', () => {
    const result = QueueFileSchema.safeParse({
      items: [
        { id: 'a', title: 'x' },
        { id: 'a', title: 'y' },
      ],
    });
    expect(result.success).toBe(false);
  });
});

describe('selectNext', () => {
  it('takes interrupted items first, then priority, then the oldest', () => {
    const items = [
      item({ id: 'old', createdAt: new Date(T0 - 1000).toISOString() }),
      item({ id: 'high', priority: 5 }),
      item({ id: 'new' }),
    ];
    expect(selectNext(items, T0)?.id).toBe('high');
    expect(selectNext([...items, item({ id: 'int', status: 'interrupted' })], T0)?.id).toBe('int');
    expect(
      selectNext(
        items.filter((i) => i.id !== 'high'),
        T0,
      )?.id,
    ).toBe('old');
  });

  it('skips items with unmet dependencies or a time to come', () => {
    const items = [
      item({ id: 'dep', dependsOn: ['base'], priority: 9 }),
      item({ id: 'base', status: 'running' }),
      item({ id: 'later', notBefore: new Date(T0 + 60_000).toISOString(), priority: 8 }),
      item({ id: 'backoff', retryAfter: new Date(T0 + 30_000).toISOString(), priority: 7 }),
    ];
    expect(selectNext(items, T0)).toBeUndefined();
    expect(blockedReason(items[0]!, new Map(items.map((i) => [i.id, i])), T0)).toMatch(
      /depends on base/,
    );
    expect(nextWakeTime(items, T0)).toBe(T0 + 30_000);
    expect(nextWakeTime(items, T0, { retriesOnly: true })).toBe(T0 + 30_000);
    expect(selectNext(items, T0 + 60_000)?.id).toBe('later');
  });

  it('never selects finished items', () => {
    const items = (['done', 'failed', 'cancelled', 'running'] as const).map((status) =>
      item({ id: status, status }),
    );
    expect(selectNext(items, T0)).toBeUndefined();
  });
});

describe('transitions', () => {
  it('counts the attempt when claiming, before anything spawns', () => {
    const claimed = claim(item({ id: 'a' }), 'sess-1', T0);
    expect(claimed).toMatchObject({ status: 'running', attempts: 1, sessions: ['sess-1'] });
  });

  it('finishes a success as done, or reschedules a recurring item', () => {
    const running = claim(item({ id: 'a' }), 's', T0);
    expect(settle(running, { kind: 'succeeded', costUsd: 0.5 }, 3, T0)).toMatchObject({
      status: 'done',
      costUsd: 0.5,
    });
    const recurring = claim(item({ id: 'r', schedule: '0 3 * * *' }), 's', T0);
    const next = settle(recurring, { kind: 'succeeded', costUsd: 0 }, 3, T0);
    expect(next).toMatchObject({
      status: 'pending',
      attempts: 0,
      notBefore: '2026-11-22T03:00:00.000Z',
    });
  });

  it('retries a failure with capped exponential backoff until attempts run out', () => {
    let current = claim(item({ id: 'a' }), 's1', T0);
    const failure = {
      kind: 'failed',
      error: 'crashed',
      outcome: 'no_result',
      costUsd: 0.1,
      retryable: true,
    } as const;
    current = settle(current, failure, 2, T0);
    expect(current).toMatchObject({
      status: 'pending',
      lastError: 'crashed',
      retryAfter: new Date(T0 + 60_000).toISOString(),
    });
    current = settle(claim(current, 's2', T0), failure, 2, T0);
    expect(current).toMatchObject({ status: 'failed', attempts: 2, costUsd: 0.2 });
    expect(retryBackoffMs(1)).toBe(60_000);
    expect(retryBackoffMs(2)).toBe(120_000);
    expect(retryBackoffMs(20)).toBe(30 * 60_000);
  });

  it('fails at once when retrying cannot help', () => {
    const running = claim(item({ id: 'a' }), 's', T0);
    const next = settle(
      running,
      {
        kind: 'failed',
        error: 'denied',
        outcome: 'permission_denied',
        costUsd: 0,
        retryable: false,
      },
      5,
      T0,
    );
    expect(next.status).toBe('failed');
  });

  it('gives the attempt back when the item was not at fault', () => {
    const running = claim(item({ id: 'a' }), 's', T0);
    expect(
      settle(running, { kind: 'rejected', error: 'bad template', outcome: 'rejected' }, 3, T0),
    ).toMatchObject({
      status: 'failed',
      attempts: 0,
    });
    expect(
      settle(
        running,
        { kind: 'interrupted', reason: 'pause', costUsd: 0, conversationId: 'c' },
        3,
        T0,
      ),
    ).toMatchObject({
      status: 'interrupted',
      attempts: 0,
      conversationId: 'c',
    });
    expect(
      settle(running, { kind: 'released', costUsd: 0, retryAfter: T0 + 5000 }, 3, T0),
    ).toMatchObject({
      status: 'pending',
      attempts: 0,
      retryAfter: new Date(T0 + 5000).toISOString(),
    });
  });

  it('requeues an item of a dead runner with its attempt counted', () => {
    const running = claim(item({ id: 'a' }), 's', T0);
    expect(reclaim(running, 'runner died', 3, T0)).toMatchObject({
      status: 'pending',
      attempts: 1,
    });
    expect(reclaim(running, 'runner died', 1, T0)).toMatchObject({ status: 'failed', attempts: 1 });
  });
});
