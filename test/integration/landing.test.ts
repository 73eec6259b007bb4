// Landing: the night's branches merged onto one target through a merge queue, its land gates
// run on every merged tree, conflicts and failed land gates handed back to the agent. Real
// repositories made by the tests, the fake agent's `land` behaviour (it writes its line, or
// merges the target and resolves what conflicts).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { git } from '../support/git.js';
import { TARGET, item, landingWorkspace } from '../support/landing.js';
import { waitUntil } from '../support/wait.js';
import { RALPH_BIN, ralph, readQueue, tempDir } from '../support/workspace.js';

/** The prompts the item's sessions were given, in order. */
function prompts(root: string, id: string): string[] {
  const sessions = item(root, id).sessions as string[];
  return sessions.map((s) =>
    fs.readFileSync(path.join(root, 'docs', 'sessions', `${s}-prompt.md`), 'utf8'),
  );
}

/** A bare repository made from `repo`, its remote `origin`. */
async function pushRemote(repo: string): Promise<string> {
  const bare = path.join(await tempDir('ralph-remote-'), 'remote.git');
  git(repo, 'clone', '-q', '--bare', repo, bare);
  git(repo, 'remote', 'add', 'origin', bare);
  return bare;
}

const shared = (repo: string, ref = TARGET) => git(repo, 'show', `${ref}:shared.txt`).split('\n');

