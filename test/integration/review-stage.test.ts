// The review stage: after an item's gates pass, a reviewer in a fresh read-only session reads
// its branch and answers a verdict ralph checks. Approved, it lands; changes asked for, back to
// its author with the findings; a reviewer that fails in any way leaves it unreviewed, never
// landed. Real repositories, the fake claude as author and as reviewer (`#review:`).
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { git } from '../support/git.js';
import { TARGET, addWithCriterion, item, landingWorkspace } from '../support/landing.js';
import { ralph, readSessions, tempDir } from '../support/workspace.js';

/** A workspace whose items land once a reviewer approves them; `env` keeps the fake's counts. */
async function reviewed(
  review: Record<string, unknown> = {},
  config: Record<string, unknown> = {},
) {
  const made = await landingWorkspace({}, { review: { enabled: true, ...review }, ...config });
  return { ...made, env: { FAKE_CLAUDE_STATE: await tempDir('ralph-fake-state-') } };
}

/** An item with two criteria: the one every landing test's item has, and its saying so. */
const add = (root: string, id: string, body: string, ...flags: string[]) =>
  addWithCriterion(root, id, body, '--criterion', 'it says so', ...flags);

const reviewerSessions = (root: string, id: string) =>
  readSessions(root).filter((r) => r.itemId === id && r.role === 'reviewer');

const promptOf = (root: string, session: string) =>
  fs.readFileSync(path.join(root, 'docs', 'sessions', `${session}-prompt.md`), 'utf8');

