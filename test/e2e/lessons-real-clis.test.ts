// End-to-end, two nights on the real binaries against the suite's fake APIs: the real claude
// writes, the real codex reviews and proposes rules. Night 1 lands a change to dist/ that the
// person rejects with a note, and one the person accepts over its reviewer's finding; the
// proposal holds a rule and a dismissed finding, each with its evidence, and the person accepts
// both in the terminal inbox (tmux). Night 2: every author's first request holds the rule, the
// same bytes for two items and before the item's own text; the reviewer is given the rule as a
// criterion and the dismissed finding as not to raise; a change to dist/ is sent back citing the
// rule; the report counts the rule applied once and broken once.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  claudeEnv,
  lastIsToolResult,
  requestText,
  startFakeAnthropic,
  type FakeAnthropic,
  type RecordedRequest,
} from '../support/fake-anthropic.js';
import { startFakeOpenAi, type FakeOpenAi, type OpenAiRequest } from '../support/fake-openai.js';
import { git, makeRepo } from '../support/git.js';
import { OPENAI_TEST_KEY, codexCommand } from '../support/real-codex.js';
import { eventually } from '../support/wait.js';
import {
  RALPH_BIN,
  REAL_CLAUDE,
  makeWorkspace,
  ralph,
  readQueue,
  tempDir,
} from '../support/workspace.js';

const TARGET = 'ralph/landed';
const NOTE = 'never edit generated files under dist/';
const FINDING = 'add a comment above the greeting';

let anthropic: FakeAnthropic | undefined;
let openai: FakeOpenAi | undefined;
const tmuxSession = `ralph-lessons-${process.pid}`;
const tmux = (...args: string[]) => execFileSync('tmux', args, { encoding: 'utf8' });
const screen = () => tmux('capture-pane', '-p', '-t', tmuxSession);
const keys = (...k: string[]) => tmux('send-keys', '-t', tmuxSession, ...k);
const shellWord = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
const seen = (pattern: RegExp, what: string) =>
  eventually(() => pattern.test(screen()), 30_000, what).catch((error: unknown) => {
    throw new Error(`${String(error)}; the screen:\n${screen()}`);
  });

afterEach(async () => {
  await anthropic?.close();
  await openai?.close();
  try {
    tmux('kill-session', '-t', tmuxSession);
  } catch {
    // Already gone.
  }
});

/** The item a request is of, by the line ralph's prompt names it on. */
const itemOf = (text: string) => /Work item: (\S+)/.exec(text)?.[1];

/** What the real claude does as each item's author: a shell command, then its last word. */
function author(request: RecordedRequest) {
  if (lastIsToolResult(request)) return { kind: 'text' as const, text: 'Done.' };
  const text = requestText(request);
  const again = text.includes('asked for changes');
  const commands: Record<string, string> = {
    a: 'mkdir -p dist && echo built > dist/app.js',
    b: again ? "echo 'hello, again' >> greet.txt" : 'echo hello > greet.txt',
    c: 'echo c > c.txt',
    d: text.includes('it found broken')
      ? 'git rm -q dist/d.js'
      : 'mkdir -p dist && echo d > dist/d.js && echo d > d.txt',
  };
  return {
    kind: 'tool_use' as const,
    name: 'Bash',
    input: { command: commands[itemOf(text) ?? ''] ?? 'true', description: 'do the task' },
  };
}

/** What the real codex answers: a reviewer's verdict by item, or the proposer's rules. */
function codex(request: OpenAiRequest) {
  const text = JSON.stringify(request.body);
  if (text.includes('You propose rules for the agents of ralph'))
    return {
      kind: 'text' as const,
      text: JSON.stringify({
        rules: [
          {
            text: 'Never edit generated files under dist/.',
            kind: 'follow',
            scope: ['dist/**'],
            evidence: ['L1'],
          },
          {
            text: 'Do not ask for comments on code that reads plainly.',
            kind: 'dismiss',
            scope: [],
            evidence: ['L2'],
          },
        ],
        summary: 'A rejection and a finding the person overruled.',
      }),
    };
  const item = itemOf(text.replace(/\\n/g, '\n'));
  const pass = { id: 1, verdict: 'PASS', evidence: 'read the diff' };
  const verdict =
    item === 'b'
      ? {
          criteria: [pass],
          findings: [{ severity: 'major', place: 'greet.txt:1', finding: FINDING }],
          overall: 'request_changes',
          summary: 'It needs a comment.',
        }
      : item === 'd' && text.includes('## Rules of this project')
        ? {
            criteria: [
              pass,
              { id: 2, verdict: 'FAIL', evidence: 'dist/d.js:1 is a generated file under dist/' },
            ],
            findings: [],
            overall: 'request_changes',
            summary: 'It breaks rule R1.',
          }
        : { criteria: [pass], findings: [], overall: 'approve', summary: 'It does the task.' };
  return { kind: 'text' as const, text: JSON.stringify(verdict) };
}

