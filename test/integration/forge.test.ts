// Pull requests with CI in the loop: an item's branch pushed to a bare repository made by the
// test, its pull request opened on a fake GitHub of the suite's own, its checks scripted by
// what its commit holds (a `broken-<item>` file fails the build), failures handed back to the
// fake agent's `ci` behaviour, merges and branch updates made in the bare repository.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { git, makeRepo } from '../support/git.js';
import { startFakeGitHub, type FakeCheckRun, type FakeGitHub } from '../support/fake-github.js';
import { FAKE_CLAUDE, makeWorkspace, ralph, readQueue, tempDir } from '../support/workspace.js';

const TOKEN = 'test-token-0123456789';
const env = { GITHUB_TOKEN: TOKEN };

let fake: FakeGitHub | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

/** A repository with `main`, its bare remote `origin`, and the fake GitHub in front of it. */
async function forgeSetup(
  forge: Record<string, unknown> = {},
  config: Record<string, unknown> = {},
) {
  const repo = await makeRepo();
  const bare = path.join(await tempDir('ralph-remote-'), 'remote.git');
  git(repo, 'clone', '-q', '--bare', repo, bare);
  git(repo, 'remote', 'add', 'origin', bare);
  fake = await startFakeGitHub({ bare });
  fake.checksFor = ciOf(bare);
  const root = await makeWorkspace({
    clis: { claude: { command: [FAKE_CLAUDE] } },
    defaults: { workDir: repo },
    git: { enabled: true },
    forge: {
      kind: 'github',
      apiUrl: fake.url,
      repo: 'acme/app',
      checks: { poll: 0.05 },
      ...forge,
    },
    run: { failureBackoffCap: 0, maxConsecutiveFailures: 0, pollInterval: 0.2 },
    ...config,
  });
  return { repo, bare, root, github: fake };
}

/** The fake CI: `build` fails a commit holding a `broken-*` file, with an annotation and a log. */
function ciOf(bare: string): (sha: string) => FakeCheckRun[] {
  let ids = 100;
  const runs = new Map<string, FakeCheckRun[]>();
  return (sha) => {
    const known = runs.get(sha);
    if (known !== undefined) return known;
    const files = git(bare, 'ls-tree', '--name-only', sha).split('\n');
    const broken = files.find((f) => f.startsWith('broken-'));
    const made: FakeCheckRun[] = [
      broken === undefined
        ? { id: ids++, name: 'build', status: 'completed', conclusion: 'success' }
        : {
            id: ids++,
            name: 'build',
            status: 'completed',
            conclusion: 'failure',
            output: { title: 'Build failed', summary: `${broken} must not exist` },
            annotations: [
              {
                path: broken,
                start_line: 1,
                annotation_level: 'failure',
                message: 'breaks the build',
              },
            ],
            log: `step 1\nstep 2\nerror: ${broken} breaks the build\n`,
          },
    ];
    runs.set(sha, made);
    return made;
  };
}

const item = (root: string, id: string) =>
  readQueue(root).items.find((i) => i.id === id) as Record<string, unknown>;

async function add(root: string, id: string, behave: string, ...flags: string[]) {
  const added = await ralph(root, [
    'add',
    `Item ${id}`,
    '--id',
    id,
    '--body',
    `Do ${id}.\n\n#behave: ${behave}`,
    ...flags,
  ]);
  expect(added.code, added.stderr).toBe(0);
}