describe('the review stage', () => {
  it('lands an approved item, its verdict and its reviewer kept, the reviewer read-only', async () => {
    const { repo, root } = await reviewed();
    expect((await add(root, 'a', '#behave: work commit=1\n#review: approve')).code).toBe(0);
    const run = await ralph(root, ['run', '--drain']);
    expect(run.code, run.stderr).toBe(0);
    const a = item(root, 'a');
    expect(a).toMatchObject({ status: 'done', landedOn: TARGET });
    const verdict = a.verdict as Record<string, unknown>;
    expect(verdict).toMatchObject({ overall: 'approve', cli: 'claude' });
    const criteria = verdict.criteria as { id: number; verdict: string; evidence: string }[];
    expect(criteria.map((c) => [c.id, c.verdict])).toEqual([
      [1, 'PASS'],
      [2, 'PASS'],
    ]);
    expect(criteria[0]?.evidence).toContain('a.txt');
    // The reviewer's session is archived as its own, its cost in the item's.
    const [review] = reviewerSessions(root, 'a');
    expect(review).toBeDefined();
    expect(verdict.session).toBe(review!.sessionId);
    expect(a.reviewCostUsd).toBe(0.01);
    expect(a.costUsd).toBeCloseTo(0.02);
    // Fresh and read-only: no conversation resumed, the CLI's plan mode, no writing tool.
    const command = (review!.command as string[]).join(' ');
    expect(command).not.toContain('--resume');
    expect(command).toContain('--permission-mode plan');
    expect(command).toMatch(/--disallowedTools Edit,Write/);
    // Its request held the task, the criteria and the branch's diff.
    const request = promptOf(root, review!.sessionId as string);
    expect(request).toContain('1. it writes its file');
    expect(request).toContain('+work of a, attempt 1');
    expect(git(repo, 'show', `${TARGET}:a.txt`)).toContain('work of a');
  });

  it('sends an item back with the findings, then lands it once the reviewer approves', async () => {
    const { root, env } = await reviewed();
    await add(root, 'b', '#behave: work commit=1\n#review: sequence steps=changes,approve');
    const run = await ralph(root, ['run', '--drain'], env);
    expect(run.code, run.stderr).toBe(0);
    const b = item(root, 'b');
    expect(b).toMatchObject({ status: 'done', landedOn: TARGET, reviewRounds: 1 });
    expect(b.verdict).toMatchObject({ overall: 'approve' });
    expect(reviewerSessions(root, 'b')).toHaveLength(2);
    // The author's second session was told what the reviewer found, and resumed its conversation.
    const sessions = b.sessions as string[];
    expect(sessions).toHaveLength(2);
    const second = promptOf(root, sessions[1]!);
    expect(second).toContain('## Review');
    expect(second).toContain('- 1. it writes its file');
    expect(second).toContain('blocking, b.txt:1: the change misses the task');
    // A minor finding is the author's to weigh: not sent back.
    expect(second).not.toContain('a nit');
    const record = readSessions(root).find((r) => r.sessionId === sessions[1]);
    expect(record?.resumedFrom).toBeDefined();
  });

  it('waits for a person once the rounds are spent, with the last verdict', async () => {
    const { repo, root } = await reviewed({ maxRounds: 2 });
    await add(root, 'c', '#behave: work commit=1\n#review: changes');
    // Waiting for a person is no failure of the night's, as an agent's question is not.
    const run = await ralph(root, ['run', '--drain']);
    expect(run.code, run.stderr).toBe(0);
    const c = item(root, 'c');
    expect(c).toMatchObject({ status: 'needs_input', reviewRounds: 2 });
    expect(c.verdict).toMatchObject({ overall: 'request_changes' });
    expect(c.question).toMatch(/asked for changes 2 times/);
    expect(reviewerSessions(root, 'c')).toHaveLength(2);
    expect(git(repo, 'branch', '--list', TARGET)).toBe('');
  });

  it.each([
    ['exits 1', 'no-result', /no_result|crashed|exit/],
    ['is rate-limited', 'rate-limited', /limit/],
    ['answers prose', 'prose', /no JSON object/],
    ['answers malformed JSON', 'malformed', /no JSON object|not a verdict/],
    ['names a criterion the item does not have', 'unknown-criterion', /criterion 3/],
  ])('leaves an item unreviewed, never landed, when its reviewer %s', async (_, behaviour, why) => {
    const { repo, root } = await reviewed();
    await add(root, 'd', `#behave: work commit=1\n#review: ${behaviour}`);
    // Unreviewed is no failure of the night's: it waits for a reviewer again, or a person.
    const run = await ralph(root, ['run', '--drain']);
    expect(run.code, run.stderr).toBe(0);
    const d = item(root, 'd');
    expect(d.status).toBe('reviewing');
    expect(d.unreviewed).toMatch(why);
    expect(d.lastOutcome).toBe('unreviewed');
    expect(d.lookAgain).toMatchObject({ looks: 1 });
    expect(d.verdict).toBeUndefined();
    expect(git(repo, 'branch', '--list', TARGET)).toBe('');
  });

  it('leaves an item unreviewed when its reviewer hangs past its timeout', async () => {
    const { root } = await reviewed({ timeout: 1 }, { run: { killGrace: 1, pollInterval: 0.2 } });
    await add(root, 'e', '#behave: work commit=1\n#review: hang');
    const run = await ralph(root, ['run', '--drain']);
    expect(run.code, run.stderr).toBe(0);
    expect(item(root, 'e')).toMatchObject({ status: 'reviewing' });
    expect(item(root, 'e').unreviewed).toMatch(/timeout/);
  });

  it('holds a sandboxed reviewer to reading: its write in the worktree fails', async () => {
    const { repo, root } = await reviewed({}, { sandbox: { kind: 'bwrap', network: 'none' } });
    await add(root, 'w', '#behave: work commit=1\n#review: write');
    const run = await ralph(root, ['run', '--drain']);
    expect(run.code, run.stderr).toBe(0);
    const w = item(root, 'w');
    expect(w.status).toBe('done');
    expect((w.verdict as { summary: string }).summary).toMatch(/write: refused: EROFS/);
    expect(git(repo, 'ls-tree', '--name-only', TARGET)).not.toContain('reviewer-was-here.txt');
  });

  it("counts its reviewer in the run's cost, and pays for none once the run's limit is spent", async () => {
    const { root } = await reviewed();
    await add(root, 'paid', '#behave: work commit=1\n#review: approve cost=0.25');
    expect((await ralph(root, ['run', '--drain'])).code).toBe(0);
    const finished = fs
      .readFileSync(path.join(root, 'state', 'iteration.log'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { event: string; costUsd?: number })
      .find((entry) => entry.event === 'run_finished');
    // The author's $0.01 and the reviewer's $0.25.
    expect(finished?.costUsd).toBeCloseTo(0.26);

    const limited = await reviewed();
    await add(limited.root, 'over', '#behave: work commit=1 cost=0.5\n#review: approve');
    await ralph(limited.root, ['run', '--drain', '--max-cost', '0.4']);
    expect(item(limited.root, 'over')).toMatchObject({ status: 'reviewing' });
    expect(item(limited.root, 'over').unreviewed).toMatch(/cost limit is reached/);
    expect(reviewerSessions(limited.root, 'over')).toHaveLength(0);
  });

  it('reviews nothing of an item that turns it off', async () => {
    const { root } = await reviewed();
    await add(root, 'f', '#behave: work commit=1', '--no-review');
    expect((await ralph(root, ['run', '--drain'])).code).toBe(0);
    expect(item(root, 'f')).toMatchObject({ status: 'done', landedOn: TARGET });
    expect(reviewerSessions(root, 'f')).toHaveLength(0);
  });
});
