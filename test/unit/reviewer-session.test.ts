// A reviewer's session on any of the five CLIs: its whole final message reaches the verdict
// reader (a verdict of several kilobytes, where the CLI's result carries no text of its own),
// and its read-only rules are ones its CLI can hold.
import { describe, expect, it } from 'vitest';
import { resolveSandbox } from '../../src/agent/settings.js';
import { sessionFiles } from '../../src/archive/paths.js';
import { CLI_NAMES } from '../../src/config/cli-names.js';
import { loadWorkspace } from '../../src/config/workspace.js';
import { readVerdict } from '../../src/review/verdict.js';
import { reviewerOf } from '../../src/review/reviewer.js';
import { prepareAnswering } from '../../src/session/prepare-answering.js';
import { applyToSummary, emptySummary } from '../../src/stream/summary.js';
import type { Item } from '../../src/queue/item.js';
import { makeWorkspace, tempDir } from '../support/workspace.js';

/** A verdict with findings and evidence enough to be several kilobytes long. */
function longVerdict(): string {
  const findings = Array.from({ length: 20 }, (_, i) => ({
    severity: 'minor',
    place: `src/module-${i}.ts:${10 + i}`,
    finding: `The helper in module ${i} repeats the parsing the shared reader already does; ${'a reason, with evidence. '.repeat(6)}`,
  }));
  const verdict = {
    criteria: [
      { id: 1, verdict: 'PASS', evidence: 'greet.txt:1 says hello, read in the worktree' },
    ],
    findings,
    overall: 'approve',
    summary: 'It does what the task asks; the findings are the author’s to weigh.',
  };
  return `I read the diff and the worktree.\n\n\`\`\`json\n${JSON.stringify(verdict, null, 2)}\n\`\`\``;
}

describe("a reviewer's final message", () => {
  it('is kept whole in the summary, and read as a verdict', () => {
    const text = longVerdict();
    expect(text.length).toBeGreaterThan(4000);
    const summary = emptySummary();
    applyToSummary(
      summary,
      { kind: 'assistant', texts: [text], toolUses: [], synthetic: false },
      Date.now(),
    );
    expect(summary.lastText).toBe(text);
    const read = readVerdict(summary.lastText ?? '', ['greet.txt says hello']);
    expect(read).toMatchObject({ kind: 'verdict', verdict: { overall: 'approve' } });
    if (read.kind === 'verdict') expect(read.verdict.findings).toHaveLength(20);
  });
});

describe("a reviewer's rules", () => {
  it.each(CLI_NAMES)('are ones %s can hold: its session is prepared', async (cli) => {
    const root = await makeWorkspace({});
    const workspace = await loadWorkspace(root);
    const workDir = await tempDir('ralph-review-work-');
    const sessionId = '00000000-0000-4000-8000-000000000001';
    const item = { id: 'greet', title: 'Greet', sessions: [], attempts: 1 } as unknown as Item;
    const prepared = prepareAnswering({
      kind: reviewerOf(item.criteria ?? []),
      workspace,
      item,
      identity: {
        sessionId,
        iteration: 0,
        files: sessionFiles(workspace.paths.sessions, sessionId),
      },
      parentEnv: { PATH: process.env.PATH },
      cli,
      prompt: 'Review it.',
      workDir,
      timeoutSeconds: 60,
      sandbox: { ...resolveSandbox(workspace.config, []), kind: 'none' },
      worktree: workDir,
    });
    expect('reason' in prepared ? prepared.reason : undefined).toBeUndefined();
    if ('reason' in prepared) return;
    // Never a writing tool it has: Edit and Write are refused on every CLI.
    expect(prepared.settings.disallowedTools).toEqual(expect.arrayContaining(['Edit', 'Write']));
    expect(prepared.settings.allowedTools).toEqual(['Read', 'Glob', 'Grep']);
  });
});
