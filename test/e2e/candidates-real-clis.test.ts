// End-to-end: candidates written by the real claude, codex and gemini, each against the suite's
// fake of its API, on a repository whose own test suite is the gate; judged by the real opencode
// (a CLI that wrote none of them), anonymized and shuffled; the change it ranks first lands.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { claudeEnv, lastIsToolResult, startFakeAnthropic } from '../support/fake-anthropic.js';
import { fakeApisClosedAfterEach } from '../support/fake-apis.js';
import { lastFunctionResponse, startFakeGemini } from '../support/fake-gemini.js';
import {
  inputItems,
  lastToolOutput,
  startFakeOpenAi,
  type OpenAiRequest,
} from '../support/fake-openai.js';
import { git, makeRepo } from '../support/git.js';
import { OPENAI_TEST_KEY, codexCommand } from '../support/real-codex.js';
import { geminiCommand, geminiEnv } from '../support/real-gemini.js';
import { REAL_OPENCODE, opencodeEnv } from '../support/real-opencode.js';
import {
  REAL_CLAUDE,
  makeWorkspace,
  ralph,
  readQueue,
  readSessions,
} from '../support/workspace.js';

const apis = fakeApisClosedAfterEach();

const TARGET = 'ralph/landed';

/** A repository with a module and its test suite: the gate every candidate must pass. */
async function repoWithTests(): Promise<string> {
  const repo = await makeRepo();
  fs.writeFileSync(path.join(repo, 'add.mjs'), 'export const add = (a, b) => a + b;\n');
  fs.writeFileSync(
    path.join(repo, 'add.test.mjs'),
    [
      "import { test } from 'node:test';",
      "import assert from 'node:assert/strict';",
      "import { add } from './add.mjs';",
      "test('adds', () => assert.equal(add(2, 3), 5));",
      '',
    ].join('\n'),
  );
  git(repo, 'add', '.');
  git(repo, 'commit', '-qm', 'add, tested');
  return repo;
}

/** What each candidate's agent runs: A and C write a note each; B breaks `add`. */
const WRITES = {
  A: "printf 'first way\\n' > notes-one.txt",
  B: "printf 'export const add = (a, b) => a - b;\\n' > add.mjs",
  C: "printf 'second way\\n' > notes-two.txt",
};

