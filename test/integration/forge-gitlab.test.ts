// The forge's GitLab client (gitbeaker's resources, ralph's requester) against a fake GitLab REST
// API of the suite's own, served under a path as a self-hosted instance is: merge requests opened
// and updated, a pipeline's jobs read as the checks (a failed job's log, its colours gone), notes
// made once, merges as the project's method allows, issues paged, and every refusal told as the
// setting to fix, never with the token in it.
import { afterEach, describe, expect, it } from 'vitest';
import { ForgeError } from '../../src/forge/forge.js';
import { gitLabForge, plainLog } from '../../src/forge/gitlab.js';
import { forgeOfRemote, projectOfRemote } from '../../src/forge/remote.js';
import { git, makeRepoWithRemote } from '../support/git.js';
import {
  GITLAB_TOKEN,
  brokenFilePipeline,
  startFakeGitLab,
  type FakeGitLab,
} from '../support/fake-gitlab.js';

let fake: FakeGitLab | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

async function forgeOn(options: { bare?: string; token?: string } = {}) {
  fake = await startFakeGitLab({ prefix: '/gitlab', bare: options.bare });
  const forge = gitLabForge({
    apiUrl: fake.url,
    project: fake.project,
    remote: 'origin',
    token: options.token ?? GITLAB_TOKEN,
    tokenEnv: 'GITLAB_TOKEN',
    retries: 1,
    secondMs: 1,
  });
  return { forge, gitlab: fake };
}

const request = {
  head: 'ralph/fix-login',
  base: 'main',
  title: 'Fix the login (fix-login)',
  body: 'The task, its summary, gates and cost.',
  draft: true,
  labels: ['ralph', 'night'],
  reviewers: ['reviewer', 'nobody-known'],
};

