// End-to-end: a reviewer of another CLI, on the real binaries against the suite's fake APIs.
// The real codex reviews a branch the real claude wrote, and the reverse; each verdict is read
// from the CLI's real output, asked for by its own means (codex's --output-schema, claude's
// --json-schema), and the real claude reviewer is refused its write in the worktree.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  claudeEnv,
  lastIsToolResult,
  startFakeAnthropic,
  requestText,
  systemText,
  type FakeAnthropic,
  type RecordedRequest,
} from '../support/fake-anthropic.js';
import { lastToolOutput, startFakeOpenAi, type FakeOpenAi } from '../support/fake-openai.js';
import { startFakeGemini, type FakeGemini } from '../support/fake-gemini.js';
import { git, makeRepo } from '../support/git.js';
import { GEMINI_TEST_KEY, geminiCommand, geminiHome } from '../support/real-gemini.js';
import { REAL_OPENCODE, opencodeEnv } from '../support/real-opencode.js';
import { REAL_PI, piEnv } from '../support/real-pi.js';
import { OPENAI_TEST_KEY, codexCommand } from '../support/real-codex.js';
import {
  REAL_CLAUDE,
  makeWorkspace,
  ralph,
  readQueue,
  readSessions,
  tempDir,
} from '../support/workspace.js';

let anthropic: FakeAnthropic | undefined;
let openai: FakeOpenAi | undefined;
let gemini: FakeGemini | undefined;
afterEach(async () => {
  await anthropic?.close();
  await openai?.close();
  await gemini?.close();
  gemini = undefined;
});

const TARGET = 'ralph/landed';

/** A verdict approving the item's one criterion, with evidence. */
const approval = (evidence: string) => ({
  criteria: [{ id: 1, verdict: 'PASS', evidence }],
  findings: [],
  overall: 'approve',
  summary: 'It does what the task asks.',
});

/** A workspace over a new repository with claude and codex real, review on by `reviewer`. */
async function night(
  author: 'claude' | 'codex',
  reviewer: 'claude' | 'codex',
  sandbox: 'none' | 'bwrap' = 'none',
) {
  const repo = await makeRepo();
  const root = await makeWorkspace({
    clis: {
      claude: { command: [REAL_CLAUDE] },
      codex: { command: codexCommand(openai!) },
    },
    defaults: {
      cli: author,
      workDir: repo,
      ...(author === 'claude' ? { allowedTools: ['Bash', 'Read'] } : {}),
    },
    git: { enabled: true },
    land: { enabled: true },
    review: { enabled: true, cli: reviewer },
    // codex reports tokens, not dollars: priced, its reviews cost what its tokens do.
    prices: { codex: { input: 2, output: 8 } },
    run: { failureBackoffCap: 0, maxConsecutiveFailures: 0 },
    // codex's API is named in its configuration, not its environment: allowed by host.
    sandbox: { kind: sandbox, network: 'allow', allowHosts: [new URL(openai!.url).host] },
  });
  const env = {
    ...claudeEnv(anthropic!, await tempDir('ralph-home-')),
    OPENAI_API_KEY: OPENAI_TEST_KEY,
  };
  return { repo, root, env };
}

const reviewerRecord = (root: string) => readSessions(root).find((r) => r.role === 'reviewer');
const isReviewer = (request: RecordedRequest) =>
  systemText(request).includes('You are a reviewer run by ralph');

