// The landing part of an item's life, as pure transitions both queue backends apply.
import { describe, expect, it } from 'vitest';
import { ItemSchema, type Item } from '../../src/queue/item.js';
import { landingOrder } from '../../src/queue/select.js';
import {
  landed,
  landRefused,
  retried,
  settle,
  toLand,
  type LandRefusal,
} from '../../src/queue/transitions.js';

const T0 = Date.parse('2026-11-24T00:00:00Z');
const at = (minutes: number) => new Date(T0 + minutes * 60_000).toISOString();
const item = (fields: Partial<Item> & { id: string }): Item =>
  ItemSchema.parse({ title: fields.id, createdAt: at(0), ...fields });

const conflict: LandRefusal = {
  outcome: 'land_conflict',
  error: 'landing on ralph/landed: 1 file in conflict (a.txt)',
  failure: 'Your branch `ralph/x` could not land on `ralph/landed`: …',
};

describe('landing transitions', () => {
  const running = item({ id: 'x', status: 'running', attempts: 1, sessions: ['s1'] });

  it('makes a success that lands wait to land, keeping the conversation to hand it back to', () => {
    const waiting = settle(
      running,
      { kind: 'succeeded', costUsd: 1, conversationId: 'c1', land: true },
      3,
      T0,
    );
    expect(waiting).toMatchObject({
      status: 'landing',
      conversationId: 'c1',
      lastOutcome: 'success',
    });
    expect(settle(running, { kind: 'succeeded', costUsd: 1 }, 3, T0).status).toBe('done');
  });

  it('is done once landed, with where and onto what; a recurring item goes on to its next time', () => {
    const waiting = item({ id: 'x', status: 'landing', landRounds: 1, conversationId: 'c1' });
    const done = landed(waiting, { commit: 'abc', target: 'ralph/landed', onto: 'def' }, T0);
    expect(done).toMatchObject({
      status: 'done',
      landedCommit: 'abc',
      landedOn: 'ralph/landed',
      landedOnto: 'def',
      landedAt: at(0),
    });
    expect(done.landRounds).toBeUndefined();
    expect(done.conversationId).toBeUndefined();
    const recurring = item({ id: 'r', status: 'landing', schedule: '0 * * * *', attempts: 2 });
    expect(landed(recurring, { commit: 'a', target: 't', onto: 'b' }, T0)).toMatchObject({
      status: 'pending',
      attempts: 0,
      notBefore: at(60),
    });
  });

  it('hands a refused landing back to its agent, and fails it after its rounds', () => {
    const waiting = item({ id: 'x', status: 'landing', attempts: 3, conversationId: 'c1' });
    const back = landRefused(waiting, conflict, 2, T0);
    expect(back).toMatchObject({
      status: 'pending',
      landRounds: 1,
      landFailure: conflict.failure,
      lastOutcome: 'land_conflict',
      conversationId: 'c1',
    });
    const failed = landRefused({ ...back, status: 'landing' }, conflict, 2, T0);
    expect(failed).toMatchObject({ status: 'failed', landRounds: 2, finishedAt: at(0) });
    // A retry starts its rounds afresh, the failure still told to the agent.
    expect(retried(failed, T0)).toMatchObject({ status: 'pending', landFailure: conflict.failure });
    expect(retried(failed, T0).landRounds).toBeUndefined();
    // The next success clears it.
    const again = settle(
      { ...back, status: 'running' },
      { kind: 'succeeded', costUsd: 0, land: true },
      3,
      T0,
    );
    expect(again.landFailure).toBeUndefined();
  });

  it('puts a done item in line to land', () => {
    expect(toLand(item({ id: 'x', status: 'done', landRounds: 1 }), T0)).toMatchObject({
      status: 'landing',
    });
  });

  it('lands in the order items finished, each dependency first', () => {
    const order = landingOrder([
      item({ id: 'late', status: 'landing', finishedAt: at(3) }),
      item({ id: 'dependent', status: 'landing', finishedAt: at(1), dependsOn: ['dependency'] }),
      item({ id: 'dependency', status: 'landing', finishedAt: at(2) }),
    ]);
    expect(order.map((i) => i.id)).toEqual(['dependency', 'dependent', 'late']);
  });
});