describe('landing', () => {
  it('lands five items whose branches conflict pairwise, the conflicts resolved by their agents', async () => {
    const { repo, root } = await landingWorkspace({ maxRounds: 8 });
    const ids = ['a', 'b', 'c', 'd', 'e'];
    // Every branch starts from main and adds its line at the end of shared.txt: each pair conflicts.
    for (const id of ids)
      await ralph(root, [
        'add',
        `Item ${id}`,
        '--id',
        id,
        '--base',
        'main',
        '--body',
        '#behave: land',
      ]);
    const run = await ralph(root, ['run', '--drain']);
    expect(run.code, run.stderr).toBe(0);
    for (const id of ids)
      expect(item(root, id)).toMatchObject({ status: 'done', landedOn: TARGET });
    // The target holds every item's line once, and the person's main is untouched.
    expect(shared(repo).sort()).toEqual(ids.map((id) => `line of ${id}`).sort());
    expect(git(repo, 'rev-parse', 'main')).toBe(git(repo, 'rev-list', '--max-parents=0', 'main'));
    // The conflicts were handed back: the agent's next prompt named the files and what to do.
    const handedBack = ids.filter((id) => (item(root, id).sessions as string[]).length > 1);
    expect(handedBack.length).toBeGreaterThanOrEqual(4);
    for (const id of handedBack) {
      const second = prompts(root, id)[1] ?? '';
      expect(second).toContain(`could not land on \`${TARGET}\``);
      expect(second).toContain('- shared.txt');
      expect(second).toContain(`git merge ${TARGET}`);
    }
    // Each landed commit is on the target, once.
    const history = git(repo, 'log', '--format=%H', TARGET).split('\n');
    for (const id of ids) expect(history).toContain(item(root, id).landedCommit);
    const trailers = git(repo, 'log', '--format=%(trailers:key=Ralph-Session,valueonly)', TARGET)
      .split('\n')
      .filter(Boolean);
    expect(new Set(trailers).size).toBe(trailers.length);
  });

  it('hands back a second item whose merge breaks a land gate, and fails it after its rounds with the target unmoved', async () => {
    // The land gate: green on one item alone (one marker), red beside another (two markers).
    const gate = ['sh', '-c', 'test "$(ls marker-* | wc -l)" -lt 2'];
    const { repo, root } = await landingWorkspace({ maxRounds: 2, gates: [gate] });
    for (const id of ['first', 'second'])
      await ralph(root, [
        'add',
        id,
        '--id',
        id,
        '--base',
        'main',
        '--body',
        `#behave: land file=${id}.txt marker=1`,
      ]);
    const run = await ralph(root, ['run', '--drain']);
    expect(run.code).toBe(1);
    expect(item(root, 'first')).toMatchObject({ status: 'done', landedOn: TARGET });
    const second = item(root, 'second');
    expect(second, String(second.lastError)).toMatchObject({
      status: 'failed',
      lastOutcome: 'land_gate_failed',
      landRounds: 2,
    });
    // What landed and what did not, and why, in status, ls, show and the report.
    const status = await ralph(root, ['status']);
    expect(status.stdout).toContain(`Landed:  1 item on ${TARGET}, newest`);
    expect(status.stdout).toMatch(/Not landed: second failed: landing on ralph\/landed: /);
    const ls = await ralph(root, ['ls']);
    expect(ls.stdout).toMatch(/first .*landed on ralph\/landed at [0-9a-f]{12}/);
    expect(ls.stdout).toMatch(/second .*landing on ralph\/landed: /);
    expect((await ralph(root, ['show', 'first'])).stdout).toMatch(
      /Landed: {3}on ralph\/landed at [0-9a-f]{12} \(onto [0-9a-f]{12}\)/,
    );
    expect((await ralph(root, ['show', 'second'])).stdout).toContain(
      'Landing:  not landed (failed, round 2): landing on ralph/landed',
    );
    const report = await ralph(root, ['report']);
    expect(report.stdout).toContain('Landing: 1 landed, 0 waiting to land, 1 not landed');
    expect(report.stdout).toMatch(/cost per landed item: \$[0-9.]+ \(\$[0-9.]+ spent in all/);
    expect(report.stdout).toContain('not landed: second failed: landing on ralph/landed');
    const json = JSON.parse((await ralph(root, ['report', '--json'])).stdout) as {
      landing: {
        landed: number;
        landedCostUsd: number;
        otherCostUsd: number;
        costPerLandedUsd: number;
      };
    };
    // Every attempt of both items counted: the one that landed carries the other's spend too.
    expect(json.landing.landed).toBe(1);
    expect(json.landing.costPerLandedUsd).toBeCloseTo(
      json.landing.landedCostUsd + json.landing.otherCostUsd,
      9,
    );
    expect(json.landing.otherCostUsd).toBeGreaterThan(0);
    // Its next attempt was told the gate's command and output.
    const told = prompts(root, 'second')[1] ?? '';
    expect(told).toContain('a land gate failed on the merged tree');
    expect(told).toContain('marker-*');
    // The target holds the first item alone; the second's branch is kept.
    expect(git(repo, 'rev-parse', TARGET)).toBe(item(root, 'first').landedCommit);
    expect(git(repo, 'ls-tree', '--name-only', TARGET)).not.toContain('second.txt');
    expect(git(repo, 'ls-tree', '--name-only', 'ralph/second')).toContain('second.txt');
  });

  it('lands a dependency before its dependent starts, and starts the dependent from the target', async () => {
    const { repo, root } = await landingWorkspace();
    await ralph(root, ['add', 'Base work', '--id', 'dep', '--body', '#behave: land file=dep.txt']);
    await ralph(root, [
      'add',
      'Built on it',
      '--id',
      'user',
      '--depends-on',
      'dep',
      '--body',
      '#behave: land file=user.txt',
    ]);
    const run = await ralph(root, ['run', '--drain']);
    expect(run.code, run.stderr).toBe(0);
    const dep = item(root, 'dep');
    const user = item(root, 'user');
    expect(user).toMatchObject({ status: 'done' });
    // The dependent's branch started where its dependency landed.
    expect(user.baseCommit).toBe(dep.landedCommit);
    expect(git(repo, 'ls-tree', '--name-only', 'ralph/user')).toContain('dep.txt');
  });

  it('lands under --workers 3 while the workers go on', async () => {
    const { repo, root } = await landingWorkspace();
    const ids = ['w1', 'w2', 'w3', 'w4', 'w5', 'w6'];
    for (const id of ids)
      await ralph(root, ['add', id, '--id', id, '--body', `#behave: land file=${id}.txt`]);
    const run = await ralph(root, ['run', '--drain', '--workers', '3']);
    expect(run.code, run.stderr).toBe(0);
    const files = git(repo, 'ls-tree', '--name-only', TARGET).split('\n');
    for (const id of ids) {
      expect(item(root, id)).toMatchObject({ status: 'done', landedOn: TARGET });
      expect(files).toContain(`${id}.txt`);
    }
  });

  it('lands with ralph land the done items of a night that ran without landing', async () => {
    const { repo, root } = await landingWorkspace({ enabled: false, method: 'squash' });
    for (const id of ['x', 'y'])
      await ralph(root, ['add', id, '--id', id, '--body', `#behave: land file=${id}.txt`]);
    expect((await ralph(root, ['run', '--drain'])).code).toBe(0);
    expect(item(root, 'x')).toMatchObject({ status: 'done' });
    expect(item(root, 'x').landedCommit).toBeUndefined();
    const dry = await ralph(root, ['land', '--dry-run']);
    expect(dry.stdout).toContain('x: would land ralph/x (merged cleanly');
    expect(readQueue(root).items.every((i) => i.status === 'done')).toBe(true);
    // git's own trace: what ralph's landings ran, the merges' and commits' children included.
    const trace = path.join(await tempDir('ralph-git-trace-'), 'trace.txt');
    process.env.GIT_TRACE = trace;
    const landed = await ralph(root, ['land']).finally(() => delete process.env.GIT_TRACE);
    expect(landed.code, landed.stderr).toBe(0);
    expect(landed.stdout).toMatch(/x: landed on ralph\/landed at [0-9a-f]{12}/);
    // git's automatic maintenance once when nothing is left to land, not after every commit.
    const ran = fs.readFileSync(trace, 'utf8');
    expect(ran.match(/built-in: git commit /g)).toHaveLength(2);
    expect(ran.match(/built-in: git maintenance run --auto/g)).toHaveLength(1);
    // Squashed: one commit an item on the target, each naming its session.
    expect(git(repo, 'rev-list', '--count', `main..${TARGET}`)).toBe('2');
    expect(git(repo, 'ls-tree', '--name-only', TARGET)).toContain('y.txt');
    // What the landing brought onto the target: x's work alone, not y's.
    const diff = await ralph(root, ['diff', 'x', '--stat']);
    expect(diff.stdout).toContain('x.txt');
    expect(diff.stdout).not.toContain('y.txt');
    expect(item(root, 'x').landedOnto).toBe(git(repo, 'rev-parse', `${TARGET}~2`));
    const again = await ralph(root, ['land', 'x']);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('x cannot land: it landed already');
  });

  it('tries the merges in a dry run and says which would conflict, touching neither target nor queue', async () => {
    const { repo, root } = await landingWorkspace({ enabled: false });
    // Both add their line at the end of shared.txt from main: the second conflicts with the first.
    for (const id of ['p', 'q'])
      await ralph(root, ['add', id, '--id', id, '--base', 'main', '--body', '#behave: land']);
    expect((await ralph(root, ['run', '--drain'])).code).toBe(0);
    const before = fs.readFileSync(path.join(root, 'state', 'queue.json'), 'utf8');
    const worktrees = git(repo, 'worktree', 'list');
    const dry = await ralph(root, ['land', '--dry-run']);
    expect(dry.code).toBe(1);
    expect(dry.stdout).toContain('p: would land ralph/p (merged cleanly');
    expect(dry.stdout).toContain('q: would not land ralph/q: it conflicts in shared.txt');
    expect(fs.readFileSync(path.join(root, 'state', 'queue.json'), 'utf8')).toBe(before);
    expect(git(repo, 'worktree', 'list')).toBe(worktrees);
    expect(() => git(repo, 'rev-parse', '--verify', '--quiet', TARGET)).toThrow();
  });

  it('leaves an item waiting to land when its landing cannot be made, says why, and exits 1', async () => {
    const { repo, root } = await landingWorkspace({ enabled: false });
    await ralph(root, ['add', 'Gone', '--id', 'gone', '--body', '#behave: land file=gone.txt']);
    expect((await ralph(root, ['run', '--drain'])).code).toBe(0);
    // Its branch deleted by hand: git cannot merge it.
    const work = git(repo, 'rev-parse', 'ralph/gone');
    git(repo, 'branch', '-D', 'ralph/gone');
    const landed = await ralph(root, ['land']);
    expect(landed.code).toBe(1);
    expect(landed.stdout).toContain('gone: still waiting to land');
    expect(item(root, 'gone')).toMatchObject({ status: 'landing' });
    const log = fs.readFileSync(path.join(root, 'state', 'iteration.log'), 'utf8');
    expect(log).toMatch(/"event":"land_failed","item":"gone".*ralph\/gone/);
    // When it is tried again is kept with it: a minute on, doubling with each failure.
    const { lookAgain } = item(root, 'gone') as { lookAgain: { at: string; looks: number } };
    expect(lookAgain.looks).toBe(1);
    expect(Date.parse(lookAgain.at) - Date.now()).toBeGreaterThan(30_000);
    // The branch back: a night started before that time waits for it, and says so.
    git(repo, 'branch', 'ralph/gone', work);
    const run = await ralph(root, ['run', '--drain']);
    expect(run.code).toBe(1);
    expect(item(root, 'gone')).toMatchObject({ status: 'landing', lookAgain });
    // Once the time has come (moved into the past here), the next night lands it.
    const queueFile = path.join(root, 'state', 'queue.json');
    const queue = readQueue(root);
    for (const i of queue.items)
      if (i.id === 'gone') i.lookAgain = { at: new Date(0).toISOString(), looks: 1 };
    fs.writeFileSync(queueFile, JSON.stringify(queue));
    const again = await ralph(root, ['run', '--drain']);
    expect(again.code, again.stderr).toBe(0);
    expect(item(root, 'gone')).toMatchObject({ status: 'done' });
    expect(item(root, 'gone').lookAgain).toBeUndefined();
  });

  it('lands at once what a person asks to land, whenever its next try was to be', async () => {
    const { repo, root } = await landingWorkspace({ enabled: false });
    await ralph(root, ['add', 'Later', '--id', 'later', '--body', '#behave: land file=later.txt']);
    expect((await ralph(root, ['run', '--drain'])).code).toBe(0);
    const work = git(repo, 'rev-parse', 'ralph/later');
    git(repo, 'branch', '-D', 'ralph/later');
    expect((await ralph(root, ['land'])).code).toBe(1);
    git(repo, 'branch', 'ralph/later', work);
    const landed = await ralph(root, ['land', 'later']);
    expect(landed.code, landed.stderr).toBe(0);
    expect(item(root, 'later')).toMatchObject({ status: 'done' });
  });

  it('gives every landing a clean worktree, whatever the land gates left in it', async () => {
    // The gate passes only on a clean tree, and leaves it dirty: a new file, a changed one.
    const gate = [
      'sh',
      '-c',
      'git diff --quiet && test ! -e junk.txt && touch junk.txt && echo dirty >> README.md',
    ];
    const { repo, root } = await landingWorkspace({ gates: [gate] });
    const ids = ['c1', 'c2', 'c3'];
    for (const id of ids)
      await ralph(root, ['add', id, '--id', id, '--body', `#behave: land file=${id}.txt`]);
    const run = await ralph(root, ['run', '--drain']);
    expect(run.code, run.stderr).toBe(0);
    for (const id of ids)
      expect(item(root, id)).toMatchObject({ status: 'done', landedOn: TARGET });
    expect(git(repo, 'ls-tree', '--name-only', TARGET)).not.toContain('junk.txt');
    expect(git(repo, 'show', `${TARGET}:README.md`)).toBe('# A project');
  });

  it('pushes the target to a remote after each landing', async () => {
    const { repo, root } = await landingWorkspace({ push: 'origin' });
    const bare = await pushRemote(repo);
    for (const id of ['p1', 'p2'])
      await ralph(root, ['add', id, '--id', id, '--body', `#behave: land file=${id}.txt`]);
    const run = await ralph(root, ['run', '--drain']);
    expect(run.code, run.stderr).toBe(0);
    expect(git(bare, 'rev-parse', TARGET)).toBe(git(repo, 'rev-parse', TARGET));
    expect(git(bare, 'ls-tree', '--name-only', TARGET).split('\n')).toEqual(
      expect.arrayContaining(['p1.txt', 'p2.txt']),
    );
    const log = fs.readFileSync(path.join(root, 'state', 'iteration.log'), 'utf8');
    expect(log).toMatch(/"event":"landed","item":"p1".*"pushedTo":"origin"/);
  });

  it('lands again on top when the push is rejected because the remote moved, never forcing it', async () => {
    const bareWork = await tempDir('ralph-other-');
    const flag = path.join(bareWork, 'moved-once');
    const other = path.join(bareWork, 'clone');
    // The land gate pushes someone else's commit to the remote's target the first time it runs:
    // ralph's push after it is rejected.
    const moveRemote = [
      'sh',
      '-c',
      `test -e ${flag} && exit 0; touch ${flag}; cd ${other} && echo theirs > theirs.txt && git add theirs.txt && git -c user.name=o -c user.email=o@example.test commit -qm theirs && git push -q origin HEAD:refs/heads/${TARGET}`,
    ];
    const { repo, root } = await landingWorkspace({ push: 'origin', gates: [moveRemote] });
    const bare = await pushRemote(repo);
    git(bareWork, 'clone', '-q', bare, other);
    await ralph(root, ['add', 'Mine', '--id', 'mine', '--body', '#behave: land file=mine.txt']);
    const run = await ralph(root, ['run', '--drain']);
    expect(run.code, run.stderr).toBe(0);
    const theirs = git(other, 'rev-parse', 'HEAD');
    // Their commit stays; the item landed on top of it, once, and the remote has both.
    expect(item(root, 'mine')).toMatchObject({ status: 'done', landedOnto: theirs });
    expect(git(bare, 'rev-parse', TARGET)).toBe(item(root, 'mine').landedCommit);
    expect(git(bare, 'ls-tree', '--name-only', TARGET).split('\n')).toEqual(
      expect.arrayContaining(['theirs.txt', 'mine.txt']),
    );
    const log = fs.readFileSync(path.join(root, 'state', 'iteration.log'), 'utf8');
    expect(log).toContain(`"event":"land_retried","item":"mine","target":"${TARGET}"`);
    expect(log).toContain('moved on origin: landing again on top');
  });

  for (const push of [false, true])
    it(`leaves out an item cancelled while its land gate ran, and lands the others${push ? ' (each pushed: no train)' : ''}`, async () => {
      const dir = await tempDir('ralph-withdrawn-');
      const started = path.join(dir, 'started');
      const release = path.join(dir, 'release');
      // The land gate of b's landing (b.txt in the tree) waits for the test to let it end.
      const gateFile = path.join(dir, 'gate.cjs');
      fs.writeFileSync(
        gateFile,
        [
          "const fs = require('node:fs');",
          'const [release, started] = process.argv.slice(2);',
          "if (!fs.existsSync('b.txt') || fs.existsSync(release)) process.exit(0);",
          "fs.writeFileSync(started, '');",
          'setInterval(() => fs.existsSync(release) && process.exit(0), 20);',
        ].join('\n'),
      );
      const gate = [process.execPath, gateFile, release, started];
      const { repo, root } = await landingWorkspace({
        enabled: false,
        gates: [gate],
        ...(push ? { push: 'origin' } : {}),
      });
      const bare = push ? await pushRemote(repo) : undefined;
      for (const id of ['a', 'b', 'c'])
        await ralph(root, ['add', id, '--id', id, '--body', `#behave: land file=${id}.txt`]);
      expect((await ralph(root, ['run', '--drain'])).code).toBe(0);
      const land = spawn(process.execPath, [RALPH_BIN, '-C', root, 'land'], {
        env: { PATH: process.env.PATH },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      land.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      const exited = new Promise<number | null>((resolve) => land.on('exit', resolve));
      await waitUntil(dir, () => fs.existsSync(started), 60_000, "b's land gate");
      expect((await ralph(root, ['cancel', 'b'])).code).toBe(0);
      fs.writeFileSync(release, '');
      expect(await exited).toBe(1);
      expect(stdout).toContain('b: cancelled');
      expect(item(root, 'b')).toMatchObject({ status: 'cancelled' });
      expect(item(root, 'b').landedCommit).toBeUndefined();
      for (const id of ['a', 'c'])
        expect(item(root, id)).toMatchObject({ status: 'done', landedOn: TARGET });
      // The target (and the remote's) holds a's and c's work, never b's; b's branch is kept.
      for (const at of bare === undefined ? [repo] : [repo, bare]) {
        const files = git(at, 'ls-tree', '--name-only', TARGET).split('\n');
        expect(files).toEqual(expect.arrayContaining(['a.txt', 'c.txt']));
        expect(files).not.toContain('b.txt');
        expect(git(at, 'log', '--format=%s', TARGET)).not.toContain('(b)');
      }
      expect(git(repo, 'rev-parse', '--verify', 'ralph/b')).toMatch(/^[0-9a-f]{40}$/);
      const log = fs.readFileSync(path.join(root, 'state', 'iteration.log'), 'utf8');
      expect(log).toContain(`"event":"land_withdrawn","item":"b","target":"${TARGET}"`);
    });

  it('takes a remote by its name only, so no credentials sit in the configuration', async () => {
    const { root } = await landingWorkspace({
      push: 'https://user:secret-token@example.test/r.git',
    });
    const status = await ralph(root, ['status']);
    expect(status.code).toBe(2);
    expect(status.stderr).toContain('land.push');
    expect(status.stderr).toContain('not a URL');
  });

  it('refuses --land for an item without git mode', async () => {
    const { root } = await landingWorkspace({}, { git: { enabled: false } });
    const refused = await ralph(root, ['add', 'No git', '--land']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('--land: landing merges');
  });
});
