// End-to-end: the real claude CLI runs `npm test` with its Bash tool in a worktree the setup
// stage made ready (`npm ci` of a dependency the fresh worktree lacks), and the gate passes.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { lastIsToolResult, type RecordedRequest } from '../support/fake-anthropic.js';
import { git, makeRepo } from '../support/git.js';
import { closeFakeApiAfterEach, realClaudeWorkspace } from '../support/real-claude.js';
import { ralph, readQueue, readSessions } from '../support/workspace.js';

closeFakeApiAfterEach();

const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;

/** A Node project whose test needs a dependency (a package of its own: offline) to be installed. */
async function nodeProject(): Promise<string> {
  const repo = await makeRepo();
  const files: Record<string, string> = {
    'package.json': json({
      name: 'app',
      private: true,
      type: 'module',
      scripts: { test: 'node test/sum.test.mjs' },
      devDependencies: { check: 'file:packages/check' },
    }),
    'package-lock.json': json({
      name: 'app',
      lockfileVersion: 3,
      requires: true,
      packages: {
        '': { name: 'app', devDependencies: { check: 'file:packages/check' } },
        'node_modules/check': { resolved: 'packages/check', link: true },
        'packages/check': { version: '1.0.0', dev: true },
      },
    }),
    '.gitignore': 'node_modules/\n',
    'packages/check/package.json': json({ name: 'check', version: '1.0.0', type: 'module' }),
    'packages/check/index.js':
      'export const equal = (a, b) => { if (a !== b) throw new Error(`${a} !== ${b}`); };\n',
    'test/sum.test.mjs':
      "import { equal } from 'check';\nequal(1 + 1, 2);\nconsole.log('sum: ok');\n",
  };
  for (const [file, text] of Object.entries(files)) {
    fs.mkdirSync(path.join(repo, path.dirname(file)), { recursive: true });
    fs.writeFileSync(path.join(repo, file), text);
  }
  git(repo, 'add', '--all');
  git(repo, 'commit', '-q', '-m', 'a project with a dependency');
  return repo;
}

/** The text of the last tool result the CLI sent back. */
const toolOutput = (request: RecordedRequest) =>
  JSON.stringify(request.body.messages?.filter((m) => m.role === 'user').at(-1)?.content ?? '');

describe('the real claude CLI in a worktree its setup made ready', () => {
  it('runs npm test with its Bash tool there, and the npm test gate passes', async () => {
    const repo = await nodeProject();
    const { root, env, api } = await realClaudeWorkspace(
      (request) =>
        lastIsToolResult(request)
          ? { kind: 'text', text: 'npm test passes.' }
          : { kind: 'tool_use', name: 'Bash', input: { command: 'npm test', description: 'test' } },
      {
        defaults: { workDir: repo, allowedTools: ['Bash', 'Read'] },
        git: { enabled: true },
        environment: { setup: [['npm', 'ci', '--offline', '--no-audit', '--no-fund']] },
        gates: [['npm', 'test']],
      },
    );
    await ralph(root, ['add', 'Run the tests', '--id', 'tests', '--max-attempts', '1'], env);
    const run = await ralph(root, ['run', '--drain'], env);
    expect(run.code, run.stderr).toBe(0);
    expect(readQueue(root).items[0]).toMatchObject({ status: 'done', attempts: 1 });
    // The agent's own `npm test` found the dependency setup installed.
    const answered = api.requests.filter(lastIsToolResult).map(toolOutput);
    expect(answered.join('\n')).toContain('sum: ok');
    const [session] = readSessions(root);
    expect(session).toMatchObject({
      outcome: { kind: 'success' },
      heartbeat: { toolCalls: 1 },
      gates: [{ name: 'npm test', passed: true }],
    });
    const environment = readQueue(root).items[0]?.environment as { log: string };
    expect(fs.readFileSync(environment.log, 'utf8')).toContain('added 1 package');
  });
});
