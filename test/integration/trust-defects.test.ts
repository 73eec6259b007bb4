// Defects that broke "done means verified" and "no item stops the night", each found by trying
// ralph as its users would: a branch moved after its review landed as approved, an approval that
// verified nothing landed, `edit --gate` stored a gate the night could not read, `ralph land`
// took items added with --no-land, an unreviewed item counted as a failure of the night.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { git } from '../support/git.js';
import { TARGET, addWithCriterion as add, item, landingWorkspace } from '../support/landing.js';
import { parseUntil } from '../../src/workspace/decide.js';
import { ralph, readQueue, tempDir } from '../support/workspace.js';

/** The run's closing event, as the log has it. */
function runFinished(root: string): Record<string, unknown> | undefined {
  return fs
    .readFileSync(path.join(root, 'state', 'iteration.log'), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .findLast((entry) => entry.event === 'run_finished');
}

describe('what lands is what was gated and reviewed', () => {
  it('records the commit its session left; a branch moved since is not landed by accept, and the item says by what', async () => {
    const { repo, root } = await landingWorkspace(
      { enabled: false },
      { review: { enabled: true } },
    );
    await add(root, 'a', '#behave: work commit=1\n#review: approve');
    const run = await ralph(root, ['run', '--drain']);
    expect(run.code, run.stderr).toBe(0);
    const reviewed = item(root, 'a');
    const head = git(repo, 'rev-parse', 'ralph/a');
    expect(reviewed).toMatchObject({ status: 'done', head, verdict: { head } });
    // Another hand moves the approved branch to a commit no reviewer saw.
    git(repo, 'checkout', '-q', '-b', 'other', 'main');
    fs.writeFileSync(path.join(repo, 'unseen.txt'), 'no reviewer saw this\n');
    git(repo, 'add', 'unseen.txt');
    git(repo, 'commit', '-q', '-m', 'unseen');
    const unseen = git(repo, 'rev-parse', 'HEAD');
    git(repo, 'checkout', '-q', 'main');
    git(repo, 'update-ref', 'refs/heads/ralph/a', unseen);
    const accept = await ralph(root, ['accept', 'a']);
    expect(accept.stdout + accept.stderr).toMatch(/was moved to/);
    const after = item(root, 'a');
    expect(after.status).toBe('needs_input');
    expect(after.landedCommit).toBeUndefined();
    expect(after.lastError).toContain(`was moved to ${unseen.slice(0, 12)}`);
    expect(after.lastError).toContain(head.slice(0, 12));
    // The target holds nothing of the moved branch.
    const onTarget =
      git(repo, 'branch', '--list', TARGET) === ''
        ? ''
        : git(repo, 'ls-tree', '--name-only', TARGET);
    expect(onTarget).not.toContain('unseen.txt');
    const show = await ralph(root, ['show', 'a']);
    expect(show.stdout).toContain(`was moved to ${unseen.slice(0, 12)}`);
  });

  it('lands the recorded commit when the branch is where its session left it', async () => {
    const { repo, root } = await landingWorkspace({}, { review: { enabled: true } });
    await add(root, 'b', '#behave: work commit=1\n#review: approve');
    expect((await ralph(root, ['run', '--drain'])).code).toBe(0);
    const b = item(root, 'b');
    expect(b).toMatchObject({ status: 'done', landedOn: TARGET });
    expect(git(repo, 'merge-base', '--is-ancestor', b.head as string, TARGET)).toBe('');
    // show of the item is its author's session, the review on it.
    const show = await ralph(root, ['show', 'b']);
    expect(show.stdout).toMatch(/Attempt: {2}1/);
    expect(show.stdout).not.toMatch(/Role: {5}reviewer/);
    expect(show.stdout).toMatch(/Verdict: {2}approved by claude/);
  });
});

describe('an approval that verified nothing', () => {
  it('lands nothing: the item waits for a person with the verdict and why', async () => {
    const { repo, root } = await landingWorkspace({}, { review: { enabled: true } });
    await add(root, 'u', '#behave: work commit=1\n#review: unverified');
    const run = await ralph(root, ['run', '--drain']);
    expect(run.code, run.stderr).toBe(0);
    const u = item(root, 'u');
    expect(u).toMatchObject({ status: 'needs_input', verdict: { overall: 'approve' } });
    expect(u.question).toMatch(/criterion 1 neither to hold nor to fail \(UNKNOWN\)/);
    expect(u.landedCommit).toBeUndefined();
    expect(git(repo, 'branch', '--list', TARGET)).toBe('');
  });
});

describe('an unreviewed item', () => {
  it('is counted as unreviewed, not failed: the drained run exits 0', async () => {
    const { root } = await landingWorkspace({}, { review: { enabled: true } });
    await add(root, 'p', '#behave: work commit=1\n#review: prose');
    const run = await ralph(root, ['run', '--drain']);
    expect(run.code, run.stderr).toBe(0);
    expect(item(root, 'p')).toMatchObject({ status: 'reviewing' });
    expect(runFinished(root)).toMatchObject({ failed: 0, unreviewed: 1, succeeded: 1 });
    // status names it, and why.
    const status = await ralph(root, ['status']);
    expect(status.stdout).toMatch(/Unreviewed: p: review by claude failed: no verdict/);
  });
});

describe('settings stored by edit', () => {
  it('edit --gate and --setup store what add stores: the night, its dry run and doctor read them', async () => {
    const { root } = await landingWorkspace({ enabled: false });
    await add(root, 'g', '#behave: work commit=1', '--gate', 'true');
    const added = item(root, 'g').gates;
    const edit = await ralph(root, ['edit', 'g', '--gate', 'true', '--setup', 'true']);
    expect(edit.code, edit.stderr).toBe(0);
    expect(item(root, 'g').gates).toEqual(added);
    expect(item(root, 'g').setup).toEqual([{ name: 'true', command: ['true'], timeout: 600 }]);
    const dry = await ralph(root, ['run', '--dry-run']);
    expect(dry.code, dry.stderr).toBe(0);
    const doctor = await ralph(root, ['doctor']);
    expect(doctor.stderr).not.toMatch(/internal error/);
    const run = await ralph(root, ['run', '--drain']);
    expect(run.code, run.stderr).toBe(0);
    expect(item(root, 'g')).toMatchObject({ status: 'done' });
  });
});

describe('ralph land with no ids', () => {
  it('leaves an item added with --no-land, and lands it once named', async () => {
    const { repo, root } = await landingWorkspace({ enabled: false });
    await add(root, 'kept', '#behave: work commit=1', '--no-land');
    await add(root, 'free', '#behave: work commit=1');
    expect((await ralph(root, ['run', '--drain'])).code).toBe(0);
    const land = await ralph(root, ['land']);
    expect(land.code, land.stderr).toBe(0);
    expect(item(root, 'free').landedOn).toBe(TARGET);
    expect(item(root, 'kept').landedCommit).toBeUndefined();
    expect(git(repo, 'ls-tree', '--name-only', TARGET)).not.toContain('kept.txt');
    const named = await ralph(root, ['land', 'kept']);
    expect(named.code, named.stderr).toBe(0);
    expect(item(root, 'kept').landedOn).toBe(TARGET);
  });
});

describe("the lander's environment", () => {
  it('is made whole again after a lockfile that cannot install; that change goes back to its agent with the installer output', async () => {
    // A dependency tree decided by deps.lock: its install fails on any lockfile an agent wrote.
    const install = [
      'sh',
      '-c',
      'if grep -q "work of" deps.lock; then echo "npm error: invalid lockfile" >&2; exit 1; fi; mkdir -p deps && cp deps.lock deps/',
    ];
    const { repo, root } = await landingWorkspace(
      { gates: [['sh', '-c', 'test -f deps/deps.lock']], maxRounds: 2 },
      {
        environment: {
          dependencies: [{ lockfiles: ['deps.lock'], paths: ['deps'], install: [install] }],
        },
      },
    );
    fs.writeFileSync(path.join(repo, 'deps.lock'), 'v1\n');
    git(repo, 'add', 'deps.lock');
    git(repo, 'commit', '-q', '-m', 'a lockfile');
    // A first landing readies the kept worktree; the broken lockfile's then empties it.
    await add(root, 'first', '#behave: work commit=1', '--priority', '20');
    await add(root, 'broken', '#behave: work file=deps.lock commit=1', '--priority', '10');
    await add(root, 'good', '#behave: work commit=1');
    const run = await ralph(root, ['run', '--drain']);
    // The good one landed after it, on a kept worktree given its dependencies again.
    expect(item(root, 'first')).toMatchObject({ status: 'done', landedOn: TARGET });
    expect(item(root, 'good')).toMatchObject({ status: 'done', landedOn: TARGET });
    // The broken lockfile's change went back to its agent told why; its own worktree's
    // maintenance then failed on the same lockfile, which parks it for a person with the output.
    const broken = item(root, 'broken');
    expect(broken.landFailure).toContain('npm error: invalid lockfile');
    expect(broken.landFailure).toContain('changes deps.lock');
    expect(broken).toMatchObject({ status: 'parked', lastOutcome: 'setup_failed' });
    expect((broken.environment as { failure: string }).failure).toContain('invalid lockfile');
    expect(run.code, run.stderr).toBe(0);
    expect(git(repo, 'show', `${TARGET}:deps.lock`)).toBe('v1');
  });
});

describe('a reverted landing', () => {
  it('is no landing: ls and status no longer name it landed', async () => {
    const { root } = await landingWorkspace();
    await add(root, 'r', '#behave: work commit=1');
    expect((await ralph(root, ['run', '--drain'])).code).toBe(0);
    expect(item(root, 'r').landedCommit).toBeDefined();
    const reject = await ralph(root, ['reject', 'r', '--cancel']);
    expect(reject.code, reject.stderr + reject.stdout).toBe(0);
    const r = item(root, 'r');
    expect(r).toMatchObject({ status: 'cancelled' });
    expect(r.landedCommit).toBeUndefined();
    expect(r.revertedAt).toBeDefined();
    const ls = await ralph(root, ['ls']);
    expect(ls.stdout).not.toMatch(/landed on/);
    expect(ls.stdout).toMatch(/its landing reverted at/);
    const status = await ralph(root, ['status']);
    expect(status.stdout).not.toMatch(/Landed:/);
  });
});

describe('a landing that cannot be made', () => {
  it('says why on the item, and fails it after its tries', async () => {
    const { repo, root } = await landingWorkspace({ enabled: false });
    await add(root, 'gone', '#behave: work commit=1');
    expect((await ralph(root, ['run', '--drain'])).code).toBe(0);
    git(repo, 'branch', '-D', 'ralph/gone');
    expect((await ralph(root, ['land'])).code).toBe(1);
    expect(item(root, 'gone').lastError).toMatch(
      /could not be made: its branch ralph\/gone is not in/,
    );
    const ls = await ralph(root, ['ls']);
    expect(ls.stdout).toMatch(/waits to land: landing on ralph\/landed could not be made/);
    const show = await ralph(root, ['show', 'gone']);
    expect(show.stdout).toMatch(/Landing: {2}waits to land: landing on .* could not be made/);
    // Its last try comes (moved into the past here): it fails, and says why.
    const queue = readQueue(root);
    for (const i of queue.items)
      if (i.id === 'gone') i.lookAgain = { at: new Date(0).toISOString(), looks: 7 };
    fs.writeFileSync(path.join(root, 'state', 'queue.json'), JSON.stringify(queue));
    const run = await ralph(root, ['run', '--drain']);
    expect(run.code).toBe(1);
    expect(item(root, 'gone')).toMatchObject({ status: 'failed', lastOutcome: 'land_failed' });
    expect(item(root, 'gone').lastError).toMatch(/could not be made: .*\(8 tries\)/);
  });
});

describe('words that name what the person typed', () => {
  it('an unknown command points to the list of commands; a deferral names --until only where it was typed', async () => {
    const { root } = await landingWorkspace({ enabled: false });
    const unknown = await ralph(root, ['nosuch']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('ralph help lists the commands');
    await add(root, 'd', '#behave: work commit=1');
    expect((await ralph(root, ['run', '--drain'])).code).toBe(0);
    const typed = await ralph(root, ['defer', 'd', '--until', 'someday']);
    expect(typed.stderr).toContain('--until: expected a duration');
    // A date box (the dashboard's, the terminal inbox's) has no flag to name.
    expect(() => parseUntil('someday', Date.now())).toThrow(/^a deferral: expected a duration/);
  });
});

describe('doctor with the stand-in for claude', () => {
  it("takes the CLI's own word that it is logged in", async () => {
    // As ralph init writes it: logins checked before a night, and by doctor.
    const { root } = await landingWorkspace(
      { enabled: false },
      { run: { failureBackoffCap: 0, pollInterval: 0.2, checkLogins: true } },
    );
    const doctor = await ralph(root, ['doctor'], { HOME: await tempDir('ralph-home-') });
    expect(doctor.stdout).toMatch(/ok {4}auth {9}claude auth status: logged in/);
  });
});

describe("a reviewer's usage limit", () => {
  it("holds its CLI back as an author's does, and the review waits for the reset", async () => {
    const { root } = await landingWorkspace({}, { review: { enabled: true } });
    const resetsAt = Math.floor(Date.now() / 1000) + 2 * 3600;
    await add(
      root,
      'limited',
      `#behave: work commit=1\n#review: rate-limited resetsAt=${resetsAt}`,
    );
    const run = await ralph(root, ['run', '--drain']);
    expect(run.code, run.stderr).toBe(0);
    const limited = item(root, 'limited');
    expect(limited).toMatchObject({ status: 'reviewing' });
    // Its next look is at the reset, not a minute on.
    const { lookAgain } = limited as { lookAgain: { at: string } };
    expect(Date.parse(lookAgain.at)).toBeGreaterThanOrEqual(resetsAt * 1000);
    const status = await ralph(root, ['status']);
    expect(status.stdout).toMatch(/Held: {4}claude, no item starts on it until /);
  });
});
