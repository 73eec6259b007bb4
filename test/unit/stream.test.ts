import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { claudeDecoder } from '../../src/agent/clis/claude-stream.js';
import { StreamParser, type ParsedLine } from '../../src/stream/parser.js';
import { JsonSkimmer } from '../../src/stream/skim.js';
import { applyToSummary, emptySummary } from '../../src/stream/summary.js';

const TRANSCRIPTS = fileURLToPath(new URL('../fixtures/transcripts/', import.meta.url));
const transcript = (name: string) => fs.readFileSync(path.join(TRANSCRIPTS, `${name}.ndjson`));

function parse(chunks: Iterable<Buffer>, maxLineBytes?: number): ParsedLine[] {
  const out: ParsedLine[] = [];
  const parser = new StreamParser((p) => out.push(p), claudeDecoder(), { maxLineBytes });
  for (const chunk of chunks) parser.push(chunk);
  parser.finish();
  return out;
}

function* pieces(bytes: Buffer, size: number): Generator<Buffer> {
  for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
}

const kinds = (lines: ParsedLine[]) =>
  lines.map((l) => (l.kind === 'issue' ? `issue:${l.issue}` : l.kind));

describe('StreamParser on transcripts recorded from the real CLI', () => {
  const names = fs
    .readdirSync(TRANSCRIPTS)
    .filter((n) => n.endsWith('.ndjson'))
    .map((n) => n.slice(0, -7));

  it.each(names)('%s parses the same whole, line by line and byte by byte', (name) => {
    const bytes = transcript(name);
    const whole = parse([bytes]);
    const lines = bytes
      .toString('utf8')
      .split(/(?<=\n)/)
      .map((l) => Buffer.from(l));
    expect(parse(lines)).toEqual(whole);
    expect(parse(pieces(bytes, 1))).toEqual(whole);
    expect(parse(pieces(bytes, 7))).toEqual(whole);
    expect(whole.filter((l) => l.kind === 'issue')).toEqual([]);
    expect(kinds(whole)[0]).toBe('init');
    expect(kinds(whole)).toContain('result');
  });

  it('summarises a tool call, a denial, a usage limit and the result', () => {
    const summarise = (name: string) => {
      const summary = emptySummary();
      for (const line of parse([transcript(name)])) applyToSummary(summary, line, 0);
      return summary;
    };
    expect(summarise('bash-tool')).toMatchObject({
      toolCalls: 1,
      lastTool: 'Bash',
      result: { subtype: 'success', isError: false },
    });
    const denied = summarise('permission-denied');
    expect(denied.permissionDenials).toEqual([
      expect.objectContaining({ toolName: 'Bash', toolUseId: 'toolu_1' }),
    ]);
    expect(denied.result).toMatchObject({ subtype: 'success', isError: false });
    expect(summarise('usage-limit-rejected')).toMatchObject({
      rateLimit: { status: 'rejected', resetsAt: expect.any(Number) as number },
      result: { isError: true, apiErrorStatus: 429 },
    });
    expect(summarise('max-turns').result).toMatchObject({
      subtype: 'error_max_turns',
      errors: [expect.stringContaining('maximum')],
    });
    expect(summarise('api-error-429').result).toMatchObject({
      subtype: 'success',
      isError: true,
      apiErrorStatus: 429,
    });
    const text = summarise('text');
    expect(text.conversationId).toMatch(/^[0-9a-f-]{36}$/);
    expect(text.result?.totalCostUsd).toBeGreaterThan(0);
  });
});

