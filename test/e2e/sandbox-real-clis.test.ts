// End-to-end: the five real CLIs run whole sessions inside ralph's bubblewrap
// sandbox, reaching their fake APIs (127.0.0.1 outside) through ralph's proxy alone; a shell
// command of theirs finds $HOME empty, writes in the work dir, and is refused other hosts.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { HARNESSES } from '../support/agent-clis.js';
import { RUN } from '../support/cli-scenarios.js';
import { lastIsToolResult } from '../support/fake-anthropic.js';
import { closeFakeApiAfterEach, realClaudeWorkspace } from '../support/real-claude.js';
import {
  REAL_CLAUDE,
  makeWorkspace,
  ralph,
  readQueue,
  readSessions,
  tempDir,
} from '../support/workspace.js';

/** What the agent's shell command does inside: looks for a key, writes, asks the proxy for a host not allowed. */
const COMMAND = [
  'cat "$HOME/.ssh/id_ed25519" || echo no-key',
  'echo made-inside > made.txt',
  // A request as a proxy-aware client sends it, to the proxy $HTTP_PROXY names.
  `node -e "const p = new URL(process.env.HTTP_PROXY); require('http').get({ host: p.hostname, port: p.port, path: 'http://not-allowed.example/', headers: { host: 'not-allowed.example' } }, (r) => console.log('proxy said', r.statusCode))"`,
].join('; ');

/** Plants a key in the HOME ralph runs with: the sandbox must not show it. */
function plantKey(home: string): void {
  fs.mkdirSync(path.join(home, '.ssh'), { recursive: true, mode: 0o700 });
  fs.writeFileSync(path.join(home, '.ssh', 'id_ed25519'), 'PLANTED-PRIVATE-KEY\n');
}

function expectSandboxed(root: string, toolOutput: string | undefined): void {
  expect(readQueue(root).items[0]).toMatchObject({ status: 'done' });
  const [record] = readSessions(root);
  expect(record).toMatchObject({
    outcome: { kind: 'success' },
    sandbox: { kind: 'bwrap', network: 'allow' },
    // A CLI may ask for hosts of its own too (codex: github.com, its telemetry): refused alike.
    egressBlocked: expect.arrayContaining([
      expect.objectContaining({ host: 'not-allowed.example', port: 80, by: 'agent' }),
    ]) as unknown,
  });
  expect(toolOutput).toContain('no-key');
  expect(toolOutput).not.toContain('PLANTED-PRIVATE-KEY');
  expect(toolOutput).toContain('proxy said 403');
  expect(fs.readFileSync(path.join(root, 'project', 'made.txt'), 'utf8')).toBe('made-inside\n');
}

/** A fake Anthropic API's answers that run COMMAND once, and what the command printed. */
function probingClaude() {
  let output: string | undefined;
  const respond: Parameters<typeof realClaudeWorkspace>[0] = (request) => {
    if (!lastIsToolResult(request))
      return { kind: 'tool_use', name: 'Bash', input: { command: COMMAND, description: 'probe' } };
    output = JSON.stringify(request.body.messages);
    return { kind: 'text', text: 'done' };
  };
  return { respond, toolOutput: () => output };
}

describe('the real claude CLI in the sandbox', () => {
  closeFakeApiAfterEach();

  it('runs a session end to end, its API reached through the proxy', async () => {
    const probe = probingClaude();
    const { root, env } = await realClaudeWorkspace(probe.respond, { sandbox: { kind: 'bwrap' } });
    plantKey(env.HOME ?? '');
    await ralph(root, ['add', 'Probe', '--id', 'probe', '--allowed-tools', 'Bash'], env);
    const run = await ralph(root, ['run', '--drain'], env);
    expect(run.code, run.stderr).toBe(0);
    expectSandboxed(root, probe.toolOutput());
    // claude's state outlives the sandbox: its conversation is there to resume.
    expect(fs.readdirSync(path.join(env.HOME ?? '', '.claude'))).toContain('projects');
  });

  it('runs through a wrapper beside the workspace and a link in ~/.local/bin, HOME still hidden', async () => {
    const probe = probingClaude();
    const d = await tempDir('ralph-beside-');
    const { env } = await realClaudeWorkspace(probe.respond);
    const home = env.HOME ?? '';
    plantKey(home);
    // The real claude reached as a person's machine has it: a link in ~/.local/bin on the PATH
    // (not node_modules/.bin), started by a wrapper script in the folder above the workspace.
    const bin = path.join(home, '.local', 'bin');
    fs.mkdirSync(bin, { recursive: true });
    fs.symlinkSync(fs.realpathSync(REAL_CLAUDE), path.join(bin, 'claude'));
    const wrapper = path.join(d, 'claude-wrapper');
    fs.writeFileSync(wrapper, '#!/bin/sh\nexec claude "$@"\n', { mode: 0o755 });
    const PATH = [
      bin,
      ...(env.PATH ?? '').split(':').filter((p) => !p.includes('node_modules')),
    ].join(':');
    const root = await makeWorkspace(
      { sandbox: { kind: 'bwrap' }, clis: { claude: { command: [wrapper] } } },
      path.join(d, 'ws'),
    );
    const withPath = { ...env, PATH };
    const doctor = await ralph(root, ['doctor'], withPath);
    expect(doctor.stdout).toMatch(/ok {4}in-sandbox +claude starts in ralph's sandbox/);
    const work = path.join(d, 'work');
    fs.mkdirSync(work);
    await ralph(
      root,
      ['add', 'Probe', '--id', 'probe', '--work-dir', work, '--allowed-tools', 'Bash'],
      withPath,
    );
    const run = await ralph(root, ['run', '--drain'], withPath);
    expect(run.code, run.stderr).toBe(0);
    expect(readQueue(root).items[0]).toMatchObject({ status: 'done' });
    expect(probe.toolOutput()).toContain('no-key');
    expect(probe.toolOutput()).not.toContain('PLANTED-PRIVATE-KEY');
    expect(fs.readFileSync(path.join(work, 'made.txt'), 'utf8')).toBe('made-inside\n');
  });
});

// codex runs with its own sandbox off inside ralph's (no yolo asked); opencode's and pi's
// providers, like the others' APIs, are reached through the allowed hosts alone.
describe.each(HARNESSES)('the real $name CLI in the sandbox', (harness) => {
  harness.closeAfterEach();

  it('runs a session end to end, its API reached through the proxy', async () => {
    let toolOutput: string | undefined;
    const { root, env, api } = await harness.setup(
      (request) => {
        toolOutput = harness.toolOutput(request);
        return toolOutput === undefined
          ? { kind: 'shell', command: COMMAND }
          : { kind: 'text', text: 'Done.' };
      },
      { run: RUN, sandbox: { kind: 'bwrap' } },
    );
    // A provider of a config file's own (opencode's, pi's) is reached as an allowed host.
    const config = path.join(root, 'ralph.config.json');
    const current = JSON.parse(fs.readFileSync(config, 'utf8')) as { sandbox: object };
    current.sandbox = { ...current.sandbox, allowHosts: [new URL(api.url).host] };
    fs.writeFileSync(config, JSON.stringify(current));
    plantKey(env.HOME ?? '');
    await ralph(root, ['add', 'Probe', '--id', 'probe'], env);
    const run = await ralph(root, ['run', '--drain'], env);
    expect(run.code, run.stderr).toBe(0);
    expectSandboxed(root, toolOutput);
    if (harness.name === 'codex')
      expect(readSessions(root)[0]).toMatchObject({ sandbox: { cliOwn: 'off' } });
  });
});
