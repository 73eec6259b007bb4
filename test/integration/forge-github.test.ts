// The forge's GitHub client against a fake GitHub REST API of the suite's own: pull requests
// opened and updated, checks read (conditionally: an unchanged answer is a 304), failures
// with their summaries and annotations, comments, merges, and every refusal told as the
// setting to fix, never with the token in it.
import { afterEach, describe, expect, it } from 'vitest';
import { ForgeError, type Forge } from '../../src/forge/forge.js';
import { gitHubForge } from '../../src/forge/github.js';
import { repositoryOfRemote } from '../../src/forge/remote.js';
import { startFakeGitHub, type FakeGitHub } from '../support/fake-github.js';

const TOKEN = 'test-token-0123456789';
let fake: FakeGitHub | undefined;

afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

async function forgeOf(token = TOKEN): Promise<{ forge: Forge; github: FakeGitHub }> {
  fake = await startFakeGitHub();
  const forge = gitHubForge({
    apiUrl: fake.url,
    repo: `${fake.owner}/${fake.repo}`,
    token,
    tokenEnv: 'GITHUB_TOKEN',
    remote: 'origin',
    retries: 0,
    retryAfterUnitMs: 10,
  });
  return { forge, github: fake };
}

const pr = {
  head: 'ralph/fix-login',
  base: 'main',
  title: 'Fix the login (fix-login)',
  body: 'The task, its summary, gates and cost.',
  draft: true,
  labels: ['ralph'],
  reviewers: ['alice'],
};

