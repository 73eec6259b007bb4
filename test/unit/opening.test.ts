// What a session spends before it works: the tokens of its requests up to the first tool call,
// counted from claude's lines (a line a content block, each repeating its message's usage), its
// share of the session's cost, and the report's sums.
import { describe, expect, it } from 'vitest';
import { claudeDecoder } from '../../src/agent/clis/claude-stream.js';
import type { IndexEntry } from '../../src/archive/index-entry.js';
import { openingLine, reportOf } from '../../src/archive/report.js';
import { sessionOpening, sessionTokens } from '../../src/archive/session.js';
import { StreamParser } from '../../src/stream/parser.js';
import { applyToSummary, emptySummary, type StreamSummary } from '../../src/stream/summary.js';

const usage = (input: number, output: number, cacheCreation = 0, cacheRead = 0) => ({
  input_tokens: input,
  output_tokens: output,
  cache_creation_input_tokens: cacheCreation,
  cache_read_input_tokens: cacheRead,
});

const assistant = (id: string, block: object, tokens: object, model = 'claude-test') => ({
  type: 'assistant',
  message: { id, model, role: 'assistant', content: [block], usage: tokens },
});

function summaryOf(lines: object[]): StreamSummary {
  const summary = emptySummary();
  const parser = new StreamParser((line) => applyToSummary(summary, line, 0), claudeDecoder());
  parser.push(Buffer.from(lines.map((l) => `${JSON.stringify(l)}\n`).join('')));
  parser.finish();
  return summary;
}

const result = (tokens: object, cost: number) => ({
  type: 'result',
  subtype: 'success',
  is_error: false,
  total_cost_usd: cost,
  usage: tokens,
});

describe("a session's opening", () => {
  it('counts each message once, up to the one with the first tool call, and no message after', () => {
    const summary = summaryOf([
      // A message of two blocks: two lines, the same usage (the later line's counts).
      assistant('m1', { type: 'text', text: 'Let me look.' }, usage(5, 1, 20_000)),
      assistant('m1', { type: 'text', text: 'First.' }, usage(5, 30, 20_000)),
      assistant('m2', { type: 'text', text: 'Thinking on.' }, usage(7, 12, 0, 20_000)),
      assistant(
        'm2',
        { type: 'tool_use', id: 't1', name: 'Read', input: {} },
        usage(7, 40, 0, 20_000),
      ),
      // The synthetic message of an API error is no request.
      assistant('s', { type: 'text', text: 'API Error' }, usage(0, 0), '<synthetic>'),
      assistant('m3', { type: 'text', text: 'Done.' }, usage(9, 50, 0, 20_500)),
      result(usage(21, 120, 20_000, 40_500), 0.1),
    ]);
    const opening = sessionOpening(summary, sessionTokens(summary), { usd: 0.1 });
    expect(opening?.tokens).toEqual({
      input: 12,
      output: 70,
      cacheCreation: 20_000,
      cacheRead: 20_000,
    });
    expect(opening?.toolCalled).toBe(true);
    // By Anthropic's relative prices: input 1, a cache write 1.25, a read 0.1, output 5.
    const weigh = (i: number, o: number, w: number, r: number) => i + 1.25 * w + 0.1 * r + 5 * o;
    expect(opening?.costUsd).toBeCloseTo(
      (0.1 * weigh(12, 70, 20_000, 20_000)) / weigh(21, 120, 20_000, 40_500),
      9,
    );
  });

  it('is all of a session that never called a tool, and nothing from a CLI without per-message usage', () => {
    const toolless = summaryOf([
      assistant('m1', { type: 'text', text: 'No.' }, usage(3, 4, 1_000)),
      result(usage(3, 4, 1_000), 0.01),
    ]);
    expect(sessionOpening(toolless, sessionTokens(toolless), { usd: 0.01 })).toEqual({
      tokens: { input: 3, output: 4, cacheCreation: 1_000, cacheRead: 0 },
      costUsd: 0.01,
      toolCalled: false,
    });
    const withoutUsage = summaryOf([
      { type: 'assistant', message: { id: 'm1', content: [{ type: 'text', text: 'Hi.' }] } },
    ]);
    expect(
      sessionOpening(withoutUsage, sessionTokens(withoutUsage), { usd: 0.01 }),
    ).toBeUndefined();
  });
});

describe("the report's sums of openings", () => {
  const entry = (fields: Partial<IndexEntry>): IndexEntry => ({
    sessionId: 's',
    itemId: 'a',
    itemTitle: 'A',
    status: 'succeeded',
    outcome: 'success',
    startedAt: '2026-11-26T01:00:00.000Z',
    toolCalls: 1,
    costUsd: 1,
    cli: 'claude',
    ...fields,
  });

  it('adds the sessions that count one, beside what the same sessions spent in all', () => {
    const { byDay, opening } = reportOf([
      entry({ opening: { tokens: 1_000, costUsd: 0.25 }, tokens: { input: 4_000, output: 0 } }),
      entry({
        opening: { tokens: 3_000, costUsd: 0.5 },
        costUsd: 2,
        tokens: { input: 8_000, output: 0 },
      }),
      // A codex session counts none: its cost is not in the opening's total.
      entry({ cli: 'codex', costUsd: 5, tokens: { input: 9_000, output: 0 } }),
    ]);
    expect(opening).toEqual({
      sessions: 2,
      tokens: 4_000,
      totalTokens: 12_000,
      costUsd: 0.75,
      totalCostUsd: 3,
    });
    expect(byDay[0]?.opening).toEqual(opening);
    expect(openingLine(opening!)).toBe(
      "Before the first tool call: 4,000 of 12,000 tokens (33%), ~$0.7500 of $3.0000 (25%), over 2 sessions that count it (claude's: other CLIs report no request's usage)",
    );
    expect(reportOf([entry({})]).opening).toBeUndefined();
  });
});