describe('a reviewer of another CLI, on the real binaries', () => {
  it("codex reviews the branch claude wrote: its verdict read from codex's output, the change landed", async () => {
    anthropic = await startFakeAnthropic((request) =>
      lastIsToolResult(request)
        ? { kind: 'text', text: 'Wrote greet.txt.' }
        : {
            kind: 'tool_use',
            name: 'Bash',
            input: { command: 'echo hello > greet.txt', description: 'write it' },
          },
    );
    openai = await startFakeOpenAi(() => ({
      kind: 'text',
      text: JSON.stringify(approval('greet.txt:1 says hello')),
    }));
    const { repo, root, env } = await night('claude', 'codex');
    await ralph(
      root,
      ['add', 'Greet', '--id', 'greet', '--criterion', 'greet.txt says hello'],
      env,
    );
    const run = await ralph(root, ['run', '--drain'], env);
    expect(run.code, run.stderr).toBe(0);
    const [item] = readQueue(root).items;
    expect(item).toMatchObject({
      status: 'done',
      landedOn: TARGET,
      verdict: {
        overall: 'approve',
        cli: 'codex',
        criteria: [{ id: 1, verdict: 'PASS', evidence: 'greet.txt:1 says hello' }],
      },
    });
    expect(git(repo, 'show', `${TARGET}:greet.txt`)).toBe('hello');
    // codex was asked for the verdict's shape by its own means, read-only, given the diff.
    const record = reviewerRecord(root)!;
    expect(record).toMatchObject({ cli: 'codex', outcome: { kind: 'success' } });
    expect(record.command).toEqual(
      expect.arrayContaining(['sandbox_mode="read-only"', '--output-schema']),
    );
    const [request] = openai.requests;
    expect(JSON.stringify(request?.body.text)).toContain('json_schema');
    const sent = JSON.stringify(request?.body);
    expect(sent).toContain('+hello');
    expect(sent).toContain('greet.txt says hello');
    // Its cost is the item's too.
    expect((item?.reviewCostUsd as number) > 0).toBe(true);
  });

  it.each([
    ['outside a sandbox', 'none', 'plan'],
    ["in ralph's sandbox", 'bwrap', 'dontAsk'],
  ] as const)(
    'claude reviews the branch codex wrote %s: refused its write, its structured verdict read',
    async (_, sandbox, mode) => {
      openai = await startFakeOpenAi((request) =>
        lastToolOutput(request) === undefined
          ? { kind: 'shell', command: 'echo hi > hi.txt' }
          : { kind: 'text', text: 'Wrote hi.txt.' },
      );
      anthropic = await startFakeAnthropic((request) => {
        if (!isReviewer(request)) return { kind: 'text', text: 'nothing to do' };
        const dir = /Working directory \(read-only\): (\S+)/.exec(requestText(request))?.[1] ?? '.';
        // First it tries to write in the worktree; refused, it answers its verdict.
        return lastIsToolResult(request)
          ? { kind: 'tool_use', name: 'StructuredOutput', input: approval('hi.txt:1 says hi') }
          : {
              kind: 'tool_use',
              name: 'Write',
              input: { file_path: path.join(dir, 'reviewer.txt'), content: 'mine' },
            };
      });
      const { repo, root, env } = await night('codex', 'claude', sandbox);
      await ralph(root, ['add', 'Say hi', '--id', 'hi', '--criterion', 'hi.txt says hi'], env);
      const run = await ralph(root, ['run', '--drain'], env);
      expect(run.code, run.stderr).toBe(0);
      const [item] = readQueue(root).items;
      expect(item).toMatchObject({
        status: 'done',
        verdict: {
          overall: 'approve',
          cli: 'claude',
          criteria: [{ id: 1, evidence: 'hi.txt:1 says hi' }],
        },
      });
      const record = reviewerRecord(root)!;
      expect(record).toMatchObject({ cli: 'claude' });
      expect(record.command).toEqual(
        expect.arrayContaining(['--permission-mode', mode, '--json-schema']),
      );
      // The write was refused: nothing of the reviewer's is in the worktree's branch or on the target.
      const denials = (record.result as { permissionDenials: { toolName: string }[] })
        .permissionDenials;
      expect(denials.map((d) => d.toolName)).toContain('Write');
      expect(git(repo, 'ls-tree', '--name-only', TARGET).split('\n').sort()).toEqual([
        'README.md',
        'hi.txt',
      ]);
      expect(fs.existsSync(path.join(root, 'worktrees', 'hi', 'reviewer.txt'))).toBe(false);
    },
  );
});

