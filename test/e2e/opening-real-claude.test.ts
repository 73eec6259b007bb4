// What a session of the real claude spends before it works, against the fake Anthropic API: the
// first request (a cache write of the system prompt and tools) made the first tool call; the
// record, the index, `ralph report` and its JSON count it beside the session's total.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { closeFakeApiAfterEach, realClaudeWorkspace } from '../support/real-claude.js';
import type { SessionRecord } from '../../src/archive/record.js';
import { ralph, readSessions } from '../support/workspace.js';

closeFakeApiAfterEach();

describe(
  'the tokens a session of the real claude spends before its first tool call',
  { timeout: 180_000 },
  () => {
    it('are counted from the requests up to the first tool call, and reported beside the total', async () => {
      const { root, env } = await realClaudeWorkspace((request) =>
        JSON.stringify(request.body.messages ?? []).includes('tool_result')
          ? {
              kind: 'text',
              text: 'Wrote it.',
              usage: { input_tokens: 20, output_tokens: 40, cache_read_input_tokens: 30_000 },
            }
          : {
              kind: 'tool_use',
              name: 'Write',
              input: { file_path: 'out.txt', content: 'done\n' },
              usage: { input_tokens: 10, output_tokens: 50, cache_creation_input_tokens: 30_000 },
            },
      );
      fs.mkdirSync(path.join(root, 'work'));
      expect(
        (await ralph(root, ['add', 'Write it', '--id', 'w', '--work-dir', 'work'], env)).code,
      ).toBe(0);
      const run = await ralph(root, ['run', '--drain'], env);
      expect(run.code, run.stderr).toBe(0);
      const [record] = readSessions(root) as unknown as SessionRecord[];
      // The first request's tokens, as the API reported them; the session's are both requests'.
      expect(record?.opening).toMatchObject({
        tokens: { input: 10, output: 50, cacheRead: 0, cacheCreation: 30_000 },
        toolCalled: true,
      });
      expect(record?.tokens).toEqual({
        input: 30,
        output: 90,
        cacheRead: 30_000,
        cacheCreation: 30_000,
      });
      const cost = record?.result?.costUsd ?? 0;
      expect(cost).toBeGreaterThan(0);
      // Its share of the cost: the cache write of the first request is most of this session's.
      expect(record?.opening?.costUsd).toBeGreaterThan(cost * 0.8);
      expect(record?.opening?.costUsd).toBeLessThan(cost);
      const index = fs
        .readFileSync(path.join(root, 'docs', 'sessions', 'index.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as { opening?: unknown });
      expect(index.at(-1)?.opening).toEqual({ tokens: 30_060, costUsd: record?.opening?.costUsd });
      const report = JSON.parse((await ralph(root, ['report', '--json'], env)).stdout) as {
        opening: Record<string, number>;
        byDay: { opening: Record<string, number> }[];
      };
      expect(report.opening).toMatchObject({ sessions: 1, tokens: 30_060, totalTokens: 60_120 });
      expect(report.byDay[0]?.opening).toEqual(report.opening);
      const text = (await ralph(root, ['report'], env)).stdout;
      expect(text).toContain('BEFORE WORK');
      expect(text).toMatch(
        /Before the first tool call: 30,060 of 60,120 tokens \(50%\), ~\$0\.\d{4} of \$0\.\d{4} \(9\d%\)/,
      );
    });
  },
);