describe('StreamParser robustness', () => {
  it('parses a stream that ends without a result line (a crash) without inventing one', () => {
    const bytes = transcript('bash-tool');
    const cut = bytes.subarray(0, bytes.lastIndexOf('{"duration_api_ms"'));
    const summary = emptySummary();
    for (const line of parse(pieces(cut, 5))) applyToSummary(summary, line, 0);
    expect(summary.result).toBeUndefined();
    expect(summary.toolCalls).toBe(1);
    expect(summary.issues).toEqual({});
  });

  it('logs and skips malformed lines, wrong shapes and unknown types', () => {
    const input = Buffer.from(
      'not json\n\n   \n{"no_type":1}\n[1,2]\n{"type":"assistant","message":42}\n{"type":"brand_new","x":1}\n',
    );
    expect(kinds(parse([input]))).toEqual([
      'issue:invalid_json',
      'issue:schema',
      'issue:schema',
      'issue:schema',
      'other',
    ]);
  });

  it('flags a last line without newline, and still uses it when it is whole', () => {
    const result = '{"type":"result","subtype":"success","is_error":false}';
    expect(kinds(parse([Buffer.from(result)]))).toEqual(['issue:truncated', 'result']);
    expect(kinds(parse([Buffer.from('{"type":"res')]))).toEqual(['issue:truncated']);
  });

  it('reads a 10 MB line in bounded memory and keeps the fields around the huge text', () => {
    const big = 'z'.repeat(10 * 1024 * 1024);
    const line = JSON.stringify({
      total_cost_usd: 0.25,
      result: big,
      type: 'result',
      subtype: 'success',
      is_error: false,
      num_turns: 2,
    });
    const parsed = parse(pieces(Buffer.from(`${line}\n`), 64 * 1024), 1024 * 1024);
    expect(kinds(parsed)).toEqual(['issue:oversize', 'result']);
    const result = parsed[1];
    if (result?.kind !== 'result') throw new Error('no result');
    expect(result.result).toMatchObject({ totalCostUsd: 0.25, subtype: 'success', numTurns: 2 });
    expect(result.result.text!.length).toBeLessThan(100_000);
    expect(result.result.text).toContain('[cut:');
  });

  it('ends a stream that stops inside a long line with a truncated issue', () => {
    const parsed = parse(
      [Buffer.from(`{"type":"assistant","message":{"content":"${'a'.repeat(5000)}`)],
      1024,
    );
    expect(kinds(parsed)).toEqual(['issue:truncated']);
  });

  it('refuses absurd nesting without overflowing the stack', () => {
    const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}\n`;
    expect(kinds(parse([Buffer.from(deep)], 1024))).toEqual(['issue:too_deep']);
    expect(kinds(parse([Buffer.from(deep)]))[0]).toMatch(/^issue:/);
  });

  it('keeps a 4-byte emoji split across chunks, and replaces invalid bytes', () => {
    const line = Buffer.from(
      `${JSON.stringify({ type: 'assistant', message: { content: [{ type: 'text', text: 'ok 😀' }] } })}\n`,
    );
    const at = line.indexOf(Buffer.from('😀')) + 2;
    const parsed = parse([line.subarray(0, at), line.subarray(at)]);
    expect(parsed[0]).toMatchObject({ kind: 'assistant', texts: ['ok 😀'] });
    const invalid = Buffer.concat([
      Buffer.from('{"type":"assistant","message":{"content":[{"type":"text","text":"a'),
      Buffer.from([0xc3, 0x28]),
      Buffer.from('"}]}}\n'),
    ]);
    expect(parse([invalid])).toMatchObject([
      { kind: 'issue', issue: 'invalid_utf8' },
      { kind: 'assistant', texts: ['a\ufffd('] },
    ]);
  });

  it("reads an assistant message's token usage, numbers only", () => {
    const line = (usage: unknown) =>
      Buffer.from(`${JSON.stringify({ type: 'assistant', message: { content: [], usage } })}\n`);
    expect(
      parse([
        line({
          input_tokens: 12,
          output_tokens: 3,
          cache_read_input_tokens: 100,
          service_tier: 'x',
        }),
      ]),
    ).toMatchObject([
      { kind: 'assistant', usage: { inputTokens: 12, outputTokens: 3, cacheReadTokens: 100 } },
    ]);
    expect(parse([line({ output_tokens: 'many' })])[0]).not.toHaveProperty('usage');
    expect(parse([line(undefined)])[0]).not.toHaveProperty('usage');
  });
});

describe('JsonSkimmer', () => {
  const skim = (text: string, chunk = 3) => {
    const skimmer = new JsonSkimmer({ maxStringBytes: 8, maxDepth: 4, maxElements: 3 });
    for (const piece of pieces(Buffer.from(text), chunk)) skimmer.write(piece);
    return skimmer.end();
  };

  it('decodes values like JSON.parse when they fit', () => {
    expect(skim(JSON.stringify({ a: [1, -2.5e3, true], b: { c: 'x"y\né' } }))).toEqual({
      ok: true,
      value: { a: [1, -2500, true], b: { c: 'x"y\né' } },
      truncatedStrings: 0,
    });
  });

  it('cuts long strings, keeps a bounded number of elements and refuses deep nesting', () => {
    const result = skim(JSON.stringify({ s: 'abcdefghijklmnop', l: [1, 2, 3, 4, 5] }));
    expect(result).toMatchObject({
      ok: true,
      value: { s: 'abcdefgh…[cut: 8 more bytes]', l: [1, 2, 3] },
      truncatedStrings: 1,
    });
    expect(skim('[[[[[1]]]]]')).toEqual({ ok: false, error: 'nesting deeper than 4 levels' });
    expect(skim('{"a":1,}').ok).toBe(false);
    expect(skim('{"a":1} x').ok).toBe(false);
  });
});