describe('the GitLab forge', () => {
  it('opens a draft merge request with its labels and reviewers, and updates the same one after', async () => {
    const { forge, gitlab } = await forgeOn();
    const opened = await forge.openPullRequest(request);
    expect(opened).toMatchObject({ number: 1, state: 'open', draft: true });
    expect(opened.url).toBe('https://gitlab.example/gitlab/acme/platform/app/-/merge_requests/1');
    expect(gitlab.mergeRequests[0]).toMatchObject({
      source: 'ralph/fix-login',
      target: 'main',
      title: 'Draft: Fix the login (fix-login)',
      description: request.body,
      labels: ['ralph', 'night'],
      reviewerIds: [3],
    });
    const again = await forge.openPullRequest({ ...request, body: 'Round 2.', labels: ['fixed'] });
    expect(again.number).toBe(1);
    expect(gitlab.mergeRequests).toHaveLength(1);
    expect(gitlab.mergeRequests[0]).toMatchObject({
      description: 'Round 2.',
      title: 'Draft: Fix the login (fix-login)',
      labels: ['ralph', 'night', 'fixed'],
    });
    // Every request went under the instance's path, with the token in its header.
    expect(gitlab.calls.every((c) => c.path.startsWith('/gitlab/api/v4/'))).toBe(true);
    expect(gitlab.calls.every((c) => c.token === GITLAB_TOKEN)).toBe(true);
  });

  it("reads the pipeline's jobs: a failed one with the end of its log, allowed failures and manual jobs aside", async () => {
    const { repo, bare } = await makeRepoWithRemote();
    const { forge, gitlab } = await forgeOn({ bare });
    git(repo, 'switch', '-q', '-c', 'ralph/x');
    git(repo, 'commit', '-q', '--allow-empty', '-m', 'x');
    git(repo, 'push', '-q', 'origin', 'ralph/x');
    const sha = git(repo, 'rev-parse', 'HEAD');
    let jobs = [
      { id: 1, name: 'lint', status: 'success' },
      { id: 2, name: 'test', status: 'running' },
      { id: 3, name: 'deploy', status: 'manual' },
    ];
    gitlab.jobsFor = () => jobs;
    expect(await forge.checks(sha)).toEqual({ state: 'pending', waitingFor: ['test'] });
    jobs = brokenFilePipeline(bare)(sha);
    expect(await forge.checks(sha)).toEqual({
      state: 'success',
      passed: ['lint', 'test', 'flaky'],
    });
    const failing = [
      {
        id: 7,
        name: 'test',
        status: 'failed',
        log: '\x1b[31merror: boom\x1b[0m\r\nsection_end:1:step\r\x1b[0K',
      },
    ];
    jobs = failing;
    gitlab.mergeRequests.push({
      iid: 1,
      source: 'ralph/x',
      target: 'main',
      title: 't',
      description: '',
      state: 'opened',
      sha,
      labels: [],
      reviewerIds: [],
      notes: [],
    });
    const verdict = await forge.checks(sha);
    expect(verdict).toEqual({
      state: 'failure',
      failed: [
        {
          name: 'test',
          summary: 'failed',
          annotations: [],
          detailsUrl: 'https://gitlab.example/gitlab/acme/platform/app/-/jobs/7',
          logTail: 'error: boom',
        },
      ],
    });
    // A required job not reported yet is waited for; the others do not count.
    expect(await forge.checks(sha, ['build'])).toEqual({ state: 'pending', waitingFor: ['build'] });
  });

  it('takes the colours and section markers out of a job log', () => {
    expect(
      plainLog(
        'section_start:1700000000:step_script[collapsed=true]\r\x1b[0K\x1b[32;1m$ npm test\x1b[0;m\r\nok\n',
      ),
    ).toBe('$ npm test\nok\n');
  });

  it('merges as the project allows: behind a fast-forward-only target it rebases, then merges', async () => {
    const { repo, bare } = await makeRepoWithRemote();
    const { forge, gitlab } = await forgeOn({ bare });
    gitlab.mergeMethod = 'ff';
    git(repo, 'switch', '-q', '-c', 'ralph/y');
    git(repo, 'commit', '-q', '--allow-empty', '-m', 'y');
    await forge.push(repo, 'ralph/y');
    const opened = await forge.openPullRequest({ ...request, head: 'ralph/y', draft: false });
    // Someone else moves main.
    git(repo, 'switch', '-q', 'main');
    git(repo, 'commit', '-q', '--allow-empty', '-m', 'someone else');
    git(repo, 'push', '-q', 'origin', 'main');
    const head = (await forge.pullRequest(opened.number)).headSha;
    expect(await forge.merge(opened.number, 'rebase', head)).toBe('base_moved');
    expect(await forge.updateBranch(opened.number, head)).toBe('updated');
    const rebased = (await forge.pullRequest(opened.number)).headSha;
    expect(rebased).not.toBe(head);
    // A head that moved on is refused, not merged.
    expect(await forge.merge(opened.number, 'rebase', head)).toBe('base_moved');
    expect(await forge.merge(opened.number, 'rebase', rebased)).toBe('merged');
    expect(git(bare, 'rev-parse', 'main')).toBe(rebased);
    expect((await forge.pullRequest(opened.number)).state).toBe('merged');
  });

  it('squashes when asked, and closes a merge request unmerged', async () => {
    const { repo, bare } = await makeRepoWithRemote();
    const { forge, gitlab } = await forgeOn({ bare });
    for (const branch of ['ralph/s', 'ralph/c']) {
      git(repo, 'switch', '-q', '-c', branch, 'main');
      git(repo, 'commit', '-q', '--allow-empty', '-m', branch);
      await forge.push(repo, branch);
    }
    const squashed = await forge.openPullRequest({ ...request, head: 'ralph/s', draft: false });
    const closed = await forge.openPullRequest({ ...request, head: 'ralph/c', draft: false });
    const head = (await forge.pullRequest(squashed.number)).headSha;
    expect(await forge.merge(squashed.number, 'squash', head)).toBe('merged');
    expect(gitlab.mergeRequests[0]?.squashed).toBe(true);
    await forge.closePullRequest(closed.number);
    expect((await forge.pullRequest(closed.number)).state).toBe('closed');
  });

  it('reads approvals, and a reviewer asking for changes with their open threads', async () => {
    const { forge, gitlab } = await forgeOn();
    await forge.openPullRequest(request);
    expect(await forge.reviews(1)).toEqual({ approved: false, changesRequested: [] });
    gitlab.approvedBy.set(1, ['maintainer']);
    expect((await forge.reviews(1)).approved).toBe(true);
    gitlab.reviewerStates.set(1, [{ username: 'reviewer', state: 'requested_changes' }]);
    gitlab.discussions.set(1, [
      {
        notes: [
          {
            author: { username: 'reviewer' },
            body: 'Handle the empty password.',
            resolvable: true,
            resolved: false,
            position: { new_path: 'src/login.ts', new_line: 12 },
          },
        ],
      },
      {
        notes: [
          {
            author: { username: 'reviewer' },
            body: 'Fixed already.',
            resolvable: true,
            resolved: true,
          },
        ],
      },
    ]);
    expect(await forge.reviews(1)).toEqual({
      approved: false,
      changesRequested: [
        {
          reviewer: 'reviewer',
          body: '',
          comments: ['src/login.ts:12: Handle the empty password.'],
        },
      ],
    });
  });

  it("lists the open issues past a page, with their authors' access levels, and notes an issue once", async () => {
    const { forge, gitlab } = await forgeOn();
    for (let iid = 1; iid <= 130; iid++)
      gitlab.issues.push({
        iid,
        title: `Issue ${iid}`,
        description: '- [ ] it works',
        state: iid === 7 ? 'closed' : 'opened',
        labels: iid % 2 === 0 ? ['ralph'] : [],
        ...(iid % 10 === 0 ? { milestone: 'v2' } : {}),
        ...(iid % 25 === 0 ? { assignee: 'maintainer' } : {}),
        authorId: iid === 4 ? 2 : 1,
        notes: [],
      });
    const all = await forge.issues({});
    expect(all).toHaveLength(129);
    const labelled = await forge.issues({ label: 'ralph' });
    expect(labelled).toHaveLength(65);
    expect(labelled[0]).toMatchObject({
      number: 2,
      author: 'maintainer',
      authorAccessLevel: 40,
      authorAssociation: 'MAINTAINER',
      url: 'https://gitlab.example/gitlab/acme/platform/app/-/issues/2',
    });
    expect((await forge.issues({ milestone: 'v2' })).map((i) => i.number)).toHaveLength(13);
    expect(
      (await forge.issues({ label: 'ralph', milestone: 'v2', assignee: 'maintainer' })).map(
        (i) => i.number,
      ),
    ).toEqual([50, 100]);
    expect(labelled[1]).toMatchObject({
      number: 4,
      authorAccessLevel: 0,
      authorAssociation: 'NONE',
    });
    expect(await forge.issue(7)).toMatchObject({ state: 'closed', closedAs: 'completed' });
    await forge.commentOnIssue(2, 'Started.', 'writeback-x-started');
    await forge.commentOnIssue(2, 'Started.', 'writeback-x-started');
    expect(gitlab.issues[1]?.notes).toEqual(['Started.\n\n<!-- ralph:writeback-x-started -->']);
  });

  it('tells a refused token, a missing project, a missing scope and a rate limit as what to fix', async () => {
    const { forge, gitlab } = await forgeOn({ token: 'glpat-wrong-000000000000' });
    const refused = await forge.repository().catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ForgeError);
    expect((refused as ForgeError).kind).toBe('auth');
    expect((refused as ForgeError).message).toMatch(
      /reading acme\/platform\/app: GitLab refused the token in GITLAB_TOKEN \(401/,
    );
    expect((refused as ForgeError).message).not.toContain('glpat-wrong');
    const good = gitLabForge({
      apiUrl: gitlab.url,
      project: 'acme/missing',
      remote: 'origin',
      token: GITLAB_TOKEN,
      tokenEnv: 'GITLAB_TOKEN',
    });
    await expect(good.repository()).rejects.toMatchObject({ kind: 'not_found' });
    const right = gitLabForge({
      apiUrl: gitlab.url,
      project: gitlab.project,
      remote: 'origin',
      token: GITLAB_TOKEN,
      tokenEnv: 'GITLAB_TOKEN',
      secondMs: 1,
    });
    expect(await right.repository()).toEqual({
      name: 'acme/platform/app',
      defaultBranch: 'main',
      canPush: true,
    });
    gitlab.scopes = ['read_api', 'read_repository'];
    expect((await right.repository()).lacks).toBe('api (it has read_api, read_repository)');
    await expect(right.comment(1, 'x')).rejects.toMatchObject({ kind: 'auth' });
    // A short Retry-After is waited out once; a long one is said.
    gitlab.scopes = ['api'];
    gitlab.script.push({ match: /issues$/, status: 429, headers: { 'retry-after': '2' } });
    expect(await right.issues({})).toEqual([]);
    gitlab.script.push({ match: /issues$/, status: 429, headers: { 'retry-after': '3600' } });
    await expect(right.issues({})).rejects.toMatchObject({ kind: 'rate_limited' });
    // A server's error is tried again.
    gitlab.script.push({ match: /issues$/, status: 502 });
    expect(await right.issues({})).toEqual([]);
  });
});

describe("a GitLab remote's project", () => {
  it('is the whole path after the host, less the instance path', () => {
    expect(projectOfRemote('git@gitlab.com:acme/platform/app.git', 'https://gitlab.com')).toBe(
      'acme/platform/app',
    );
    expect(
      projectOfRemote('https://git.example/gitlab/acme/app.git', 'https://git.example/gitlab'),
    ).toBe('acme/app');
    expect(projectOfRemote('/srv/app.git', 'https://gitlab.com')).toBeUndefined();
    expect(forgeOfRemote('git@gitlab.com:acme/platform/app.git')).toEqual({
      kind: 'gitlab',
      repo: 'acme/platform/app',
    });
    expect(forgeOfRemote('https://gitlab.example.org/acme/app.git')).toEqual({
      kind: 'gitlab',
      apiUrl: 'https://gitlab.example.org',
      repo: 'acme/app',
    });
    expect(forgeOfRemote('git@github.com:acme/app.git')).toEqual({
      kind: 'github',
      repo: 'acme/app',
    });
    expect(forgeOfRemote('https://code.example/acme/app.git')).toBeUndefined();
  });
});
