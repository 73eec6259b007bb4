// End-to-end: the real claude CLI fixes a failing check. Its first session leaves a file that
// the fake CI fails; ralph pushes the branch to a bare remote, opens the pull request on the
// fake GitHub, reads the red check, and resumes the conversation with what failed; the agent
// removes the file, and the pull request is merged once green.
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { lastIsToolResult, requestText, type RecordedRequest } from '../support/fake-anthropic.js';
import { brokenFileCi, startFakeGitHub, type FakeGitHub } from '../support/fake-github.js';
import { git, makeRepo } from '../support/git.js';
import { closeFakeApiAfterEach, realClaudeWorkspace } from '../support/real-claude.js';
import { ralph, readQueue, tempDir } from '../support/workspace.js';

closeFakeApiAfterEach();

let github: FakeGitHub | undefined;
afterEach(async () => {
  await github?.close();
  github = undefined;
});

const TOKEN = 'test-token-0123456789';

/** The text of the conversation's messages (a resumed session's news travels there). */
const messagesText = (request: RecordedRequest) => JSON.stringify(request.body.messages ?? []);

describe('the real claude CLI fixing a failing check', () => {
  it('is handed the red check, fixes its branch, and its pull request is merged when green', async () => {
    const repo = await makeRepo();
    const bare = path.join(await tempDir('ralph-remote-'), 'remote.git');
    git(repo, 'clone', '-q', '--bare', repo, bare);
    git(repo, 'remote', 'add', 'origin', bare);
    github = await startFakeGitHub({ bare });
    github.checksFor = brokenFileCi(bare);
    const { root, env, api } = await realClaudeWorkspace(
      (request) => {
        const item = /Work item: (\S+) —/.exec(requestText(request))?.[1] ?? 'unknown';
        const told = messagesText(request).includes('failed at');
        const command = told
          ? `rm broken-${item} && echo fixed >> ${item}.txt`
          : `echo "work of ${item}" > ${item}.txt && echo oops > broken-${item}`;
        return lastIsToolResult(request)
          ? { kind: 'text', text: told ? `Fixed the build of ${item}.` : `Done with ${item}.` }
          : { kind: 'tool_use', name: 'Bash', input: { command, description: 'do the work' } };
      },
      {
        defaults: { workDir: repo, allowedTools: ['Bash', 'Read'] },
        git: { enabled: true, base: 'main' },
        forge: {
          kind: 'github',
          apiUrl: github.url,
          // The remote is a path here, which names no GitHub repository.
          repo: 'acme/app',
          merge: 'squash',
          checks: { poll: 0.05 },
          writeInterval: 0.01,
        },
      },
    );
    const withToken = { ...env, GITHUB_TOKEN: TOKEN };
    await ralph(root, ['add', 'Write the file', '--id', 'job'], withToken);
    const run = await ralph(root, ['run', '--drain'], withToken);
    expect(run.code, run.stderr).toBe(0);
    const [item] = readQueue(root).items;
    expect(item).toMatchObject({ status: 'done', lastOutcome: 'merged', checkRounds: 1 });
    expect(item?.sessions).toHaveLength(2);
    // Merged by squash through the API: main on the remote holds the fixed work.
    expect(github.pulls[0]).toMatchObject({ head: 'ralph/job', base: 'main', merged: true });
    const files = git(bare, 'ls-tree', '--name-only', 'main').split('\n');
    expect(files).toContain('job.txt');
    expect(files).not.toContain('broken-job');
    // The resumed session's first message carried the failing check and its annotation.
    const told = api.requests.map(messagesText).find((s) => s.includes('failed at')) ?? '';
    expect(told).toContain('### build');
    expect(told).toContain('broken-job:1: failure: breaks the build');
    // The agent never saw the token.
    expect(JSON.stringify(api.requests)).not.toContain(TOKEN);
  });
});