/** The judge's verdict: every shown candidate meets the criterion; the one with `notes-two` ranks first. */
function verdictFor(request: string): string {
  const sections = [
    ...request.matchAll(/## Candidate ([A-Z])\n([\s\S]*?)(?=## Candidate |## Your answer)/g),
  ];
  const labels = sections.map((s) => s[1]!);
  const best = sections.find((s) => s[2]!.includes('notes-two.txt'))?.[1];
  if (best === undefined) return 'No candidates found.';
  return JSON.stringify({
    candidates: labels.map((candidate) => ({
      candidate,
      criteria: [{ id: 1, verdict: 'PASS', evidence: 'its notes file, one line' }],
    })),
    ranking: [best, ...labels.filter((l) => l !== best)],
    reason: `${best} names its way the more plainly.`,
  });
}

/** The text a chat request (opencode's) carries in its messages, as the model would read it. */
function chatText(request: OpenAiRequest): string {
  const text = (content: unknown): string =>
    typeof content === 'string'
      ? content
      : Array.isArray(content)
        ? content.map((part) => text((part as { text?: unknown }).text)).join('\n')
        : '';
  return inputItems(request)
    .map((message) => text(message.content))
    .join('\n');
}

describe('candidates written by three real CLIs and judged by a fourth', () => {
  it("puts out the one that breaks the tests, lands the judge's pick, and keeps all three", async () => {
    const anthropic = await startFakeAnthropic((request) =>
      lastIsToolResult(request)
        ? { kind: 'text', text: 'Wrote my notes.' }
        : { kind: 'tool_use', name: 'Bash', input: { command: WRITES.A, description: 'write' } },
    );
    apis.anthropic = anthropic;
    // codex asks the Responses API; opencode, the judge, asks chat completions.
    const openai = await startFakeOpenAi((request) => {
      if (request.api === 'chat') return { kind: 'text', text: verdictFor(chatText(request)) };
      return lastToolOutput(request) === undefined
        ? { kind: 'shell', command: WRITES.B }
        : { kind: 'text', text: 'Changed add.' };
    });
    apis.openai = openai;
    const google = await startFakeGemini((request) =>
      lastFunctionResponse(request) === undefined
        ? { kind: 'shell', command: WRITES.C }
        : { kind: 'text', text: 'Wrote my notes.' },
    );
    apis.google = google;
    const repo = await repoWithTests();
    const root = await makeWorkspace({
      clis: {
        claude: { command: [REAL_CLAUDE] },
        codex: { command: codexCommand(openai) },
        gemini: { command: geminiCommand() },
        opencode: { command: [REAL_OPENCODE] },
      },
      defaults: { workDir: repo },
      git: { enabled: true },
      land: { enabled: true },
      gates: [['node', '--test']],
      // The reviewer's CLI judges: it wrote no candidate.
      review: { enabled: true, cli: 'opencode' },
      prices: {
        codex: { input: 1.25, cachedInput: 0.125, output: 10 },
        gemini: { input: 0.3, cachedInput: 0.075, output: 2.5 },
      },
      run: { failureBackoffCap: 0, maxConsecutiveFailures: 0, pollInterval: 0.5 },
      sandbox: { kind: 'none' },
    });
    const geminiVars = await geminiEnv(google);
    const env = {
      ...(await opencodeEnv(openai)),
      ...geminiVars,
      ...claudeEnv(anthropic, geminiVars.HOME!),
      OPENAI_API_KEY: OPENAI_TEST_KEY,
    };
    const added = await ralph(
      root,
      [
        'add',
        'Write down a way',
        '--id',
        'x',
        '--body',
        'Write a one-line note of a way to do it; keep the tests passing.',
        '--criterion',
        'a notes file of one line',
        '--max-attempts',
        '1',
        '--candidates',
        'claude,codex,gemini',
      ],
      env,
    );
    expect(added.code, added.stderr).toBe(0);

    const run = await ralph(root, ['run', '--drain', '--workers', '3'], env);
    expect(run.code, run.stderr).toBe(0);
    const x = readQueue(root).items.find((i) => i.id === 'x')!;
    expect(x, JSON.stringify(x)).toMatchObject({
      status: 'done',
      landedOn: TARGET,
      branch: 'ralph/x.c',
      judgement: { cli: 'opencode', picked: 'C', ranking: ['C', 'A'] },
    });
    // What landed is C's work and only C's: B's broken add is out, with its test's output.
    expect(git(repo, 'show', `${TARGET}:notes-two.txt`)).toBe('second way');
    expect(git(repo, 'show', `${TARGET}:add.mjs`)).toContain('a + b');
    expect(git(repo, 'ls-tree', '--name-only', TARGET)).not.toContain('notes-one.txt');
    const roster = x.roster as { letter: string; cli: string; out?: string }[];
    expect(roster.map((c) => [c.letter, c.cli, c.out === undefined])).toEqual([
      ['A', 'claude', true],
      ['B', 'codex', false],
      ['C', 'gemini', true],
    ]);
    expect(roster[1]?.out).toMatch(/node --test/);
    expect(roster[1]?.out).toMatch(/add\.test\.mjs:4/);
    const shown = (await ralph(root, ['show', 'x'], env)).stdout;
    expect(shown).toMatch(/^ {2}B codex .*: out: gate "node --test" failed/m);
    expect(shown).toMatch(/^ {6}# fail 1$/m);
    expect(shown).toMatch(/^ {2}C gemini .*: picked at [0-9a-f]{12}/m);
    // Every candidate's branch is kept under its ref.
    const refs = git(repo, 'for-each-ref', '--format=%(refname)', 'refs/ralph/candidates/x/');
    expect(refs.split('\n').sort()).toEqual([
      'refs/ralph/candidates/x/A-claude',
      'refs/ralph/candidates/x/B-codex',
      'refs/ralph/candidates/x/C-gemini',
    ]);
    // Four sessions: three candidates and the judge; no reviewer besides. The item costs their sum.
    const sessions = readSessions(root);
    expect(sessions.map((s) => [s.itemId, s.cli, s.role ?? 'author']).sort()).toEqual([
      ['x', 'opencode', 'judge'],
      ['x.a', 'claude', 'author'],
      ['x.b', 'codex', 'author'],
      ['x.c', 'gemini', 'author'],
    ]);
    const costs = sessions.map((s) => (s.result as { costUsd?: number } | undefined)?.costUsd);
    expect(
      costs.every((usd) => usd !== undefined && usd > 0),
      String(costs),
    ).toBe(true);
    const sum = costs.reduce((n: number, usd) => n + usd!, 0);
    expect(x.costUsd).toBeCloseTo(sum, 9);
    // The judge was told of no candidate's CLI or model: neither in ralph's request nor on the wire.
    const judged = openai.requests.filter((r) => r.api === 'chat');
    expect(judged.length).toBeGreaterThan(0);
    const judge = sessions.find((s) => s.role === 'judge')!;
    const prompt = fs.readFileSync(
      path.join(root, 'docs', 'sessions', `${String(judge.sessionId)}-prompt.md`),
      'utf8',
    );
    expect(prompt).toContain('## Candidate B');
    for (const text of [prompt, ...judged.map((r) => JSON.stringify(inputItems(r)))])
      expect(text).not.toMatch(/claude|codex|gemini|sonnet|opus|gpt/i);
  }, 300_000);
});