describe('pull requests with CI in the loop', () => {
  it('opens a pull request, hands a failed check back to the agent, and is ready for review when green', async () => {
    const { repo, bare, root, github } = await forgeSetup({
      labels: ['ralph'],
      reviewers: ['octo'],
    });
    await add(root, 'fixme', 'ci broken=1');
    const run = await ralph(root, ['run', '--drain'], env);
    expect(run.code, run.stderr).toBe(0);
    const done = item(root, 'fixme');
    expect(done).toMatchObject({
      status: 'done',
      lastOutcome: 'ready_for_review',
      checkRounds: 1,
      checks: 'green: build',
      pullRequest: { number: 1, head: 'ralph/fixme', base: 'main', kind: 'item' },
    });
    // One pull request, with the right head, base and body; labelled, its reviewer asked.
    expect(github.pulls).toHaveLength(1);
    const [pull] = github.pulls;
    expect(pull).toMatchObject({
      head: 'ralph/fixme',
      base: 'main',
      title: 'Item fixme',
      state: 'open',
    });
    expect(pull?.body).toContain('Do fixme.');
    expect(pull?.body).toContain('fixed what the checks said');
    expect(pull?.body).toMatch(/Cost so far: \$\d+\.\d\d over 2 sessions/);
    expect(pull?.body).toContain('docs/sessions');
    expect(pull?.labels).toEqual(expect.arrayContaining(['ralph']));
    expect(pull?.reviewers).toEqual(['octo']);
    // The remote's branch is the fixed one: the broken file gone, green.
    const head = git(bare, 'rev-parse', 'refs/heads/ralph/fixme');
    expect(git(bare, 'ls-tree', '--name-only', head)).not.toContain('broken-fixme');
    expect(item(root, 'fixme').checksHead).toBe(head);
    // The second session was told what failed: the check, its annotation, its log's end.
    const sessions = done.sessions as string[];
    expect(sessions).toHaveLength(2);
    const second = fs.readFileSync(
      path.join(root, 'docs', 'sessions', `${sessions[1]}-prompt.md`),
      'utf8',
    );
    expect(second).toContain('### build');
    expect(second).toContain('broken-fixme:1: failure: breaks the build');
    expect(second).toContain('error: broken-fixme breaks the build');
    expect(second).toContain('fix round 1 of 2');
    // The person's main is untouched: nothing merges without forge.merge.
    expect(git(bare, 'rev-parse', 'main')).toBe(git(repo, 'rev-parse', 'main'));
    // The token went in the Authorization header, and nowhere in the workspace.
    expect(github.calls.every((c) => c.authorization === `token ${TOKEN}`)).toBe(true);
    expect(grepTree(root, TOKEN)).toEqual([]);
    expect(run.stdout + run.stderr).not.toContain(TOKEN);
  });

  it('fails the item after its fix rounds with checks_failed, and says so on its pull request', async () => {
    const { root, github } = await forgeSetup({ checks: { poll: 0.05, maxFixRounds: 1 } });
    await add(root, 'stuck', 'ci broken=1 stubborn=1');
    const run = await ralph(root, ['run', '--drain'], env);
    expect(run.code).toBe(1);
    expect(item(root, 'stuck')).toMatchObject({
      status: 'failed',
      lastOutcome: 'checks_failed',
      checkRounds: 2,
      checks: 'failed: build',
    });
    expect((item(root, 'stuck').sessions as string[]).length).toBe(2);
    const [pull] = github.pulls;
    expect(pull?.comments).toHaveLength(1);
    expect(pull?.comments[0]).toContain('`build` stayed red after 1 round of fixes');
  });

  it('merges when green; when the base moved, updates the branch and merges after the checks again', async () => {
    const { repo, bare, root, github } = await forgeSetup({ merge: 'squash' });
    github.requireUpToDate = true;
    // main moves on the remote after the branch started: the first merge is refused.
    await add(root, 'late', 'ci');
    const other = await tempDir('ralph-other-');
    git(other, 'clone', '-q', bare, '.');
    fs.writeFileSync(path.join(other, 'other.txt'), 'someone else\n');
    git(other, 'add', 'other.txt');
    git(other, 'commit', '-q', '-m', 'someone else');
    git(other, 'push', '-q', 'origin', 'main');
    const run = await ralph(root, ['run', '--drain'], env);
    expect(run.code, run.stderr).toBe(0);
    expect(item(root, 'late')).toMatchObject({ status: 'done', lastOutcome: 'merged' });
    expect(item(root, 'late').mergedAt).toBeDefined();
    const [pull] = github.pulls;
    expect(pull?.merged).toBe(true);
    // The branch was updated through the API, and main on the remote holds both.
    expect(github.calls.filter((c) => c.path.endsWith('/update-branch'))).toHaveLength(1);
    const files = git(bare, 'ls-tree', '--name-only', 'main').split('\n');
    expect(files).toEqual(expect.arrayContaining(['late.txt', 'other.txt']));
    expect(git(repo, 'rev-parse', 'main')).not.toBe(git(bare, 'rev-parse', 'main'));
  });
});

/** Files under `dir` whose text holds `needle`. */
function grepTree(dir: string, needle: string): string[] {
  const found: string[] = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    const file = path.join(entry.parentPath, entry.name);
    if (fs.readFileSync(file, 'utf8').includes(needle)) found.push(file);
  }
  return found;
}
