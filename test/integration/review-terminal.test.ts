// `ralph review` on a real terminal (tmux): the inbox most at risk first, moved through with j/k,
// an item's page opened with enter, and a decision a key each (a accept, r reject with a note
// typed at the prompt, d defer); the screen read back with capture-pane.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { addFileItems, item, landingWorkspace } from '../support/landing.js';
import { eventually } from '../support/wait.js';
import { RALPH_BIN, ralph } from '../support/workspace.js';

const tmuxSession = `ralph-review-${process.pid}`;
const tmux = (...args: string[]) => execFileSync('tmux', args, { encoding: 'utf8' });
const screen = () => tmux('capture-pane', '-p', '-t', tmuxSession);
const keys = (...k: string[]) => tmux('send-keys', '-t', tmuxSession, ...k);
const shellWord = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
const seen = (pattern: RegExp, what: string) =>
  eventually(async () => Promise.resolve(pattern.test(screen())), 15_000, what);

afterEach(() => {
  try {
    tmux('kill-session', '-t', tmuxSession);
  } catch {
    // Already gone.
  }
});

describe('ralph review on a terminal', () => {
  it('goes through the inbox with one key per decision', async () => {
    const { root } = await landingWorkspace({ enabled: false });
    await addFileItems(root, ['first', 'second', 'third']);
    expect((await ralph(root, ['run', '--drain'])).code).toBe(0);
    const command = `env PATH=${shellWord(process.env.PATH ?? '')} ${shellWord(process.execPath)} ${shellWord(RALPH_BIN)} -C ${shellWord(root)} review; echo REVIEW-ENDED; sleep 600`;
    tmux('new-session', '-d', '-s', tmuxSession, '-x', '120', '-y', '30', command);
    await seen(/ralph review: 3 waiting on you/, 'the inbox');
    expect(screen()).toMatch(
      /^> +\d+ +first +done, not landed \(branch ralph\/first\), 1 file \+1 −0/m,
    );
    // Enter opens the item's page, its diff coloured; q goes back.
    keys('Enter');
    await seen(/Changes: 1 file \+1 −0/, "the item's page");
    expect(screen()).toContain('+line of first');
    keys('q');
    await seen(/ralph review: 3 waiting/, 'the inbox again');
    // a accepts the first: it lands, and leaves the inbox.
    keys('a');
    await seen(/ralph review: 2 waiting/, 'the accept');
    expect(screen()).toMatch(/first: accepted \(landed on ralph\/landed at [0-9a-f]{12}\)/);
    // r asks for a note, typed at the prompt.
    keys('r');
    await seen(/Reject second: a note for its next attempt/, 'the note prompt');
    keys('Use the fixture instead', 'Enter');
    await seen(/ralph review: 1 waiting/, 'the reject');
    expect(screen()).toContain('second: rejected; back in line');
    // d defers by a day, the default.
    keys('d');
    await seen(/Defer third until/, 'the date prompt');
    keys('Enter');
    await seen(/ralph review: 0 waiting/, 'the deferral');
    keys('q');
    await seen(/REVIEW-ENDED/, 'the end');
    expect(item(root, 'first')).toMatchObject({ status: 'done', decision: { kind: 'accepted' } });
    expect(item(root, 'second')).toMatchObject({ status: 'pending' });
    expect(item(root, 'third')).toMatchObject({ decision: { kind: 'deferred' } });
    const ledger = fs
      .readFileSync(path.join(root, 'state', 'decisions.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { decision: string; reviewMs?: number });
    expect(ledger.map((l) => l.decision)).toEqual(['accepted', 'rejected', 'deferred']);
    // The time its page was open goes with the decision on the first; the others were decided
    // from the list, their pages never opened.
    expect(ledger[0]?.reviewMs).toBeGreaterThan(0);
    expect(ledger.slice(1).map((l) => l.reviewMs)).toEqual([undefined, undefined]);
    expect((await ralph(root, ['report'])).stdout).toMatch(
      /^ {2}your time: \S+ a decision \(the median of 1 timed on an item's page\), \S+ in all$/m,
    );
  });

  it("keeps an item's page from its first line when its lines wrap", async () => {
    const { root } = await landingWorkspace({ enabled: false });
    const long = Array.from({ length: 12 }, (_, i) => `word${i}`.repeat(12)).join(' ');
    await ralph(root, [
      'add',
      'A page of long lines',
      '--id',
      'long',
      '--body',
      `#behave: work commit=1\n${long}\n${long}\n${long}`,
    ]);
    expect((await ralph(root, ['run', '--drain'])).code).toBe(0);
    const command = `env PATH=${shellWord(process.env.PATH ?? '')} ${shellWord(process.execPath)} ${shellWord(RALPH_BIN)} -C ${shellWord(root)} review; sleep 600`;
    tmux('new-session', '-d', '-s', tmuxSession, '-x', '60', '-y', '20', command);
    await seen(/ralph review: 1 waiting on you/, 'the inbox');
    keys('Enter');
    await seen(/j\/k scroll/, "the item's page");
    // Its first line is on the screen's first row, its footer on the last.
    const rows = screen().split('\n');
    expect(rows[0]).toMatch(/^long {2}A page of long lines/);
    expect(rows.filter((row) => /j\/k scroll/.test(row))).toHaveLength(1);
  });
});