/** Moves the terminal inbox's selection to the row that names `id`. */
async function select(id: string): Promise<void> {
  const rows = () =>
    screen()
      .split('\n')
      .filter((line) => /^[> ] +(\d+|\+) +\S/.test(line));
  const at = () => rows().findIndex((line) => line.startsWith('>'));
  const want = rows().findIndex((line) => new RegExp(`^[> ] +(\\d+|\\+) +${id} `).test(line));
  expect(want, `${id} in the inbox:\n${screen()}`).toBeGreaterThanOrEqual(0);
  while (at() !== want) {
    keys(at() < want ? 'j' : 'k');
    await eventually(() => at() !== -1, 5_000, 'the selection');
  }
}

const add = (root: string, id: string, title: string, env: Record<string, string>) =>
  ralph(root, ['add', title, '--id', id, '--criterion', 'it does what the title says'], env);

describe('a night learns from the morning, on the real binaries', () => {
  it('proposes a rule and a dismissed finding from two decisions; followed and checked the next night', async () => {
    anthropic = await startFakeAnthropic(author);
    openai = await startFakeOpenAi(codex);
    const repo = await makeRepo();
    const root = await makeWorkspace({
      clis: { claude: { command: [REAL_CLAUDE] }, codex: { command: codexCommand(openai) } },
      defaults: { cli: 'claude', workDir: repo, allowedTools: ['Bash', 'Read'] },
      git: { enabled: true },
      land: { enabled: true },
      review: { enabled: true, cli: 'codex', maxRounds: 2 },
      prices: { codex: { input: 2, output: 8 } },
      run: { failureBackoffCap: 0, maxConsecutiveFailures: 0 },
    });
    const env = {
      ...claudeEnv(anthropic, await tempDir('ralph-home-')),
      OPENAI_API_KEY: OPENAI_TEST_KEY,
    };

    // Night 1: a's change to dist/ lands; b waits for the person, its reviewer's rounds spent.
    await add(root, 'a', 'Build the bundle', env);
    await add(root, 'b', 'Greet the user', env);
    const night1 = await ralph(root, ['run', '--drain'], env);
    expect(night1.code, night1.stderr).toBe(0);
    const items1 = readQueue(root).items;
    expect(items1.find((i) => i.id === 'a')).toMatchObject({ status: 'done', landedOn: TARGET });
    expect(items1.find((i) => i.id === 'b')).toMatchObject({
      status: 'needs_input',
      verdict: { overall: 'request_changes', cli: 'codex' },
    });

    // The morning, in the terminal inbox: a rejected with the note, b accepted over its reviewer.
    const review = `env PATH=${shellWord(process.env.PATH ?? '')} ${shellWord(process.execPath)} ${shellWord(RALPH_BIN)} -C ${shellWord(root)} review; echo REVIEW-ENDED; sleep 600`;
    tmux('new-session', '-d', '-s', tmuxSession, '-x', '140', '-y', '30', review);
    await seen(/ralph review: 2 waiting on you/, 'the inbox');
    await select('a');
    keys('r');
    await seen(/Reject a: a note for its next attempt/, 'the note prompt');
    keys(NOTE, 'Enter');
    await seen(/ralph review: 1 waiting/, 'the rejection');
    await select('b');
    keys('a');
    await seen(/ralph review: 0 waiting/, 'the acceptance');
    keys('q');
    await seen(/REVIEW-ENDED/, 'the end of the inbox');
    tmux('kill-session', '-t', tmuxSession);
    // The person keeps a out of the next night.
    expect((await ralph(root, ['cancel', 'a'])).code).toBe(0);
    expect(readQueue(root).items.find((i) => i.id === 'b')).toMatchObject({ landedOn: TARGET });

    // The proposal, by the real codex: a rule and a dismissed finding, each with its evidence.
    const proposed = await ralph(root, ['lessons', 'propose'], env);
    expect(proposed.code, proposed.stderr).toBe(0);
    expect(proposed.stdout).toContain('P1: 2 rules proposed by codex (R1, R2)');
    const asked = openai.requests
      .map((r) => JSON.stringify(r.body))
      .find((t) => t.includes('You propose rules'));
    expect(asked).toContain(NOTE);
    expect(asked).toContain(FINDING);
    const state = JSON.parse(fs.readFileSync(path.join(root, 'state', 'lessons.json'), 'utf8')) as {
      lessons: { id: string; kind: string; items: string[] }[];
      rules: { id: string; kind: string; evidence: string[]; status: string }[];
    };
    expect(state.lessons.map((l) => [l.id, l.kind, l.items])).toEqual([
      ['L1', 'rejection', ['a']],
      ['L2', 'dismissed', ['b']],
    ]);
    expect(state.rules.map((r) => [r.id, r.kind, r.evidence, r.status])).toEqual([
      ['R1', 'follow', ['L1'], 'proposed'],
      ['R2', 'dismiss', ['L2'], 'proposed'],
    ]);

    // Both accepted in the terminal inbox, R1 after a look at its evidence.
    tmux('new-session', '-d', '-s', tmuxSession, '-x', '140', '-y', '40', review);
    await seen(/ralph review: 2 waiting on you/, 'the rules in the inbox');
    await select('R1');
    keys('Enter');
    await seen(/Evidence/, "the rule's page");
    expect(screen()).toContain(NOTE);
    expect(screen()).toContain('dist/app.js');
    keys('q');
    await seen(/ralph review: 2 waiting/, 'the inbox again');
    keys('a');
    await seen(/R1 accepted/, 'R1 accepted');
    await select('R2');
    keys('a');
    await seen(/ralph review: 0 waiting/, 'R2 accepted');
    keys('q');
    await seen(/REVIEW-ENDED/, 'the end of the inbox');

    // Night 2: c keeps out of dist/; d writes there, and is sent back citing the rule.
    const before = anthropic.requests.length;
    const reviewsBefore = openai.requests.length;
    await add(root, 'c', 'Write c', env);
    await add(root, 'd', 'Write d', env);
    const night2 = await ralph(root, ['run', '--drain'], env);
    expect(night2.code, night2.stderr).toBe(0);
    const requests = anthropic.requests.slice(before);
    const first = (id: string) => requests.find((r) => itemOf(requestText(r)) === id)!;
    const ralphPart = (r: RecordedRequest) => {
      const system = r.body.system;
      const blocks = typeof system === 'string' ? [system] : (system ?? []).map((b) => b.text);
      return blocks.find((b) => b.includes('# Identity')) ?? '';
    };
    // The rule rides in the part of the prompt that is the same for every item, before its own.
    expect(ralphPart(first('c'))).toContain(
      '- R1 (dist/**): Never edit generated files under dist/.',
    );
    expect(ralphPart(first('d'))).toBe(ralphPart(first('c')));
    const whole = requestText(first('d'));
    expect(whole.indexOf('Never edit generated files')).toBeLessThan(whole.indexOf('Work item: d'));
    // The reviewer of d: the rule as a criterion, the dismissed finding as not to raise.
    const dReview = openai.requests
      .slice(reviewsBefore)
      .map((r) => JSON.stringify(r.body).replace(/\\n/g, '\n'))
      .find((t) => t.includes('Work item: d') && t.includes('## Rules of this project'));
    expect(dReview).toContain('2. Rule R1 (dist/**): Never edit generated files under dist/.');
    expect(dReview).toContain('## Findings not to raise');
    expect(dReview).toContain('- Do not ask for comments on code that reads plainly.');
    // Sent back citing the rule; the author's fix took dist/ out, and d landed.
    const d = readQueue(root).items.find((i) => i.id === 'd')!;
    expect(d).toMatchObject({ status: 'done', landedOn: TARGET, reviewRounds: 1 });
    const resumed = requests.filter((r) => itemOf(requestText(r)) === 'd').map(requestText);
    expect(resumed.some((t) => t.includes('Rules of this project it found broken:\n- R1:'))).toBe(
      true,
    );
    expect(git(repo, 'ls-tree', '-r', '--name-only', TARGET)).not.toContain('dist/d.js');

    // The report: R1 applied once, broken once.
    const rules = JSON.parse((await ralph(root, ['rules', '--json'])).stdout) as Record<
      string,
      unknown
    >[];
    expect(rules.map((r) => [r.id, r.applied, r.broken])).toEqual([
      ['R1', 1, 1],
      ['R2', 0, 0],
    ]);
    const report = await ralph(root, ['report']);
    expect(report.stdout).toMatch(/R1 +1 +1 +1 \/ 0 +Never edit generated files under dist\//);
  });
});
