// A landing cut short by kill -9 leaves the target before or after the item's merge, never
// between, and the next start finishes or redoes it: killed while its land gate ran (the merge
// made in the kept worktree, the target not yet moved), and killed after the target moved but
// before the queue recorded it (found by the landed commit's session trailer).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { git } from '../support/git.js';
import { TARGET, item, landingWorkspace } from '../support/landing.js';
import { RALPH_BIN, ralph, tempDir } from '../support/workspace.js';

/** `ralph run --drain` as a process of its own (a land gate kills it). */
function runProcess(root: string, env: Record<string, string>) {
  return spawnSync(process.execPath, [RALPH_BIN, '-C', root, 'run', '--drain'], {
    env: { ...process.env, ...env },
    encoding: 'utf8',
  });
}

/** The target's commits that name a session, by their trailer. */
const landedSessions = (repo: string) =>
  git(repo, 'log', '--format=%(trailers:key=Ralph-Session,valueonly)', TARGET)
    .split('\n')
    .filter(Boolean);

describe('landing, killed with SIGKILL', () => {
  it('redoes a landing killed during its land gate: the target moved once, after the restart', async () => {
    const mark = path.join(await tempDir(), 'killed');
    // The first time it runs, the land gate kills the runner (its parent) with SIGKILL.
    const gate = ['sh', '-c', 'if [ ! -e "$KILL_MARK" ]; then : > "$KILL_MARK"; kill -9 $PPID; fi'];
    const { repo, root } = await landingWorkspace({ enabled: true, gates: [gate] });
    await ralph(root, ['add', 'Killed', '--id', 'k', '--body', '#behave: land file=k.txt']);
    const env = { KILL_MARK: mark };
    const killed = runProcess(root, env);
    expect(killed.signal).toBe('SIGKILL');
    expect(fs.existsSync(mark)).toBe(true);
    expect(item(root, 'k')).toMatchObject({ status: 'landing' });
    // Killed before the compare-and-swap: the target is where it was made, at main.
    expect(git(repo, 'rev-parse', TARGET)).toBe(git(repo, 'rev-parse', 'main'));
    const again = runProcess(root, env);
    expect(again.status, again.stderr).toBe(0);
    expect(item(root, 'k')).toMatchObject({ status: 'done', landedOn: TARGET });
    expect(git(repo, 'ls-tree', '--name-only', TARGET)).toContain('k.txt');
    expect(landedSessions(repo)).toEqual([(item(root, 'k').sessions as string[]).at(-1)]);
  });

  it('kills a line of landings during its third land gate: the target holds whole landings only, and each item once after the restart', async () => {
    const dir = await tempDir();
    const mark = path.join(dir, 'killed');
    // Counts its runs; the third, the first time, kills the runner (its parent) with SIGKILL.
    const gate = [
      'sh',
      '-c',
      'n=$(($(cat "$GATE_RUNS" 2>/dev/null || echo 0) + 1)); echo $n > "$GATE_RUNS"; if [ $n -eq 3 ] && [ ! -e "$KILL_MARK" ]; then : > "$KILL_MARK"; kill -9 $PPID; fi',
    ];
    const { repo, root } = await landingWorkspace({ enabled: false, gates: [gate] });
    const ids = ['a', 'b', 'c', 'd'];
    for (const id of ids)
      await ralph(root, ['add', id, '--id', id, '--body', `#behave: land file=${id}.txt`]);
    expect((await ralph(root, ['run', '--drain'])).code).toBe(0);
    const env = { KILL_MARK: mark, GATE_RUNS: path.join(dir, 'runs') };
    const land = () =>
      spawnSync(process.execPath, [RALPH_BIN, '-C', root, 'land'], {
        env: { ...process.env, ...env },
        encoding: 'utf8',
      });
    expect(land().signal).toBe('SIGKILL');
    // The landings made before the kill wait in a train, or went onto the target whole (a slow
    // machine moves it sooner): never the third, killed in its gate.
    const onTarget = landedSessions(repo);
    const sessionOf = (id: string) => (item(root, id).sessions as string[]).at(-1) ?? '';
    expect(onTarget).not.toContain(sessionOf('c'));
    expect(ids.slice(0, 2).map(sessionOf)).toEqual(expect.arrayContaining(onTarget));

    const again = land();
    expect(again.status, again.stderr).toBe(0);
    for (const id of ids)
      expect(item(root, id)).toMatchObject({ status: 'done', landedOn: TARGET });
    expect(landedSessions(repo).sort()).toEqual(ids.map(sessionOf).sort());
    expect(git(repo, 'ls-tree', '--name-only', TARGET).split('\n')).toEqual(
      expect.arrayContaining(ids.map((id) => `${id}.txt`)),
    );
    // Every commit the target gained is a landing: a merge naming its item's session.
    const merges = git(repo, 'rev-list', '--first-parent', `main..${TARGET}`).split('\n');
    expect(merges).toHaveLength(ids.length);
  });

  it('records a landing whose target moved before the runner died, without landing it twice', async () => {
    const { repo, root } = await landingWorkspace({ enabled: false });
    await ralph(root, ['add', 'Moved', '--id', 'm', '--body', '#behave: land file=m.txt']);
    expect((await ralph(root, ['run', '--drain'])).code).toBe(0);
    const session = (item(root, 'm').sessions as string[]).at(-1) ?? '';
    // As a lander killed after `update-ref` leaves it: the target holds the merge, the queue
    // still has the item waiting to land.
    git(repo, 'branch', TARGET, 'main');
    const tree = await tempDir();
    git(repo, 'worktree', 'add', '-q', '--detach', tree, TARGET);
    git(tree, 'merge', '--no-ff', '-q', '-m', `land m\n\nRalph-Session: ${session}`, 'ralph/m');
    const merged = git(tree, 'rev-parse', 'HEAD');
    git(repo, 'update-ref', `refs/heads/${TARGET}`, merged);
    const file = path.join(root, 'state', 'queue.json');
    const queue = JSON.parse(fs.readFileSync(file, 'utf8')) as {
      items: { id: string; status: string }[];
    };
    for (const i of queue.items) if (i.id === 'm') i.status = 'landing';
    fs.writeFileSync(file, JSON.stringify(queue));
    const landed = await ralph(root, ['land']);
    expect(landed.code, landed.stderr).toBe(0);
    expect(item(root, 'm')).toMatchObject({ status: 'done', landedCommit: merged });
    expect(git(repo, 'rev-parse', TARGET)).toBe(merged);
    expect(landedSessions(repo)).toEqual([session]);
    const log = fs.readFileSync(path.join(root, 'state', 'iteration.log'), 'utf8');
    expect(log).toMatch(/"event":"landed","item":"m".*"already":true/);
  });

  it('finds a landing pushed to the remote before the runner died, and lands it once', async () => {
    const mark = path.join(await tempDir(), 'killed');
    const { repo, root } = await landingWorkspace({ enabled: true, push: 'origin' });
    const bare = path.join(await tempDir('ralph-remote-'), 'remote.git');
    git(repo, 'clone', '-q', '--bare', repo, bare);
    git(repo, 'remote', 'add', 'origin', bare);
    // Once the remote took the push, its hook kills the runner (the node process above the
    // git push): the remote's target moved, the local one and the queue did not.
    const hook = path.join(bare, 'hooks', 'post-receive');
    fs.writeFileSync(
      hook,
      [
        '#!/bin/sh',
        'test -e "$KILL_MARK" && exit 0',
        ': > "$KILL_MARK"',
        'p=$PPID',
        'while [ "$p" -gt 1 ]; do',
        '  if [ "$(cat /proc/$p/comm)" = node ]; then kill -9 "$p"; exit 0; fi',
        "  p=$(awk '{print $4}' /proc/$p/stat)",
        'done',
      ].join('\n') + '\n',
      { mode: 0o755 },
    );
    await ralph(root, ['add', 'Pushed', '--id', 'p', '--body', '#behave: land file=p.txt']);
    const env = { KILL_MARK: mark };
    const killed = runProcess(root, env);
    expect(killed.signal).toBe('SIGKILL');
    expect(item(root, 'p')).toMatchObject({ status: 'landing' });
    expect(git(repo, 'rev-parse', TARGET)).toBe(git(repo, 'rev-parse', 'main'));
    const pushed = git(bare, 'rev-parse', TARGET);
    const again = runProcess(root, env);
    expect(again.status, again.stderr).toBe(0);
    expect(item(root, 'p')).toMatchObject({ status: 'done', landedCommit: pushed });
    expect(git(repo, 'rev-parse', TARGET)).toBe(pushed);
    expect(git(bare, 'rev-parse', TARGET)).toBe(pushed);
    expect(landedSessions(repo)).toEqual([(item(root, 'p').sessions as string[]).at(-1)]);
  });
});
