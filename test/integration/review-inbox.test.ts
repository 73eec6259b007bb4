// The morning's review: a person's decisions (accept, reject with a note, defer), each written to
// the ledger once and carried out on the queue, the branch, the target and a pull request; a
// kill -9 between a decision and its effect finished on restart, never twice.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { FakeGitHub } from '../support/fake-github.js';
import { forgeWorkspace } from '../support/forge.js';
import { git } from '../support/git.js';
import { TARGET, addFileItems, item, landingWorkspace } from '../support/landing.js';
import { waitUntil } from '../support/wait.js';
import { RALPH_BIN, ralph, tempDir } from '../support/workspace.js';

const ledger = (root: string) =>
  fs
    .readFileSync(path.join(root, 'state', 'decisions.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>);

const filesOn = (repo: string, ref = TARGET) =>
  git(repo, 'ls-tree', '--name-only', ref).split('\n');

const reverts = (repo: string) =>
  git(repo, 'log', '--format=%(trailers:key=Ralph-Revert,valueonly)', TARGET)
    .split('\n')
    .filter(Boolean);

async function landedPair(land: Record<string, unknown> = {}) {
  const workspace = await landingWorkspace(land);
  await addFileItems(workspace.root, ['a', 'b']);
  const run = await ralph(workspace.root, ['run', '--drain']);
  expect(run.code, run.stderr).toBe(0);
  return workspace;
}

/**
 * Two landed items, and a `ralph reject a` killed (-9) while its revert's land gate runs: the
 * gate waits, while the `release` file is missing, once the revert is under way.
 */
async function rejectionKilledMidRevert() {
  const dir = await tempDir('ralph-held-');
  const started = path.join(dir, 'started');
  const release = path.join(dir, 'release');
  const { repo, root } = await landedPair({
    gates: [
      [
        'sh',
        '-c',
        `if [ ! -f a.txt ] && [ ! -f ${release} ]; then touch ${started}; while [ ! -f ${release} ]; do sleep 0.05; done; fi`,
      ],
    ],
  });
  const child = spawn(process.execPath, [RALPH_BIN, '-C', root, 'reject', 'a', '--note', 'again'], {
    detached: true,
    stdio: 'ignore',
  });
  await waitUntil(dir, () => fs.existsSync(started), 20_000, 'the revert gated');
  process.kill(-(child.pid ?? 0), 'SIGKILL');
  await new Promise((resolve) => child.once('exit', resolve));
  expect(item(root, 'a')).toMatchObject({ status: 'deciding' });
  return { repo, root, release };
}

let github: FakeGitHub | undefined;
afterEach(async () => {
  await github?.close();
  github = undefined;
});

describe('a decision on a landed item', () => {
  it('rejected with a note: a gated revert lands on the target, the branch is kept, the note is in its next prompt', async () => {
    const gateRuns = path.join(await tempDir('ralph-gate-'), 'runs');
    const { repo, root } = await landedPair({
      gates: [['sh', '-c', `echo run >> ${gateRuns}`]],
    });
    const inbox = await ralph(root, ['review', '--list']);
    expect(inbox.stdout).toContain('2 items wait on you');
    const gatedBefore = fs.readFileSync(gateRuns, 'utf8').split('\n').filter(Boolean).length;
    const reject = await ralph(root, ['reject', 'a', '--note', 'use the fixture instead']);
    expect(reject.code, reject.stderr + reject.stdout).toBe(0);
    expect(reject.stdout).toContain('a: rejected; back in line');
    // The revert ran the land gates, and the target lost a.txt and kept b.txt.
    expect(fs.readFileSync(gateRuns, 'utf8').split('\n').filter(Boolean).length).toBe(
      gatedBefore + 1,
    );
    expect(filesOn(repo)).not.toContain('a.txt');
    expect(filesOn(repo)).toContain('b.txt');
    const [line, ...more] = ledger(root);
    expect(more).toEqual([]);
    expect(line).toMatchObject({
      item: 'a',
      decision: 'rejected',
      note: 'use the fixture instead',
      then: 'retry',
      status: 'done',
      verdict: null,
      risk: { score: expect.any(Number) as number, parts: expect.any(Array) as unknown[] },
    });
    expect(reverts(repo)).toEqual([line?.id]);
    // The rejected work is kept under its archive ref; the branch itself is gone.
    const ref = `refs/ralph/rejected/a/${String(line?.id)}`;
    expect(git(repo, 'for-each-ref', '--format=%(refname)', 'refs/ralph/rejected/')).toBe(ref);
    expect(git(repo, 'branch', '--list', 'ralph/a')).toBe('');
    expect(item(root, 'a')).toMatchObject({ status: 'pending', attempts: 0 });
    expect(item(root, 'a').landedCommit).toBeUndefined();
    // Its next session starts afresh and is told why (and, this time, writes another file).
    await ralph(root, ['edit', 'a', '--body', '#behave: land file=a2.txt']);
    const again = await ralph(root, ['run', '--drain']);
    expect(again.code, again.stderr).toBe(0);
    const sessions = item(root, 'a').sessions as string[];
    const prompt = fs.readFileSync(
      path.join(root, 'docs', 'sessions', `${sessions.at(-1) ?? ''}-prompt.md`),
      'utf8',
    );
    expect(prompt).toContain('A person rejected your earlier work on this item');
    expect(prompt).toContain('use the fixture instead');
    expect(prompt).toContain(ref);
    expect(item(root, 'a')).toMatchObject({ status: 'done', landedOn: TARGET });
    expect(filesOn(repo)).toContain('a2.txt');
  });

  it('a revert that breaks a land gate leaves the target as it was and the item done, the failure said', async () => {
    // Green while a.txt is there, red without it: the revert cannot land.
    const { repo, root } = await landedPair({
      gates: [['sh', '-c', 'test ! -f b.txt || test -f a.txt']],
    });
    const before = git(repo, 'rev-parse', TARGET);
    const reject = await ralph(root, ['reject', 'a', '--note', 'not this way']);
    expect(reject.code).toBe(1);
    expect(reject.stdout).toContain(
      'a: rejected, but not carried out: the revert breaks a land gate',
    );
    expect(git(repo, 'rev-parse', TARGET)).toBe(before);
    expect(item(root, 'a')).toMatchObject({
      status: 'done',
      decision: { kind: 'rejected', failure: expect.stringContaining('land gate') as string },
    });
    expect(ledger(root)).toHaveLength(1);
    // It heads the inbox, its failed decision the reason.
    const inbox = await ralph(root, ['review', '--json']);
    const rows = JSON.parse(inbox.stdout) as { id: string; parts: { name: string }[] }[];
    expect(rows[0]?.id).toBe('a');
    expect(rows[0]?.parts.map((p) => p.name)).toContain('decision');
  });

  it('a kill -9 while the revert is gated: the next run finishes it, once', async () => {
    const { repo, root, release } = await rejectionKilledMidRevert();
    expect(reverts(repo)).toEqual([]);
    // Its next attempt writes another file: the same commit made again within the second would
    // be one the target holds already.
    await ralph(root, ['edit', 'a', '--body', '#behave: land file=a2.txt']);
    fs.writeFileSync(release, '');
    // The next run carries the decision out before anything else, and never twice.
    const run = await ralph(root, ['run', '--drain']);
    expect(run.code, run.stderr).toBe(0);
    const [line, ...more] = ledger(root);
    expect(more).toEqual([]);
    expect(reverts(repo)).toEqual([line?.id]);
    expect(item(root, 'a').sessions).toHaveLength(2);
    expect(filesOn(repo)).toContain('a2.txt');
  });

  it('a kill -9 while the revert is gated: shown in the inbox and status, and finished by ralph recover without an agent', async () => {
    const { repo, root, release } = await rejectionKilledMidRevert();
    const inbox = await ralph(root, ['review', '--json']);
    expect((JSON.parse(inbox.stdout) as { id: string }[]).map((r) => r.id)).toContain('a');
    const status = await ralph(root, ['status']);
    expect(status.stdout).toMatch(
      /Deciding: {2}a rejected, revert left to carry out \(ralph recover finishes it\)/,
    );
    fs.writeFileSync(release, '');
    const recover = await ralph(root, ['recover']);
    expect(recover.code, recover.stderr).toBe(0);
    expect(recover.stdout).toContain(
      'a: its decision (rejected), left half carried out, carried out: pending',
    );
    const [line] = ledger(root);
    expect(reverts(repo)).toEqual([line?.id]);
    // No agent ran: the item waits in line with the note for the next night.
    expect(item(root, 'a')).toMatchObject({ status: 'pending' });
    expect(item(root, 'a').sessions).toHaveLength(1);
  });

  it('a decision in the ledger that a crash kept from its item is applied when the ledger is next read, once', async () => {
    const { root } = await landedPair({ enabled: false });
    const at = new Date().toISOString();
    fs.appendFileSync(
      path.join(root, 'state', 'decisions.jsonl'),
      `${JSON.stringify({ id: 'd-crash', item: 'b', decision: 'deferred', until: new Date(Date.now() + 86_400_000).toISOString(), by: 'me@host', at, status: 'done', risk: { score: 1, parts: [] }, verdict: null })}\n`,
    );
    const inbox = await ralph(root, ['review', '--json']);
    expect((JSON.parse(inbox.stdout) as { id: string }[]).map((r) => r.id)).toEqual(['a']);
    expect(item(root, 'b')).toMatchObject({ decision: { id: 'd-crash', kind: 'deferred' } });
    await ralph(root, ['review', '--json']);
    expect(ledger(root)).toHaveLength(1);
    const all = await ralph(root, ['review', '--json', '--all']);
    expect((JSON.parse(all.stdout) as { id: string }[]).map((r) => r.id).sort()).toEqual([
      'a',
      'b',
    ]);
  });
});

describe('a decision on a done item that has not landed', () => {
  it('accepted: it lands, who and when recorded; then it waits on nobody', async () => {
    const { repo, root } = await landedPair({ enabled: false });
    expect(item(root, 'a').landedCommit).toBeUndefined();
    const accept = await ralph(root, ['accept', 'a']);
    expect(accept.code, accept.stderr + accept.stdout).toBe(0);
    expect(accept.stdout).toContain('a: accepted (landed on ralph/landed at');
    expect(filesOn(repo)).toContain('a.txt');
    expect(item(root, 'a')).toMatchObject({
      status: 'done',
      decision: { kind: 'accepted', by: expect.stringContaining('@') as string },
    });
    const again = await ralph(root, ['accept', 'a']);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('a was accepted already');
    const inbox = await ralph(root, ['review', '--json']);
    expect((JSON.parse(inbox.stdout) as { id: string }[]).map((r) => r.id)).toEqual(['b']);
    expect(ledger(root).map((l) => l.decision)).toEqual(['accepted']);
  });

  it('deferred: hidden until its time; a rejection that would put it back in line without a note is refused, nothing written', async () => {
    const { root } = await landedPair({ enabled: false });
    const defer = await ralph(root, ['defer', 'b', '--until', '2d']);
    expect(defer.code, defer.stderr).toBe(0);
    expect(defer.stdout).toMatch(/b: deferred until 20\d\d-/);
    const inbox = await ralph(root, ['review', '--list']);
    expect(inbox.stdout).toContain('1 item waits on you');
    const noNote = await ralph(root, ['reject', 'a']);
    expect(noNote.code).toBe(2);
    expect(noNote.stderr).toContain('needs a note (--note)');
    expect(ledger(root)).toHaveLength(1);
    const cancel = await ralph(root, ['reject', 'a', '--cancel']);
    expect(cancel.stdout).toContain('a: rejected and cancelled');
    expect(item(root, 'a')).toMatchObject({ status: 'cancelled' });
  });

  it('holds claims while as many items wait on a person as run.maxAwaitingReview allows, and says why', async () => {
    const { root } = await landingWorkspace(
      { enabled: false },
      {
        run: {
          maxAwaitingReview: 1,
          failureBackoffCap: 0,
          maxConsecutiveFailures: 0,
          pollInterval: 0.2,
        },
      },
    );
    await addFileItems(root, ['a', 'b']);
    const run = await ralph(root, ['run', '--drain']);
    expect(run.stdout + run.stderr).toContain('1 item waits on a person (run.maxAwaitingReview 1)');
    expect(item(root, 'b')).toMatchObject({ status: 'pending', attempts: 0 });
    await ralph(root, ['accept', 'a']);
    const next = await ralph(root, ['run', '--drain']);
    expect(next.code, next.stderr).toBe(0);
    expect(item(root, 'b')).toMatchObject({ status: 'done' });
  });
});

describe('a decision on a pull request waiting for a person', () => {
  async function pullRequestReady(id: string) {
    const setup = await forgeWorkspace();
    ({ github } = setup);
    const { root } = setup;
    await ralph(root, ['add', `Item ${id}`, '--id', id, '--body', '#behave: ci']);
    const run = await ralph(root, ['run', '--drain'], { GITHUB_TOKEN: 'test-token-0123456789' });
    expect(run.code, run.stderr).toBe(0);
    expect(item(root, id)).toMatchObject({ status: 'awaiting_merge' });
    return { root, github: setup.github };
  }

  it('accepted: the pull request is merged on the forge', async () => {
    const { root, github } = await pullRequestReady('pr');
    const accept = await ralph(root, ['accept', 'pr'], { GITHUB_TOKEN: 'test-token-0123456789' });
    expect(accept.code, accept.stderr + accept.stdout).toBe(0);
    expect(github.pulls[0]).toMatchObject({ merged: true, state: 'closed' });
    expect(item(root, 'pr')).toMatchObject({ status: 'done', decision: { kind: 'accepted' } });
  });

  it('rejected and cancelled: the pull request is closed unmerged, the branch kept', async () => {
    const { root, github } = await pullRequestReady('pr');
    const reject = await ralph(root, ['reject', 'pr', '--cancel'], {
      GITHUB_TOKEN: 'test-token-0123456789',
    });
    expect(reject.code, reject.stderr + reject.stdout).toBe(0);
    expect(github.pulls[0]).toMatchObject({ merged: false, state: 'closed' });
    expect(item(root, 'pr')).toMatchObject({ status: 'cancelled' });
  });
});
