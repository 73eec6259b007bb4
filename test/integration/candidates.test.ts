// Candidates: several CLIs try one item, each a full attempt of its own from one base commit;
// the gates put out those that fail, and a judge (anonymized, failing closed) picks among those
// that pass. The fake claude writes each candidate (`#behave@<candidate's id>:`, its models
// standing for different agents) and judges them (`#judge:`).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { git } from '../support/git.js';
import { TARGET, addWithCriterion, item, landingWorkspace } from '../support/landing.js';
import { RALPH_BIN, ralph, readSessions, tempDir } from '../support/workspace.js';
import type { FakeGitHub } from '../support/fake-github.js';
import { forgeWorkspace } from '../support/forge.js';

let github: FakeGitHub | undefined;
afterEach(async () => {
  await github?.close();
  github = undefined;
});

/** The gate every candidate must pass: no `broken.txt` in its work. */
const GATE = { gates: [['test', '!', '-e', 'broken.txt']] };

/** An item with one criterion, tried once by each candidate (its retries are not the point). */
const add = (root: string, id: string, body: string, ...flags: string[]) =>
  addWithCriterion(root, id, body, '--max-attempts', '1', ...flags);

const promptOf = (root: string, session: string) =>
  fs.readFileSync(path.join(root, 'docs', 'sessions', `${session}-prompt.md`), 'utf8');

