import { describe, expect, it } from 'vitest';
import { resolveFallback, type FallbackSettings } from '../../src/agent/settings.js';
import { ConfigSchema } from '../../src/config/schema.js';
import type { CliHold } from '../../src/agent/cli-holds.js';
import { CliHolds } from '../../src/agent/cli-holds.js';
import { chooseCli } from '../../src/agent/fallback.js';
import { handoverText, type SessionWork } from '../../src/agent/handover.js';

const NOW = Date.parse('2026-11-26T02:00:00Z');
const MINUTE = 60_000;
const fallback = (clis: string[], afterSeconds = 900): FallbackSettings => ({
  clis: clis.map((cli) => ({ cli: cli as never })),
  afterSeconds,
  handoverChars: 12_000,
});
const limit = (minutes: number, reason = 'usage limit reached'): CliHold => ({
  until: NOW + minutes * MINUTE,
  reason,
  kind: 'limit',
});

function choose(holds: Record<string, CliHold>, settings: FallbackSettings, refused = '') {
  return chooseCli({
    own: 'claude',
    fallback: settings,
    now: NOW,
    held: (cli) => holds[cli],
    refuses: ({ cli }) => (cli === refused ? `${cli} cannot` : undefined),
  });
}

describe('the CLI a session runs on', () => {
  it('is its own while its own is free, whatever the fallbacks', () => {
    expect(choose({ codex: limit(60) }, fallback(['codex']))).toEqual({ kind: 'own' });
  });

  it('waits for its own when it has no fallback, or when the reset is within `after`', () => {
    expect(choose({ claude: limit(600) }, fallback([]))).toMatchObject({
      kind: 'held',
      cli: 'claude',
      until: NOW + 600 * MINUTE,
    });
    expect(choose({ claude: limit(15) }, fallback(['codex']))).toMatchObject({
      kind: 'held',
      until: NOW + 15 * MINUTE,
    });
  });

  it('falls back to the first free CLI that can honour the item, past `after`', () => {
    expect(choose({ claude: limit(16) }, fallback(['codex', 'gemini']))).toEqual({
      kind: 'fallback',
      to: { cli: 'codex' },
      from: 'claude',
      reason: 'claude: usage limit reached',
    });
    expect(
      choose({ claude: limit(600), codex: limit(60) }, fallback(['codex', 'gemini'])),
    ).toMatchObject({ kind: 'fallback', to: { cli: 'gemini' } });
    expect(choose({ claude: limit(600) }, fallback(['codex', 'gemini']), 'codex')).toMatchObject({
      kind: 'fallback',
      to: { cli: 'gemini' },
    });
  });

  it('waits for the earliest reset when every CLI it may use is held', () => {
    expect(
      choose({ claude: limit(600), codex: limit(30, 'codex 429') }, fallback(['codex'])),
    ).toEqual({ kind: 'held', cli: 'codex', until: NOW + 30 * MINUTE, reason: 'codex 429' });
    expect(choose({ claude: limit(20), codex: limit(30) }, fallback(['codex'], 60))).toMatchObject({
      kind: 'held',
      cli: 'claude',
      until: NOW + 20 * MINUTE,
    });
  });

  it('runs on its own when nothing held will free in this run (the failure pauses the night)', () => {
    const gone: CliHold = { until: Infinity, reason: 'credit exhausted', kind: 'credit' };
    expect(choose({ claude: gone }, fallback([]))).toEqual({ kind: 'own' });
    expect(choose({ claude: gone, codex: gone }, fallback(['codex']))).toEqual({ kind: 'own' });
    expect(choose({ claude: gone, codex: limit(5) }, fallback(['codex']))).toMatchObject({
      kind: 'held',
      cli: 'codex',
    });
  });
});

describe('holds', () => {
  it('keep the longer of two, and forget one that has passed', () => {
    const seen: number[] = [];
    const holds = new CliHolds((all) => seen.push(all.size));
    holds.hold('claude', limit(60));
    holds.hold('claude', limit(30));
    expect(holds.of('claude', NOW)?.until).toBe(NOW + 60 * MINUTE);
    expect(holds.of('claude', NOW + 60 * MINUTE)).toBeUndefined();
    expect(seen).toEqual([1, 0]);
  });
});

describe('fallback settings', () => {
  const defaults = ConfigSchema.parse({
    defaults: { fallback: { clis: ['codex', { cli: 'gemini', model: 'gemini-3-pro' }] } },
  }).defaults;

  it('take each key from the item, else the persona, else the workspace', () => {
    expect(resolveFallback(defaults, [], 'claude')).toEqual({
      clis: [{ cli: 'codex' }, { cli: 'gemini', model: 'gemini-3-pro' }],
      afterSeconds: 900,
      handoverChars: 12_000,
    });
    expect(
      resolveFallback(
        defaults,
        [{ fallback: { after: 60, clis: ['pi'] } }, { fallback: { handoverChars: 2000 } }],
        'claude',
      ),
    ).toEqual({ clis: [{ cli: 'pi' }], afterSeconds: 60, handoverChars: 2000 });
  });

  it("leave the item's own CLI out of the workspace's list", () => {
    expect(resolveFallback(defaults, [{ cli: 'codex' }], 'codex').clis).toEqual([
      { cli: 'gemini', model: 'gemini-3-pro' },
    ]);
  });
});

describe('the handover', () => {
  const work: SessionWork = {
    cli: 'claude',
    sessionId: 'c0ffee',
    ended: 'usage limit reached (seven_day)',
    messages: ['I read the parser.', 'Now I change the tests.'],
    fileChanges: ['Edit src/parser.ts', 'Write test/parser.test.ts'],
    gateFailure: 'npm test failed: 2 tests',
    diff: `diff --git a/src/parser.ts b/src/parser.ts\n${'+a line of the change\n'.repeat(500)}`,
  };

  it('says who began, what it changed, its last words and its diff, within the size named', () => {
    const text = handoverText(work, 3000);
    expect(text.length).toBeLessThanOrEqual(3000);
    expect(text).toMatch(
      /^This item was begun by another agent: claude session c0ffee, which ended \(usage limit reached \(seven_day\)\)/,
    );
    expect(text).toContain('The quality gate failed on its work:\nnpm test failed: 2 tests');
    expect(text).toContain('- Edit src/parser.ts\n- Write test/parser.test.ts');
    expect(text).toContain('> Now I change the tests.');
    expect(text).toContain('```diff\ndiff --git a/src/parser.ts');
    expect(text).toMatch(/… \(\d+ more characters cut\)\n```$/);
    // Room enough: all of it, uncut.
    expect(handoverText(work, 100_000)).not.toContain('more characters cut');
  });

  it('hands over nothing from a session that did nothing, and says so', () => {
    const text = handoverText(
      { ...work, messages: [], fileChanges: [], gateFailure: undefined, diff: undefined },
      12_000,
    );
    expect(text).toBe(
      'The claude session c0ffee that began this item ended (usage limit reached (seven_day)) before doing any of it: there is nothing to hand over. Start the task from the beginning.',
    );
  });
});