describe('the GitHub forge', () => {
  it('opens a pull request with its head, base, body, labels and reviewers, and updates it after', async () => {
    const { forge, github } = await forgeOf();
    github.headShas.set(pr.head, 'a'.repeat(40));
    const opened = await forge.openPullRequest(pr);
    expect(opened).toMatchObject({
      number: 1,
      headSha: 'a'.repeat(40),
      state: 'open',
      draft: true,
    });
    expect(opened.url).toContain('/pull/1');
    expect(github.pulls[0]).toMatchObject({
      head: pr.head,
      base: 'main',
      title: pr.title,
      body: pr.body,
      labels: ['ralph'],
      reviewers: ['alice'],
    });
    const again = await forge.openPullRequest({ ...pr, body: 'Round 2.', labels: [] });
    expect(again.number).toBe(1);
    expect(github.pulls).toHaveLength(1);
    expect(github.pulls[0]?.body).toBe('Round 2.');
  });

  it('reads the checks: pending, then a failure with its summary and annotations, then green', async () => {
    const { forge, github } = await forgeOf();
    const sha = 'b'.repeat(40);
    github.checkRuns.set(sha, [{ id: 7, name: 'test', status: 'in_progress', conclusion: null }]);
    github.statuses.set(sha, [{ context: 'lint', state: 'success' }]);
    expect(await forge.checks(sha)).toEqual({ state: 'pending', waitingFor: ['test'] });
    github.checkRuns.set(sha, [
      {
        id: 7,
        name: 'test',
        status: 'completed',
        conclusion: 'failure',
        output: { title: '1 test failed', summary: 'login.test.ts: expected 200, got 500' },
        annotations: [
          { path: 'src/login.ts', start_line: 12, annotation_level: 'failure', message: 'boom' },
        ],
      },
    ]);
    expect(await forge.checks(sha)).toEqual({
      state: 'failure',
      failed: [
        {
          name: 'test',
          summary: '1 test failed\nlogin.test.ts: expected 200, got 500',
          annotations: ['src/login.ts:12: failure: boom'],
          detailsUrl: 'https://ci.example/7',
        },
      ],
    });
    github.checkRuns.set(sha, [
      { id: 8, name: 'test', status: 'completed', conclusion: 'success' },
    ]);
    expect(await forge.checks(sha)).toEqual({ state: 'success', passed: ['test', 'lint'] });
  });

  it('counts only the required checks, and waits for a required one not reported yet', async () => {
    const { forge, github } = await forgeOf();
    const sha = 'c'.repeat(40);
    github.checkRuns.set(sha, [
      { id: 1, name: 'flaky-optional', status: 'completed', conclusion: 'failure' },
      { id: 2, name: 'build', status: 'completed', conclusion: 'success' },
    ]);
    expect(await forge.checks(sha, ['build', 'test'])).toEqual({
      state: 'pending',
      waitingFor: ['test'],
    });
    github.statuses.set(sha, [{ context: 'test', state: 'success' }]);
    expect(await forge.checks(sha, ['build', 'test'])).toEqual({
      state: 'success',
      passed: ['build', 'test'],
    });
  });

  it('asks again with the ETag: an unchanged answer is a 304 and the verdict stays', async () => {
    const { forge, github } = await forgeOf();
    const sha = 'd'.repeat(40);
    github.checkRuns.set(sha, [{ id: 3, name: 'test', status: 'queued', conclusion: null }]);
    for (let i = 0; i < 5; i++)
      expect(await forge.checks(sha)).toEqual({ state: 'pending', waitingFor: ['test'] });
    const polls = github.calls.filter((c) => c.path.endsWith('/check-runs'));
    expect(polls.map((c) => c.status)).toEqual([200, 304, 304, 304, 304]);
  });

  it('comments, merges, and says when the base moved so the merge must wait', async () => {
    const { forge, github } = await forgeOf();
    const opened = await forge.openPullRequest({ ...pr, labels: [], reviewers: [] });
    await forge.comment(opened.number, 'The checks stayed red after 2 rounds.');
    expect(github.pulls[0]?.comments).toEqual(['The checks stayed red after 2 rounds.']);
    github.mergeStatus = 405;
    expect(await forge.merge(opened.number, 'squash', opened.headSha)).toBe('base_moved');
    github.mergeStatus = 200;
    expect(await forge.merge(opened.number, 'squash', opened.headSha)).toBe('merged');
    expect(github.pulls[0]).toMatchObject({ merged: true });
  });

  it('tells a refused token, a missing repository and a rate limit apart, naming the setting, never the token', async () => {
    const { forge: refused } = await forgeOf('wrong-token-9876543210');
    const auth = await refused.checks('e'.repeat(40)).catch((e: unknown) => e);
    expect(auth).toBeInstanceOf(ForgeError);
    expect(auth).toMatchObject({ kind: 'auth' });
    expect((auth as Error).message).toContain('GITHUB_TOKEN');
    expect((auth as Error).message).not.toContain('wrong-token-9876543210');
    await fake?.close();

    const { forge, github } = await forgeOf();
    github.script.push({ match: /^GET .*\/pulls$/, status: 404, body: { message: 'Not Found' } });
    const missing = await forge.openPullRequest(pr).catch((e: unknown) => e);
    expect(missing).toMatchObject({ kind: 'not_found' });
    expect((missing as Error).message).toContain('forge.repo');

    // A short Retry-After is waited out once; a second limit in a row is said.
    const limited = { status: 403, headers: { 'retry-after': '1', 'x-ratelimit-remaining': '0' } };
    github.script.push({ match: /check-runs$/, ...limited });
    expect(await forge.checks('f'.repeat(40))).toMatchObject({ state: 'pending' });
    github.script.push({ match: /check-runs$/, ...limited }, { match: /check-runs$/, ...limited });
    const rate = await forge.checks('f'.repeat(40)).catch((e: unknown) => e);
    expect(rate).toMatchObject({ kind: 'rate_limited' });
    for (const call of github.calls) expect(JSON.stringify(call)).not.toContain('wrong-token');
  });
});

describe('the repository a remote names', () => {
  it('reads owner/name from https, ssh and scp-like URLs, and none from a path', () => {
    expect(repositoryOfRemote('https://github.com/acme/app.git')).toBe('acme/app');
    expect(repositoryOfRemote('https://ghe.example/api/acme/app')).toBe('acme/app');
    expect(repositoryOfRemote('git@github.com:acme/app.git')).toBe('acme/app');
    expect(repositoryOfRemote('ssh://git@github.com/acme/app.git')).toBe('acme/app');
    expect(repositoryOfRemote('/srv/git/app.git')).toBeUndefined();
    expect(repositoryOfRemote('file:///srv/git/acme/app.git')).toBeUndefined();
  });
});