describe('candidates', () => {
  it("runs every candidate, puts out the one whose gates fail, and lands the judge's pick", async () => {
    const { repo, root } = await landingWorkspace({}, GATE);
    const body = [
      '#behave: work commit=1',
      '#behave@x.b: work commit=1 file=best.txt',
      '#behave@x.c: work commit=1 file=broken.txt',
      '#judge: prefer text=best.txt',
    ].join('\n');
    const added = await add(
      root,
      'x',
      body,
      '--candidates',
      'claude:model-one,claude:model-two,claude:model-three',
    );
    expect(added.code, added.stderr).toBe(0);
    const run = await ralph(root, ['run', '--drain']);
    expect(run.code, run.stderr).toBe(0);
    const x = item(root, 'x');
    expect(x).toMatchObject({ status: 'done', landedOn: TARGET, branch: 'ralph/x.b' });
    const roster = x.roster as { letter: string; out?: string; head?: string }[];
    expect(roster.map((c) => [c.letter, c.out === undefined])).toEqual([
      ['A', true],
      ['B', true],
      ['C', false],
    ]);
    expect(roster[2]?.out).toMatch(/test ! -e broken.txt/);
    const judgement = x.judgement as Record<string, unknown>;
    expect(judgement).toMatchObject({ picked: 'B', cli: 'claude' });
    expect([...(judgement.shown as string[])].sort()).toEqual(['A', 'B']);
    // What landed is B's work, and only B's.
    const landed = git(repo, 'ls-tree', '--name-only', TARGET);
    expect(landed).toContain('best.txt');
    expect(landed).not.toContain('x.a.txt');
    expect(landed).not.toContain('broken.txt');
    // Every candidate's branch is kept under its ref.
    const refs = git(repo, 'for-each-ref', '--format=%(refname)', 'refs/ralph/candidates/x/');
    expect(refs.split('\n').sort()).toEqual([
      'refs/ralph/candidates/x/A-claude',
      'refs/ralph/candidates/x/B-claude',
      'refs/ralph/candidates/x/C-claude',
    ]);
    // The item costs its three candidates and its judge.
    const sessions = readSessions(root);
    const judge = sessions.find((s) => s.itemId === 'x' && s.role === 'judge');
    expect(judge).toBeDefined();
    const candidates = sessions.filter((s) => String(s.itemId).startsWith('x.'));
    expect(candidates).toHaveLength(3);
    expect(x.costUsd).toBeCloseTo(0.04);
    // The judge's request names no candidate's CLI nor model.
    const request = promptOf(root, judge!.sessionId as string);
    expect(request).toContain('## Candidate A');
    expect(request).toContain('## Candidate B');
    expect(request).toContain('- test ! -e broken.txt: passed');
    expect(request).not.toMatch(/claude|model-one|model-two|model-three/i);
    // Side by side for the person: each one's end, the pick, and the judge's reason.
    const shown = await ralph(root, ['show', 'x']);
    expect(shown.stdout).toMatch(
      /^ {2}B claude model-two \$0\.0100, \d+\.\ds, 1 file \+1 −0: picked at [0-9a-f]{12} \(1 PASS\)$/m,
    );
    expect(shown.stdout).toMatch(
      /^ {2}C claude model-three \$0\.0100, \d+\.\ds, 1 file \+1 −0: out: gate "test ! -e broken.txt" failed/m,
    );
    expect(shown.stdout).toMatch(
      /^Judge: {4}claude \(session .*\), ranked B, A: [AB] reads best$/m,
    );
    expect(shown.stdout).toMatch(/^ {10}\(it knew [AB] as A, [AB] as B\)$/m);
    const reviewed = await ralph(root, ['review', 'x']);
    expect(reviewed.stdout).toContain('Candidates:');
    // The inbox holds the item, not its candidates: their ends are its to decide on.
    const inbox = await ralph(root, ['review', '--json']);
    expect((JSON.parse(inbox.stdout) as { id: string }[]).map((row) => row.id)).toEqual(['x']);
    // Accepted in the morning, the report says which agent won and what an accepted change cost.
    expect((await ralph(root, ['accept', 'x'])).code).toBe(0);
    const report = await ralph(root, ['report']);
    expect(report.stdout).toMatch(
      /^Candidates: 1 item tried; the judge's 1 pick: you kept 1, overturned 0; per accepted change \$0\.04\d* with candidates, none accepted without$/m,
    );
    expect(report.stdout).toMatch(/^claude model-two +1 +1 +1 +1$/m);
    expect(report.stdout).toMatch(/^claude model-three +1 +0 +0 +0$/m);
  });

  it('after its own attempt fails, runs the other candidates, and one lands', async () => {
    const { repo, root } = await landingWorkspace(
      {},
      {
        ...GATE,
        candidates: { clis: [{ cli: 'claude' }, { cli: 'claude', model: 'other' }] },
        // Its second attempt at once, not after the retry's backoff.
        run: {
          failureBackoffCap: 0,
          maxConsecutiveFailures: 0,
          pollInterval: 0.2,
          retryBackoffCap: 0,
        },
      },
    );
    // Its own CLI fails its gates twice (its two attempts), then the other runs.
    await add(
      root,
      'y',
      '#behave: work commit=1 file=broken.txt\n#behave@y.b: work commit=1',
      '--max-attempts',
      '2',
    );
    const run = await ralph(root, ['run', '--drain']);
    expect(run.code, run.stderr).toBe(0);
    const y = item(root, 'y');
    expect(y).toMatchObject({ status: 'done', landedOn: TARGET, branch: 'ralph/y.b' });
    const roster = y.roster as { letter: string; item?: string; out?: string }[];
    expect(roster.map((c) => c.letter)).toEqual(['A', 'B']);
    expect(roster[0]?.item).toBeUndefined();
    expect(roster[0]?.out).toMatch(/broken.txt/);
    expect(y.attempts).toBe(2);
    // Its gates alone picked the one that passed: no judge was paid for.
    expect(readSessions(root).some((s) => s.role === 'judge')).toBe(false);
    expect(git(repo, 'ls-tree', '--name-only', TARGET)).toContain('y.b.txt');
  });

  it("after its reviewer's rounds are spent, runs the other candidates, and the judge's pick lands", async () => {
    const { repo, root } = await landingWorkspace(
      {},
      {
        ...GATE,
        review: { enabled: true, maxRounds: 1 },
        candidates: { clis: [{ cli: 'claude' }, { cli: 'claude', model: 'other' }] },
      },
    );
    await add(root, 'r', '#behave: work commit=1\n#review: changes');
    const run = await ralph(root, ['run', '--drain']);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    const r = item(root, 'r');
    expect(r).toMatchObject({
      status: 'done',
      landedOn: TARGET,
      branch: 'ralph/r.b',
      judgement: { picked: 'B', shown: ['B'] },
    });
    const roster = r.roster as { letter: string; out?: string; branch?: string }[];
    expect(roster[0]).toMatchObject({ letter: 'A', branch: 'ralph/r' });
    expect(roster[0]?.out).toMatch(/^the reviewer asked for changes/);
    // Its own work is kept under its ref beside the pick's; only the pick's landed.
    expect(git(repo, 'for-each-ref', '--format=%(refname)', 'refs/ralph/candidates/r/')).toBe(
      'refs/ralph/candidates/r/A-claude\nrefs/ralph/candidates/r/B-claude',
    );
    const landed = git(repo, 'ls-tree', '--name-only', TARGET);
    expect(landed).toContain('r.b.txt');
    expect(landed).not.toContain('r.txt');
  });

  it.each([
    ['answers prose', 'prose', /no JSON object/],
    ['names a candidate it was not shown', 'unknown', /candidate Z/],
    ['finds every candidate failing a criterion', 'fail-all', /no candidate meets every criterion/],
    ['crashes', 'exit-signal', /the judge \(claude\) picked nothing: .*SIGSEGV/],
  ])('lands nothing when the judge %s: the item waits for a person', async (_, judge, why) => {
    const { repo, root } = await landingWorkspace({}, GATE);
    await add(
      root,
      'z',
      `#behave: work commit=1\n#judge: ${judge}`,
      '--candidates',
      'claude:one,claude:two',
    );
    const run = await ralph(root, ['run', '--drain']);
    expect(run.code, run.stderr).toBe(0);
    const z = item(root, 'z');
    expect(z.status).toBe('needs_input');
    expect(z.lastError).toMatch(why);
    expect(z.question).toMatch(/No candidate was picked/);
    expect(git(repo, 'branch', '--list', TARGET)).toBe('');
  });

  it('holds candidates capped together to their shares, and pays no judge past the cap', async () => {
    const { root } = await landingWorkspace(
      {},
      { ...GATE, run: { failureBackoffCap: 0, maxConsecutiveFailures: 0, retryBackoffCap: 0 } },
    );
    // $0.03 for two candidates and their judge: $0.01 each. B's first attempt spends its share,
    // so its second is refused; A alone passes, and its gates pick it.
    await addWithCriterion(
      root,
      'c',
      '#behave: work commit=1\n#behave@c.b: work commit=1 file=broken.txt',
      '--max-attempts',
      '2',
      '--candidates',
      'claude:one,claude:two',
      '--candidates-max-cost',
      '0.03',
    );
    // $0.015 for two: the candidates spend $0.02 (a CLI may overrun its budget), and nothing is
    // left for a judge.
    await add(
      root,
      'd',
      '#behave: work commit=1',
      '--candidates',
      'claude:one,claude:two',
      '--candidates-max-cost',
      '0.015',
    );
    const run = await ralph(root, ['run', '--drain']);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(item(root, 'c')).toMatchObject({ status: 'done', branch: 'ralph/c.a', costUsd: 0.02 });
    const sessions = readSessions(root);
    expect(sessions.filter((s) => s.itemId === 'c.b')).toHaveLength(1);
    expect(item(root, 'c.b').lastError).toMatch(
      /it spent its share of its item's cap on candidates \(\$0\.01/,
    );
    // Each candidate's session is held to its share inside it too.
    for (const s of sessions.filter((s) => String(s.itemId).startsWith('c.')))
      expect(s.command).toEqual(expect.arrayContaining(['--max-budget-usd', '0.01']));
    expect((await ralph(root, ['show', 'c.a'])).stdout).toMatch(
      /^Candidate: A of c, held to its share of its cap, \$0\.0100$/m,
    );
    const d = item(root, 'd');
    expect(d.status).toBe('needs_input');
    expect(d.lastError).toMatch(
      /the candidates spent their cap \(\$0\.015\d*\): no judge was paid for/,
    );
    expect(sessions.some((s) => s.role === 'judge')).toBe(false);
  });

  it('fails the item when no candidate passes its gates, saying why each failed', async () => {
    const { repo, root } = await landingWorkspace({}, GATE);
    await add(
      root,
      'w',
      '#behave: work commit=1 file=broken.txt',
      '--candidates',
      'claude:one,claude:two',
    );
    const run = await ralph(root, ['run', '--drain']);
    const w = item(root, 'w');
    expect(w.status, run.stderr).toBe('failed');
    expect(w.lastError).toMatch(/no candidate passed its gates: A \(claude\): .*; B \(claude\): /);
    expect(git(repo, 'branch', '--list', TARGET)).toBe('');
  });

  it('resumes after a kill -9 while a candidate ran: the finished one runs once, the other again, and the pick is made', async () => {
    const dir = await tempDir();
    const env = { KILL_MARK: path.join(dir, 'killed'), GATE_RUNS: path.join(dir, 'runs') };
    // The second gate that runs (the second candidate's) kills the runner, the first time.
    const gate = [
      'sh',
      '-c',
      'n=$(($(cat "$GATE_RUNS" 2>/dev/null || echo 0) + 1)); echo $n > "$GATE_RUNS"; if [ $n -eq 2 ] && [ ! -e "$KILL_MARK" ]; then : > "$KILL_MARK"; kill -9 $PPID; fi',
    ];
    const { repo, root } = await landingWorkspace({}, { gates: [gate] });
    await ralph(root, [
      'add',
      'Killed',
      '--id',
      'k',
      '--body',
      '#behave: work commit=1\n#judge: prefer text=k.b.txt',
      '--candidates',
      'claude:one,claude:two',
    ]);
    const run = () =>
      spawnSync(process.execPath, [RALPH_BIN, '-C', root, 'run', '--drain'], {
        env: { ...process.env, ...env },
        encoding: 'utf8',
      });
    expect(run().signal).toBe('SIGKILL');
    expect(item(root, 'k').status).toBe('judging');
    expect(item(root, 'k.a').status).toBe('done');
    expect(item(root, 'k.b').status).toBe('running');
    const again = run();
    expect(again.status, again.stderr).toBe(0);
    expect(item(root, 'k')).toMatchObject({
      status: 'done',
      landedOn: TARGET,
      branch: 'ralph/k.b',
    });
    expect(item(root, 'k.a').sessions).toHaveLength(1);
    expect(item(root, 'k.b').sessions).toHaveLength(2);
    expect(git(repo, 'ls-tree', '--name-only', TARGET)).toContain('k.b.txt');
  });

  it("takes another candidate in the morning: the pick's landing reverted through the land gates, the other landed, one ledger line", async () => {
    const { repo, root } = await landingWorkspace({}, GATE);
    const body = '#behave: work commit=1\n#judge: prefer text=o.b.txt';
    await add(root, 'o', body, '--candidates', 'claude:one,claude:two');
    expect((await ralph(root, ['run', '--drain'])).code).toBe(0);
    expect(item(root, 'o')).toMatchObject({ status: 'done', branch: 'ralph/o.b' });
    expect(git(repo, 'ls-tree', '--name-only', TARGET)).toContain('o.b.txt');
    // An unknown or failed candidate is refused, and nothing is written.
    const unknown = await ralph(root, ['accept', 'o', '--candidate', 'Z']);
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toMatch(/has no candidate Z \(its candidates: A, B\)/);
    const taken = await ralph(root, ['accept', 'o', '--candidate', 'a']);
    expect(taken.code, taken.stderr).toBe(0);
    const o = item(root, 'o');
    expect(o).toMatchObject({ status: 'done', branch: 'ralph/o.a', landedOn: TARGET });
    expect(o.decision).toMatchObject({ kind: 'accepted', candidate: 'A' });
    const landed = git(repo, 'ls-tree', '--name-only', TARGET);
    expect(landed).toContain('o.a.txt');
    expect(landed).not.toContain('o.b.txt');
    expect(git(repo, 'log', '--format=%s', TARGET)).toMatch(/^ralph: revert Item o \(o\)$/m);
    const ledger = fs
      .readFileSync(path.join(root, 'state', 'decisions.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(ledger).toHaveLength(1);
    expect(ledger[0]).toMatchObject({ item: 'o', decision: 'accepted', candidate: 'A' });
    const report = await ralph(root, ['report']);
    expect(report.stdout).toMatch(/you kept 0, overturned 1;/);
    expect(report.stdout).toMatch(/^claude one +1 +1 +0 +1$/m);
  });

  it("takes another candidate over a pick whose pull request is open: that one closed, the taken one's opened, then merged", async () => {
    const setup = await forgeWorkspace();
    github = setup.github;
    const { bare, root } = setup;
    const env = { GITHUB_TOKEN: 'test-token-0123456789' };
    const body = '#behave: work commit=1\n#judge: prefer text=p.b.txt';
    await add(root, 'p', body, '--candidates', 'claude:one,claude:two');
    expect((await ralph(root, ['run', '--drain'], env)).code).toBe(0);
    expect(item(root, 'p')).toMatchObject({
      status: 'awaiting_merge',
      branch: 'ralph/p.b',
      pullRequest: { number: 1, head: 'ralph/p.b' },
    });
    const taken = await ralph(root, ['accept', 'p', '--candidate', 'A'], env);
    expect(taken.code, taken.stderr).toBe(0);
    expect(github.pulls[0]).toMatchObject({ state: 'closed', merged: false });
    expect(item(root, 'p')).toMatchObject({ status: 'awaiting_checks', branch: 'ralph/p.a' });
    // The taken one's pull request is opened and, the person having accepted it, merged once green.
    const second = await ralph(root, ['run', '--drain'], env);
    expect(second.code, second.stdout + second.stderr).toBe(0);
    expect(item(root, 'p')).toMatchObject({
      status: 'done',
      lastOutcome: 'merged',
      pullRequest: { number: 2, head: 'ralph/p.a' },
    });
    expect(github.pulls[1]).toMatchObject({ state: 'closed', merged: true });
    const files = git(bare, 'ls-tree', '--name-only', 'main');
    expect(files).toContain('p.a.txt');
    expect(files).not.toContain('p.b.txt');
    // A merged pull request is not undone here: another candidate is refused, nothing written.
    const again = await ralph(root, ['accept', 'p', '--candidate', 'B'], env);
    expect(again.code).not.toBe(0);
    expect(again.stderr).toMatch(/pull request #2 was merged or closed/);
  });
});
