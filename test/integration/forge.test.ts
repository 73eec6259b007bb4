// Pull requests with CI in the loop: an item's branch pushed to a bare repository made by the
// test, its pull request opened on a fake GitHub of the suite's own, its checks scripted by
// what its commit holds (a `broken-<item>` file fails the build), failures handed back to the
// fake agent's `ci` behaviour, merges and branch updates made in the bare repository.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it, onTestFinished } from 'vitest';
import { runCommand } from '../../src/cli/commands/run.js';
import { pullRequests } from '../../src/forge/pull-request-stage.js';
import { fakeTime } from '../support/fake-time.js';
import { pacedBy, stageContextFor, stageOn } from '../support/stage-context.js';
import { git } from '../support/git.js';
import { captureOutput } from '../support/output.js';
import { startRunner } from '../support/runner.js';
import { waitUntil } from '../support/wait.js';
import { brokenFileCi, type FakeGitHub } from '../support/fake-github.js';
import { forgeWorkspace } from '../support/forge.js';
import { ralph, readQueue, tempDir } from '../support/workspace.js';

const TOKEN = 'test-token-0123456789';
const env = { GITHUB_TOKEN: TOKEN };

let fake: FakeGitHub | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

/** The forge's workspace (`forgeWorkspace`), its fake GitHub closed after the test. */
async function forgeSetup(
  forge: Record<string, unknown> = {},
  config: Record<string, unknown> = {},
) {
  const setup = await forgeWorkspace(forge, config);
  fake = setup.github;
  return setup;
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
  it('opens a pull request, hands a failed check back to the agent, and is ready to merge when green', async () => {
    const { repo, bare, root, github } = await forgeSetup({
      labels: ['ralph'],
      reviewers: ['octo'],
    });
    await add(root, 'fixme', 'ci broken=1');
    const run = await ralph(root, ['run', '--drain'], env);
    expect(run.code, run.stderr).toBe(0);
    const done = item(root, 'fixme');
    expect(done).toMatchObject({
      status: 'awaiting_merge',
      lastOutcome: 'ready_to_merge',
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
    // ls and show give its pull request's link and checks.
    const ls = await ralph(root, ['ls']);
    expect(ls.stdout).toContain('PR #1 green: build: https://github.example/acme/app/pull/1');
    const show = await ralph(root, ['show', 'fixme']);
    expect(show.stdout).toContain(
      'Pull request: #1 https://github.example/acme/app/pull/1 (ralph/fixme into main)',
    );
    expect(show.stdout).toMatch(/Checks: +green: build, 1 failed round/);
    const report = await ralph(root, ['report']);
    expect(report.stdout).toContain(
      '#1 fixme ready to merge (green: build), red 1 time: https://github.example/acme/app/pull/1',
    );
    // The person's main is untouched: nothing merges without forge.merge.
    expect(git(bare, 'rev-parse', 'main')).toBe(git(repo, 'rev-parse', 'main'));
    // The token went in the Authorization header, and nowhere in the workspace.
    expect(github.calls.every((c) => c.authorization === `token ${TOKEN}`)).toBe(true);
    expect(grepTree(root, TOKEN)).toEqual([]);
    expect(run.stdout + run.stderr).not.toContain(TOKEN);
  });

  it('opens none for an item that turns it off (--no-forge)', async () => {
    const { root, github } = await forgeSetup();
    await add(root, 'quiet', 'ci', '--no-forge');
    const run = await ralph(root, ['run', '--drain'], env);
    expect(run.code, run.stderr).toBe(0);
    expect(item(root, 'quiet')).toMatchObject({
      status: 'done',
      lastOutcome: 'success',
      forge: false,
    });
    expect(item(root, 'quiet').pullRequest).toBeUndefined();
    expect(github.calls).toHaveLength(0);
  });

  it('leaves an item awaiting its checks in the queue when a run ends sooner than they do (--once)', async () => {
    const { bare, root, github } = await forgeSetup();
    github.checksFor = () => [{ id: 5, name: 'build', status: 'queued', conclusion: null }];
    await add(root, 'later', 'ci');
    const run = await ralph(root, ['run', '--once'], env);
    expect(run.code, run.stderr).toBe(0);
    expect(item(root, 'later').status).toBe('awaiting_checks');
    // The next night takes it up where it was, and ends once its checks are green.
    github.checksFor = brokenFileCi(bare);
    const next = await ralph(root, ['run', '--drain'], env);
    expect(next.code, next.stderr).toBe(0);
    expect(item(root, 'later')).toMatchObject({
      status: 'awaiting_merge',
      lastOutcome: 'ready_to_merge',
    });
    expect(item(root, 'later').sessions).toHaveLength(1);
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

describe('the land target\'s pull request (forge.pr "landed")', () => {
  it('opens one pull request for what landed, hands a red landing back to its item, and is green when fixed', async () => {
    // `forge.pr` is "landed" by default with landing on.
    const { bare, root, github } = await forgeSetup({}, { land: { enabled: true, maxRounds: 3 } });
    await add(root, 'first', 'ci broken=1', '--base', 'main');
    await add(root, 'second', 'ci', '--base', 'main', '--depends-on', 'first');
    const run = await ralph(root, ['run', '--drain'], env);
    expect(run.code, run.stderr).toBe(0);
    for (const id of ['first', 'second'])
      expect(item(root, id)).toMatchObject({
        status: 'awaiting_merge',
        lastOutcome: 'ready_to_merge',
        landedOn: 'ralph/landed',
        pullRequest: { number: 1, head: 'ralph/landed', base: 'main', kind: 'landed' },
      });
    // One pull request, the land target's, updated as items landed on it.
    expect(github.pulls).toHaveLength(1);
    expect(github.pulls[0]).toMatchObject({ head: 'ralph/landed', base: 'main', state: 'open' });
    // The first item's landing was red: it went back, fixed its branch, and landed again.
    expect(item(root, 'first').checkRounds).toBe(1);
    const sessions = item(root, 'first').sessions as string[];
    const second = fs.readFileSync(
      path.join(root, 'docs', 'sessions', `${sessions[1]}-prompt.md`),
      'utf8',
    );
    expect(second).toContain('The checks of `ralph/landed` (pull request #1');
    const files = git(bare, 'ls-tree', '--name-only', 'ralph/landed').split('\n');
    expect(files).toEqual(expect.arrayContaining(['first.txt', 'second.txt']));
    expect(files).not.toContain('broken-first');
  });
});

describe("a rejection of work on the land target's pull request", () => {
  it('gives the pull request the revert: what it proposes no longer holds the rejected work', async () => {
    const { bare, root, github } = await forgeSetup({}, { land: { enabled: true } });
    await add(root, 'kept', 'ci', '--base', 'main');
    await add(root, 'dropped', 'ci', '--base', 'main', '--depends-on', 'kept');
    expect((await ralph(root, ['run', '--drain'], env)).code).toBe(0);
    expect(git(bare, 'ls-tree', '--name-only', 'ralph/landed').split('\n')).toContain(
      'dropped.txt',
    );
    const reject = await ralph(root, ['reject', 'dropped', '--cancel'], env);
    expect(reject.code, reject.stderr + reject.stdout).toBe(0);
    // The pull request's branch on the remote: the revert on it, the other item's work kept.
    const files = git(bare, 'ls-tree', '--name-only', 'ralph/landed').split('\n');
    expect(files).toContain('kept.txt');
    expect(files).not.toContain('dropped.txt');
    expect(github.pulls).toHaveLength(1);
    expect(github.pulls[0]).toMatchObject({ head: 'ralph/landed', state: 'open' });
  });
});

describe('pull requests: waiting, restarts, faults and limits', () => {
  it('doctor reads the repository with the token, and names the setting when it cannot', async () => {
    const { root } = await forgeSetup();
    const ok = await ralph(root, ['doctor'], env);
    expect(ok.stdout).toMatch(
      /ok +forge +acme\/app on http:\/\/127\.0\.0\.1:\d+, pushed to through origin; the token in GITHUB_TOKEN reads it/,
    );
    const none = await ralph(root, ['doctor'], { GITHUB_TOKEN: undefined });
    expect(none.stdout).toMatch(/FAIL +forge +no token in GITHUB_TOKEN \(forge\.tokenEnv\)/);
    const wrong = await ralph(root, ['doctor'], { GITHUB_TOKEN: 'wrong-token-9876543210' });
    expect(wrong.stdout).toMatch(
      /FAIL +forge +reading acme\/app: GitHub refused the token in GITHUB_TOKEN \(401/,
    );
    expect(wrong.stdout + wrong.stderr).not.toContain('wrong-token-9876543210');
  });

  it('goes on waiting for the checks after a restart, with one pull request', async () => {
    const { root, github } = await forgeSetup();
    let green = false;
    const ci = github.checksFor;
    github.checksFor = (sha) =>
      green ? ci?.(sha) : [{ id: 7, name: 'build', status: 'in_progress', conclusion: null }];
    await add(root, 'waits', 'ci');
    const first = startRunner(root, { ...env, PATH: process.env.PATH ?? '' }, '--drain');
    await waitUntil(
      path.join(root, 'state'),
      () =>
        typeof item(root, 'waits').checks === 'string' && item(root, 'waits').checks !== 'pending',
      30_000,
      'the checks seen pending',
    );
    expect(item(root, 'waits')).toMatchObject({
      status: 'awaiting_checks',
      checks: 'pending: build',
    });
    first.child.kill('SIGTERM');
    expect(await first.exited).toBe(143);
    // Still waiting in the queue: the stop released nothing and failed nothing.
    expect(item(root, 'waits').status).toBe('awaiting_checks');
    const status = await ralph(root, ['status']);
    expect(status.stdout).toContain('1 awaiting_checks');
    expect(status.stdout).toContain(
      'Pull requests: #1 waits pending: build: https://github.example/acme/app/pull/1',
    );
    green = true;
    const second = await ralph(root, ['run', '--drain'], env);
    expect(second.code, second.stderr).toBe(0);
    expect(item(root, 'waits')).toMatchObject({
      status: 'awaiting_merge',
      lastOutcome: 'ready_to_merge',
    });
    expect((item(root, 'waits').sessions as string[]).length).toBe(1);
    expect(github.pulls).toHaveLength(1);
    expect(
      github.calls.filter((c) => c.method === 'POST' && c.path.endsWith('/pulls')),
    ).toHaveLength(1);
  });

  it('pauses the night when GitHub refuses the token (401), the item still waiting, the token told nowhere', async () => {
    const { root, github } = await forgeSetup();
    await add(root, 'denied', 'ci');
    const wrong = 'wrong-token-9876543210';
    const output = captureOutput();
    const code = await runCommand(root, { drain: true }, output, {
      PATH: process.env.PATH,
      GITHUB_TOKEN: wrong,
    });
    expect(code).toBe(6);
    const stderr = output.stderr.join('\n');
    expect(stderr).toMatch(/the night is paused: .*GitHub refused the token in GITHUB_TOKEN \(401/);
    expect(fs.readFileSync(path.join(root, 'state', 'interrupt-request.txt'), 'utf8')).toContain(
      'GITHUB_TOKEN',
    );
    expect(item(root, 'denied').status).toBe('awaiting_checks');
    expect(github.pulls).toHaveLength(0);
    expect(grepTree(root, wrong)).toEqual([]);
    expect(stderr + output.stdout.join('\n')).not.toContain(wrong);
  });

  it('pauses on a repository GitHub does not have, naming forge.repo; fails alone an item whose branch is gone', async () => {
    const { repo, root } = await forgeSetup({ repo: 'acme/missing' });
    await add(root, 'nowhere', 'ci');
    const paused = await ralph(root, ['run', '--drain'], env);
    expect(paused.code).toBe(6);
    expect(paused.stderr).toMatch(/GitHub has no acme\/missing \(404\).*check forge\.repo/);
    expect(item(root, 'nowhere').status).toBe('awaiting_checks');
    // Set right, and the item's branch deleted meanwhile: that item fails, the night goes on.
    const configFile = path.join(root, 'ralph.config.json');
    const config = JSON.parse(fs.readFileSync(configFile, 'utf8')) as { forge: { repo: string } };
    config.forge.repo = 'acme/app';
    fs.writeFileSync(configFile, JSON.stringify(config));
    git(repo, 'branch', '-D', 'ralph/nowhere');
    await ralph(root, ['resume']);
    const run = await ralph(root, ['run', '--drain'], env);
    expect(run.code).toBe(1);
    expect(item(root, 'nowhere')).toMatchObject({
      status: 'failed',
      lastOutcome: 'pull_request_refused',
    });
    expect(item(root, 'nowhere').lastError).toContain(
      'the branch ralph/nowhere of item nowhere is not in',
    );
  });

  it('keeps ten items waiting an hour of fake time within a request budget, mostly 304s', async () => {
    const { repo, root, github } = await forgeSetup({ checks: { poll: 30, timeout: 3600 } });
    github.checksFor = () => [{ id: 9, name: 'build', status: 'in_progress', conclusion: null }];
    // Ten items whose sessions are over, each on a branch of its own, await their checks.
    const ids = Array.from({ length: 10 }, (_, i) => `w${i}`);
    const now = new Date(START).toISOString();
    const items = ids.map((id) => {
      git(repo, 'switch', '-q', '-c', `ralph/${id}`, 'main');
      fs.writeFileSync(path.join(repo, `${id}.txt`), `${id}\n`);
      git(repo, 'add', '.');
      git(repo, 'commit', '-q', '-m', id);
      return {
        id,
        title: `Item ${id}`,
        status: 'awaiting_checks',
        branch: `ralph/${id}`,
        baseCommit: git(repo, 'rev-parse', 'main'),
        createdAt: now,
        finishedAt: now,
        git: true,
      };
    });
    git(repo, 'switch', '-q', 'main');
    fs.writeFileSync(
      path.join(root, 'state', 'queue.json'),
      JSON.stringify({ schema: 4, version: 1, items }),
    );
    // The forge stage alone, its every wait a jump of the fake clock: an hour goes by at once.
    const time = fakeTime(START);
    const { stage, close } = await checksStageOf(root, time);
    try {
      // Over once no item awaits its checks any more.
      await stage.run(() => readQueue(root).items.every((i) => i.status !== 'awaiting_checks'), {
        sleep: (ms) => time.wait({ ms }),
        untilChanged: () => time.wait({ ms: 1000 }),
      });
    } finally {
      await close();
    }
    expect(time.now() - START).toBeGreaterThanOrEqual(3600_000);
    for (const id of ids)
      expect(item(root, id)).toMatchObject({ status: 'failed', lastOutcome: 'checks_timeout' });
    const reads = github.calls.filter((c) => c.method === 'GET' && !c.path.endsWith('/pulls'));
    const unchanged = reads.filter((c) => c.status === 304);
    // The budget: growing waits (30 s doubling up to 5 min) make 15 looks an hour an item, of
    // three reads each, two requests to open it and a comment when it fails: about 500 in all;
    // GitHub counts only the 200s.
    expect(github.calls.length).toBeLessThanOrEqual(550);
    expect(reads.length / ids.length).toBeGreaterThanOrEqual(30);
    expect(unchanged.length / reads.length).toBeGreaterThan(0.9);
    // An hour of ten items' looks (some 550 requests, ten pushes): past a minute on a loaded machine.
  }, 240_000);

  it('keeps with the item when its checks are to be read again: a restart waits for that time', async () => {
    const { repo, root, github } = await forgeSetup({ checks: { poll: 30, timeout: 36_000 } });
    github.checksFor = () => [{ id: 9, name: 'build', status: 'in_progress', conclusion: null }];
    git(repo, 'switch', '-q', '-c', 'ralph/w', 'main');
    fs.writeFileSync(path.join(repo, 'w.txt'), 'w\n');
    git(repo, 'add', '.');
    git(repo, 'commit', '-q', '-m', 'w');
    git(repo, 'switch', '-q', 'main');
    const now = new Date(START).toISOString();
    const waiting = {
      id: 'w',
      title: 'Item w',
      status: 'awaiting_checks',
      branch: 'ralph/w',
      baseCommit: git(repo, 'rev-parse', 'main'),
      createdAt: now,
      finishedAt: now,
      git: true,
    };
    fs.writeFileSync(
      path.join(root, 'state', 'queue.json'),
      JSON.stringify({ schema: 7, version: 1, items: [waiting] }),
    );
    type Look = { at: string; looks: number };
    const lookOf = () => item(root, 'w').lookAgain as Look | undefined;
    // The first run opens the pull request and reads its checks until they have not changed
    // twice.
    const first = fakeTime(START);
    const a = await checksStageOf(root, first);
    try {
      await a.stage.run(
        () => item(root, 'w').pullRequest !== undefined && (lookOf()?.looks ?? 0) >= 2,
        pacedBy(first),
      );
    } finally {
      await a.close();
    }
    const stored = lookOf() as Look;
    // The third look waits 30 s doubled twice: a restart a minute before it makes no request
    // until the stored time.
    expect(stored.looks).toBe(2);
    const calls = github.calls.length;
    const second = fakeTime(Date.parse(stored.at) - 60_000);
    const b = await checksStageOf(root, second);
    // The clock when the restarted stage first asked the forge: seen at its next wait.
    let askedAt: number | undefined;
    const paced = pacedBy(second);
    const noting = (wait: () => Promise<void>) => {
      if (askedAt === undefined && github.calls.length > calls) askedAt = second.now();
      return wait();
    };
    try {
      await b.stage.run(() => askedAt !== undefined, {
        sleep: (ms: number) => noting(() => paced.sleep(ms)),
        untilChanged: () => noting(() => paced.untilChanged()),
      });
    } finally {
      await b.close();
    }
    expect(askedAt).toBeGreaterThanOrEqual(Date.parse(stored.at));
    expect(github.calls.slice(calls).every((c) => c.method === 'GET')).toBe(true);
    expect(github.pulls).toHaveLength(1);
  });

  it('counts as busy after a change until it has looked again, so a drained run waits for it', async () => {
    // A worker that just left an item awaiting its checks may look for more work before the
    // stage has read the queue: the run must not end on the stage's last, older look.
    const { root } = await forgeSetup();
    const time = fakeTime(START);
    const { stage, close } = await checksStageOf(root, time);
    try {
      expect(stage.busy).toBe(false);
      stage.changed();
      expect(stage.busy).toBe(true);
      let looked = false;
      const looking = () => {
        looked = true;
        return Promise.resolve();
      };
      await stage.run(() => looked, { sleep: looking, untilChanged: looking });
      expect(stage.busy).toBe(false);
    } finally {
      await close();
    }
  });

  it('honours Retry-After and a rate limit: the item waits, and is not failed', async () => {
    const { root, github } = await forgeSetup();
    github.script.push(
      {
        match: /GET .*\/check-runs$/,
        status: 403,
        headers: { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '1' },
      },
      { match: /GET .*\/check-runs$/, status: 503, body: { message: 'down' } },
      { match: /GET .*\/check-runs$/, status: 503, body: { message: 'down' } },
      { match: /GET .*\/check-runs$/, status: 503, body: { message: 'down' } },
    );
    await add(root, 'patient', 'ci');
    const run = await ralph(root, ['run', '--drain'], env);
    expect(run.code, run.stderr).toBe(0);
    expect(item(root, 'patient')).toMatchObject({
      status: 'awaiting_merge',
      lastOutcome: 'ready_to_merge',
    });
    const log = fs.readFileSync(path.join(root, 'state', 'iteration.log'), 'utf8');
    expect(log).toMatch(
      /"event":"forge_unavailable".*GitHub cannot be reached at http:\/\/127\.0\.0\.1:\d+ \(forge\.apiUrl; 503\)/,
    );
    expect(log).toContain('forge_reachable');
    expect(github.script).toHaveLength(0);
  });

  it('hands a review asking for changes back to the agent, and needs an approval when asked', async () => {
    const { bare, root, github } = await forgeSetup({ reviews: true, requireApproval: true });
    const review = (state: 'APPROVED' | 'CHANGES_REQUESTED') => ({
      id: state === 'APPROVED' ? 2 : 1,
      user: { login: 'octo' },
      state,
      body: state === 'APPROVED' ? 'Thanks' : 'Please say why in the file.',
      comments:
        state === 'APPROVED' ? [] : [{ path: 'asked.txt', line: 1, body: 'explain this line' }],
    });
    github.reviews.set(1, [review('CHANGES_REQUESTED')]);
    const ci = github.checksFor;
    github.checksFor = (sha) => {
      // The reviewer approves once the agent's fix is pushed.
      if (git(bare, 'log', '--format=%s', sha).includes('agent: fix asked'))
        github.reviews.set(1, [review('CHANGES_REQUESTED'), review('APPROVED')]);
      return ci?.(sha);
    };
    await add(root, 'asked', 'ci');
    const run = await ralph(root, ['run', '--drain'], env);
    expect(run.code, run.stderr).toBe(0);
    const done = item(root, 'asked');
    expect(done).toMatchObject({
      status: 'awaiting_merge',
      lastOutcome: 'ready_to_merge',
      checkRounds: 1,
    });
    const sessions = done.sessions as string[];
    const second = fs.readFileSync(
      path.join(root, 'docs', 'sessions', `${sessions[1]}-prompt.md`),
      'utf8',
    );
    expect(second).toContain('octo requested changes');
    expect(second).toContain('asked.txt:1: explain this line');
  });

  it('starts items at once while the forge stalls every request: no claim waits on it', async () => {
    const { root, github } = await forgeSetup({ maxOpen: 3 });
    // A pull request waits for a person: the stage asks the forge whether it was merged.
    const now = new Date().toISOString();
    fs.writeFileSync(
      path.join(root, 'state', 'queue.json'),
      JSON.stringify({
        schema: 7,
        version: 1,
        items: [
          {
            id: 'open',
            title: 'Item open',
            status: 'awaiting_merge',
            lastOutcome: 'ready_to_merge',
            pullRequest: {
              number: 1,
              url: 'https://github.example/acme/app/pull/1',
              head: 'ralph/open',
              base: 'main',
              kind: 'item',
            },
            createdAt: now,
            finishedAt: now,
          },
        ],
      }),
    );
    for (const id of ['a', 'b']) await add(root, id, 'ok', '--no-forge');
    github.stallMs = 60_000;
    const runner = startRunner(root, { ...env, PATH: process.env.PATH ?? '' });
    onTestFinished(() => void runner.child.kill('SIGKILL'));
    await waitUntil(
      path.join(root, 'state'),
      () => ['a', 'b'].every((id) => item(root, id).status === 'done'),
      30_000,
      'both items done',
    );
    // Done before the forge answered anything: neither claim waited for it.
    expect(github.calls).toEqual([]);
    runner.child.kill('SIGKILL');
    await runner.exited;
  });

  it('starts no new item past forge.maxOpen open pull requests, and says so', async () => {
    const { root, github } = await forgeSetup({ maxOpen: 1 });
    await add(root, 'one', 'ci');
    await add(root, 'two', 'ci');
    const run = await ralph(root, ['run', '--drain'], env);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout + run.stderr).toContain(
      '1 pull request is open and not merged (forge.maxOpen 1)',
    );
    expect(item(root, 'one')).toMatchObject({
      status: 'awaiting_merge',
      lastOutcome: 'ready_to_merge',
    });
    expect(item(root, 'two').status).toBe('pending');
    // The drained run left no wait behind; a night that does not drain holds its workers, and
    // status says why.
    const waiting = path.join(root, 'state', 'waiting.json');
    expect(fs.existsSync(waiting)).toBe(false);
    const held = startRunner(root, { ...env, PATH: process.env.PATH ?? '' });
    onTestFinished(() => void held.child.kill('SIGKILL'));
    await waitUntil(
      path.join(root, 'state'),
      () => fs.existsSync(waiting) && fs.readFileSync(waiting, 'utf8').includes('forge_full'),
      20_000,
      'the workers held',
    );
    const status = await ralph(root, ['status']);
    expect(status.stdout).toContain(
      'Waiting: 1 pull request is open and not merged (forge.maxOpen 1): no new item starts until one is merged or closed',
    );
    held.child.kill('SIGTERM');
    await held.exited;
    // Merged by a person: the next night starts the other item.
    const [pull] = github.pulls;
    if (pull !== undefined) Object.assign(pull, { state: 'closed', merged: true });
    const again = await ralph(root, ['run', '--drain'], env);
    expect(again.code, again.stderr).toBe(0);
    expect(item(root, 'one')).toMatchObject({ lastOutcome: 'merged' });
    expect(item(root, 'two')).toMatchObject({
      status: 'awaiting_merge',
      lastOutcome: 'ready_to_merge',
    });
  });
});

const START = Date.parse('2026-11-25T01:00:00Z');

/** The forge stage of a runner of the workspace, on the fake clock. */
async function checksStageOf(root: string, time: ReturnType<typeof fakeTime>) {
  const { ctx, close } = await stageContextFor(root, time, env, [TOKEN]);
  return { stage: stageOn(pullRequests, ctx), close };
}

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