/** A verdict of several kilobytes: its criterion shown to hold, twenty findings with evidence. */
function longVerdict(): Record<string, unknown> {
  return {
    criteria: [
      { id: 1, verdict: 'PASS', evidence: 'greet.txt:1 says hello, read in the worktree' },
    ],
    findings: Array.from({ length: 20 }, (_, i) => ({
      severity: 'minor',
      place: `greet.txt:${i + 1}`,
      finding: `Finding ${i + 1}: the line could say more; ${'the evidence, read in the worktree. '.repeat(5)}`,
    })),
    overall: 'approve',
    summary: 'It does what the task asks; the minor findings are the author’s to weigh.',
  };
}

const verdictAnswer = () =>
  `I read the diff and the worktree.\n\n\`\`\`json\n${JSON.stringify(longVerdict(), null, 2)}\n\`\`\``;

describe('every CLI as the reviewer, on its real binary', () => {
  it.each(['claude', 'codex', 'gemini', 'opencode', 'pi'] as const)(
    '%s reviews the branch claude wrote: a verdict of several kilobytes read whole, the change landed',
    async (reviewer) => {
      expect(verdictAnswer().length).toBeGreaterThan(4000);
      anthropic = await startFakeAnthropic((request) => {
        if (isReviewer(request))
          return { kind: 'tool_use', name: 'StructuredOutput', input: longVerdict() };
        return lastIsToolResult(request)
          ? { kind: 'text', text: 'Wrote greet.txt.' }
          : {
              kind: 'tool_use',
              name: 'Bash',
              input: { command: 'echo hello > greet.txt', description: 'write it' },
            };
      });
      openai = await startFakeOpenAi(() => ({ kind: 'text', text: verdictAnswer() }));
      gemini = await startFakeGemini(() => ({ kind: 'text', text: verdictAnswer() }));
      const repo = await makeRepo();
      const root = await makeWorkspace({
        clis: {
          claude: { command: [REAL_CLAUDE] },
          codex: { command: codexCommand(openai) },
          gemini: { command: geminiCommand() },
          opencode: { command: [REAL_OPENCODE] },
          pi: { command: [REAL_PI] },
        },
        defaults: { cli: 'claude', workDir: repo, allowedTools: ['Bash', 'Read'] },
        git: { enabled: true },
        land: { enabled: true },
        review: { enabled: true, cli: reviewer },
        run: { failureBackoffCap: 0, maxConsecutiveFailures: 0 },
        sandbox: { kind: 'none' },
      });
      // One HOME holds what each CLI reads there (gemini's and pi's settings).
      const home = reviewer === 'gemini' ? await geminiHome() : await tempDir('ralph-home-');
      const own =
        reviewer === 'pi'
          ? await piEnv(openai)
          : reviewer === 'opencode'
            ? await opencodeEnv(openai)
            : reviewer === 'gemini'
              ? { GEMINI_API_KEY: GEMINI_TEST_KEY, GOOGLE_GEMINI_BASE_URL: gemini.url }
              : { OPENAI_API_KEY: OPENAI_TEST_KEY };
      const env = { ...own, ...claudeEnv(anthropic, 'HOME' in own ? own.HOME : home) };
      await ralph(
        root,
        ['add', 'Greet', '--id', 'greet', '--criterion', 'greet.txt says hello'],
        env,
      );
      const run = await ralph(root, ['run', '--drain'], env);
      expect(run.code, run.stderr).toBe(0);
      const [item] = readQueue(root).items;
      expect(item, JSON.stringify(item)).toMatchObject({
        status: 'done',
        landedOn: TARGET,
        verdict: { overall: 'approve', cli: reviewer },
      });
      expect((item?.verdict as { findings: unknown[] }).findings).toHaveLength(20);
      expect(git(repo, 'show', `${TARGET}:greet.txt`)).toBe('hello');
      expect(reviewerRecord(root)).toMatchObject({ cli: reviewer });
    },
  );
});
