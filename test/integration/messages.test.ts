// Sending one item's agent a message while the night goes on: kept for an item that waits and
// given in its next prompt; given to a running session by stopping it and resuming its
// conversation with the message, first in line; and the answer to an item that parked itself
// asking a person something.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { expectNoSurvivors, guardedWorkspace, ledger } from '../support/guarded.js';
import { startRunner } from '../support/runner.js';
import { eventually } from '../support/wait.js';
import { addInOwnDir, ralph, readQueue } from '../support/workspace.js';

const item = (root: string, id: string) => readQueue(root).items.find((i) => i.id === id);

const prompt = (root: string, session: string) =>
  fs.readFileSync(path.join(root, 'docs', 'sessions', `${session}-prompt.md`), 'utf8');

/** The argv the fake claude was started with, call by call. */
const calls = (root: string) =>
  fs
    .readFileSync(path.join(root, 'calls.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { argv: string[]; input?: string });

describe('ralph say', () => {
  it('keeps a message for an item that waits, and gives it in its first prompt, sender and all', async () => {
    const { root, env } = await guardedWorkspace();
    await addInOwnDir(root, 'w', '#behave: ok');
    const said = await ralph(root, ['say', 'w', 'Use', 'tabs,', 'not', 'spaces.'], env);
    expect(said.code, said.stderr).toBe(0);
    expect(said.stdout).toContain('w: message kept for its next session (it is pending)');
    const run = await ralph(root, ['run', '--drain'], env);
    expect(run.code, run.stderr).toBe(0);
    const done = item(root, 'w');
    const [session] = done?.sessions as string[];
    expect(prompt(root, session ?? '')).toMatch(
      /Message from a person \(cli, \d{4}-\d\d-\d\dT[^)]+\):\nUse tabs, not spaces\./,
    );
    // Shown with the session, sender and all, by show and logs.
    const show = await ralph(root, ['show', session ?? ''], env);
    expect(show.stdout).toMatch(/Message: {2}from cli at \S+: Use tabs, not spaces\./);
    const logs = await ralph(root, ['logs', session ?? ''], env);
    expect(logs.stdout).toMatch(/── message from cli at \S+: Use tabs, not spaces\./);
    // Given once: recorded as given to that session.
    expect(done?.messages).toEqual([
      expect.objectContaining({ text: 'Use tabs, not spaces.', from: 'cli', session }),
    ]);
  });

  it('refuses an unknown or finished item and an empty or oversized message, changing nothing', async () => {
    const { root, env } = await guardedWorkspace();
    await addInOwnDir(root, 'f', '#behave: ok');
    expect((await ralph(root, ['run', '--drain'], env)).code).toBe(0);
    const before = fs.readFileSync(path.join(root, 'state', 'queue.json'), 'utf8');
    const unknown = await ralph(root, ['say', 'nope', 'hello'], env);
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toContain('no item "nope" in the queue');
    const finished = await ralph(root, ['say', 'f', 'hello'], env);
    expect(finished.stderr).toContain('f is done: a finished item takes no message');
    const empty = await ralph(root, ['say', 'f', '  '], env);
    expect(empty.stderr).toContain('the message is empty');
    const huge = await ralph(root, ['say', 'f', 'x'.repeat(200_000)], env);
    expect(huge.stderr).toMatch(/the message is 200,000 characters; one holds at most/);
    expect(fs.readFileSync(path.join(root, 'state', 'queue.json'), 'utf8')).toBe(before);
  });

  it('gives a running claude session a message on its stdin, mid-task, the other worker going on', async () => {
    const { root, env } = await guardedWorkspace();
    const callsFile = path.join(root, 'calls.jsonl');
    const withCalls = { ...env, FAKE_CLAUDE_CALLS: callsFile };
    // Its agent works until it hears from a person (a minute at most).
    await addInOwnDir(root, 'r', '#behave: listen ms=60000');
    await addInOwnDir(root, 'other', '#behave: slow ms=1500');
    const runner = startRunner(root, withCalls, '--drain', '--workers', '2');
    onTestFinished(() => void runner.child.kill('SIGKILL'));
    await eventually(
      () =>
        item(root, 'r')?.status === 'running' && ledger(root).some((l) => l.startsWith('start r ')),
      20_000,
      'r runs',
    );
    const said = await ralph(root, ['say', 'r', 'Stop and write the summary now.'], withCalls);
    expect(said.code, said.stderr).toBe(0);
    expect(said.stdout).toContain('r: given to its running session');
    expect(await runner.exited).toBe(0);
    const r = item(root, 'r');
    expect(r).toMatchObject({ status: 'done', attempts: 1 });
    expect(item(root, 'other')?.status).toBe('done');
    // One session: the CLI took the message into its turn (its prompt came on stdin too).
    const sessions = r?.sessions as string[];
    expect(sessions).toHaveLength(1);
    expect(calls(root).find((c) => c.argv.includes('--session-id'))?.input).toMatch(/\S/);
    expect(r?.messages).toEqual([expect.objectContaining({ session: sessions[0] })]);
    const show = await ralph(root, ['show', 'r'], env);
    expect(show.stdout).toMatch(/Message: {2}from cli at \S+ \(while it ran\): Stop and write/);
    const logs = await ralph(root, ['logs', 'r'], env);
    expect(logs.stdout).toContain('heard: Stop and write the summary now.');
    expect(
      fs.readFileSync(path.join(root, 'docs', 'sessions', `${sessions[0]}-input.jsonl`), 'utf8'),
    ).toContain('Stop and write the summary now.');
    await expectNoSurvivors(root);
  });

  it('parks an item that asks a person while two others complete; the answer puts it back and it completes', async () => {
    const { root, env } = await guardedWorkspace();
    await addInOwnDir(root, 'asks', '#behave: ask q=Which-database-should-I-use?');
    await addInOwnDir(root, 'one', '#behave: ok');
    await addInOwnDir(root, 'two', '#behave: ok');
    const run = await ralph(root, ['run', '--drain', '--workers', '2'], env);
    expect(run.code, run.stderr).toBe(0);
    expect(item(root, 'asks')).toMatchObject({
      status: 'needs_input',
      question: 'Which database should I use?',
    });
    for (const id of ['one', 'two']) expect(item(root, id)?.status).toBe('done');
    const status = await ralph(root, ['status'], env);
    expect(status.stdout).toContain('Needs you: asks asks "Which database should I use?"');
    const said = await ralph(root, ['say', 'asks', 'Postgres.'], env);
    expect(said.stdout).toContain('asks: answered; back first in line');
    expect(item(root, 'asks')?.status).toBe('interrupted');
    const again = await ralph(root, ['run', '--drain'], env);
    expect(again.code, again.stderr).toBe(0);
    expect(item(root, 'asks')).toMatchObject({ status: 'done', lastOutcome: 'success' });
    expect(item(root, 'asks')?.question).toBeUndefined();
  });
});
