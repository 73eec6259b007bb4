// The pull request part of an item's life, as pure transitions both queue backends apply.
import { describe, expect, it } from 'vitest';
import { ItemSchema, type Item } from '../../src/queue/item.js';
import { checksOrder } from '../../src/queue/select.js';
import {
  checksFailed,
  checksPassed,
  checksSeen,
  landed,
  pullRequestOpened,
  retried,
  settle,
  type ChecksRefusal,
} from '../../src/queue/transitions.js';

const T0 = Date.parse('2026-11-25T00:00:00Z');
const at = (minutes: number) => new Date(T0 + minutes * 60_000).toISOString();
const item = (fields: Partial<Item> & { id: string }): Item =>
  ItemSchema.parse({ title: fields.id, createdAt: at(0), ...fields });

const red: ChecksRefusal = {
  outcome: 'checks_failed',
  error: 'pull request #1: build failed',
  failure: 'The checks of your pull request #1 … failed at abc:',
  checks: 'failed: build',
};
const pullRequest = {
  number: 1,
  url: 'https://github.example/acme/app/pull/1',
  head: 'ralph/x',
  base: 'main',
  kind: 'item',
} as const;

describe('pull request transitions', () => {
  const running = item({ id: 'x', status: 'running', attempts: 1, sessions: ['s1'] });

  it('makes a success await its checks, keeping the conversation a failed check goes back to', () => {
    const waiting = settle(
      running,
      { kind: 'succeeded', costUsd: 1, conversationId: 'c1', checks: true },
      3,
      T0,
    );
    expect(waiting).toMatchObject({ status: 'awaiting_checks', conversationId: 'c1' });
    expect(waiting.checksSince).toBeUndefined();
    // Landing comes first when both are on; the landed item then awaits the target's checks.
    const landing = settle(
      running,
      { kind: 'succeeded', costUsd: 1, conversationId: 'c1', land: true, checks: true },
      3,
      T0,
    );
    expect(landing.status).toBe('landing');
    const onTarget = landed(
      landing,
      { commit: 'c'.repeat(40), target: 'ralph/landed', onto: 'o'.repeat(40), checks: true },
      T0,
    );
    expect(onTarget).toMatchObject({
      status: 'awaiting_checks',
      conversationId: 'c1',
      landedOn: 'ralph/landed',
    });
  });

  it('hands red checks back for maxFixRounds rounds, then fails; a timeout fails at once', () => {
    const opened = pullRequestOpened(
      item({ id: 'x', status: 'awaiting_checks', conversationId: 'c1' }),
      { pullRequest, head: 'h1' },
      T0,
    );
    expect(opened).toMatchObject({ checksHead: 'h1', checksSince: at(0), checks: 'pending' });
    const first = checksFailed(opened, red, 2, T0);
    expect(first).toMatchObject({
      status: 'pending',
      checkRounds: 1,
      conversationId: 'c1',
      checksFailure: red.failure,
      lastOutcome: 'checks_failed',
    });
    const second = checksFailed({ ...first, status: 'awaiting_checks' }, red, 2, T0);
    expect(second).toMatchObject({ status: 'pending', checkRounds: 2 });
    const third = checksFailed({ ...second, status: 'awaiting_checks' }, red, 2, T0);
    expect(third).toMatchObject({ status: 'failed', checkRounds: 3, conversationId: undefined });
    const timedOut = checksFailed(opened, { ...red, outcome: 'checks_timeout' }, 2, T0);
    expect(timedOut.status).toBe('failed');
    // A retry renews the rounds; the next success clears what failed.
    expect(retried(third, T0).checkRounds).toBeUndefined();
    const fixed = settle(
      { ...first, status: 'running' },
      { kind: 'succeeded', costUsd: 1, conversationId: 'c1', checks: true },
      3,
      T0,
    );
    expect(fixed).toMatchObject({ status: 'awaiting_checks', checkRounds: 1, checksHead: 'h1' });
    expect(fixed.checksFailure).toBeUndefined();
  });

  it("ends green as merged or ready to merge, and keeps the forge's new head", () => {
    const opened = pullRequestOpened(
      item({ id: 'x', status: 'awaiting_checks' }),
      { pullRequest, head: 'h1' },
      T0,
    );
    expect(checksSeen(opened, 'pending: build', T0, 'h2')).toMatchObject({
      checks: 'pending: build',
      checksHead: 'h2',
    });
    expect(checksPassed(opened, { checks: 'green: build', merged: true }, T0)).toMatchObject({
      status: 'done',
      lastOutcome: 'merged',
      mergedAt: at(0),
    });
    expect(checksPassed(opened, { checks: 'green: build', merged: false }, T0)).toMatchObject({
      status: 'awaiting_merge',
      lastOutcome: 'ready_to_merge',
      mergedAt: undefined,
    });
  });

  it('tends the item waiting longest first, those not yet pushed before all', () => {
    const items = [
      item({ id: 'late', status: 'awaiting_checks', checksSince: at(5) }),
      item({ id: 'early', status: 'awaiting_checks', checksSince: at(1) }),
      item({ id: 'new', status: 'awaiting_checks' }),
    ];
    expect(checksOrder(items).map((i) => i.id)).toEqual(['new', 'early', 'late']);
  });
});
