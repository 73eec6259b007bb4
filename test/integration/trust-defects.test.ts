// Defects that broke "done means verified" and "no item stops the night", each found by trying
// ralph as its users would: a branch moved after its review landed as approved, an approval that
// verified nothing landed, `edit --gate` stored a gate the night could not read, `ralph land`
// took items added with --no-land, an unreviewed item counted as a failure of the night.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { git } from '../support/git.js';
import { TARGET, item, landingWorkspace } from '../support/landing.js';
import { ralph } from '../support/workspace.js';

const add = (root: string, id: string, body: string, ...flags: string[]) =>
  ralph(root, [
    'add',
    `Item ${id}`,
    '--id',
    id,
    '--body',
    body,
    '--criterion',
    'it writes its file',
    ...flags,
  ]);

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
