// A person's messages in an item's life, as pure transitions both queue backends apply: those a
// running session's CLI took on its stdin are marked given to it at once; the others wait for the
// settle of the session that had them in its prompt, or for the next session.
import { describe, expect, it } from 'vitest';
import { ItemSchema, type Item } from '../../src/queue/item.js';
import { steered } from '../../src/runner/item-steps.js';
import {
  messageAdded,
  messagesGivenLive,
  messagesSinceClaim,
  settle,
} from '../../src/queue/transitions.js';

const T0 = Date.parse('2026-11-25T00:00:00Z');
const at = (seconds: number) => new Date(T0 + seconds * 1000).toISOString();
const running = (): Item =>
  ItemSchema.parse({
    id: 'x',
    title: 'x',
    createdAt: at(0),
    status: 'running',
    attempts: 1,
    sessions: ['s1'],
    startedAt: at(10),
  });
const say = (item: Item, text: string, seconds: number) =>
  messageAdded(item, { text, from: 'cli', at: at(seconds) }, T0 + seconds * 1000);

describe('messages given to a running session', () => {
  it('marks those sent after the claim given to the session that took them on its stdin', () => {
    const before = say(running(), 'in the prompt', 5);
    const item = say(before, 'mid-task', 20);
    expect(messagesSinceClaim(item).map((m) => m.text)).toEqual(['mid-task']);
    const given = messagesGivenLive(item, 's1', [at(20)]);
    expect(given.messages?.map((m) => [m.text, m.session])).toEqual([
      ['in the prompt', undefined],
      ['mid-task', 's1'],
    ]);
    expect(messagesSinceClaim(given)).toEqual([]);
    // The settle marks the one its prompt had; the live one stays the session's.
    const done = settle(given, { kind: 'succeeded', costUsd: 0 }, 3, T0 + 60_000);
    expect(done.messages?.map((m) => m.session)).toEqual(['s1', 's1']);
  });

  it('leaves an item another session runs, or that runs no more, as it is', () => {
    const item = say(running(), 'late', 20);
    expect(messagesGivenLive(item, 's0', [at(20)])).toBe(item);
    const pending = { ...item, status: 'pending' as const };
    expect(messagesGivenLive(pending, 's1', [at(20)])).toBe(pending);
  });
});

describe('tools refused to an agent', () => {
  it('park its item for a person, the refusal as its question, its conversation kept', () => {
    const parked = steered(
      {
        kind: 'failed',
        error: 'tools refused by the permission mode: Write',
        outcome: 'permission_denied',
        costUsd: 0.25,
        retryable: false,
      },
      { conversationId: 'conv-1' },
    );
    expect(parked).toMatchObject({ kind: 'succeeded', costUsd: 0.25, conversationId: 'conv-1' });
    const item = settle(running(), parked, 3, T0 + 60_000);
    expect(item).toMatchObject({ status: 'needs_input', conversationId: 'conv-1' });
    expect(item.question).toMatch(/^tools refused by the permission mode: Write\. Allow them/);
  });
});
