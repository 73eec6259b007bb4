// A read-only persona against the real claude CLI: the model's Write is refused, and the
// system prompt the API receives holds the persona and the bootstrap in the documented order.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  claudeEnv,
  lastIsToolResult,
  startFakeAnthropic,
  systemText,
  type FakeAnthropic,
} from '../support/fake-anthropic.js';
import {
  REAL_CLAUDE,
  makeWorkspace,
  ralph,
  readQueue,
  readSessions,
  tempDir,
} from '../support/workspace.js';

let api: FakeAnthropic | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

describe('a read-only persona with the real claude CLI', () => {
  it('gets Write refused, recorded as a permission denial, with its instructions in the system prompt', async () => {
    const work = await tempDir('ralph-work-');
    api = await startFakeAnthropic((request) =>
      lastIsToolResult(request)
        ? { kind: 'text', text: 'I could not write.' }
        : {
            kind: 'tool_use',
            name: 'Write',
            input: { file_path: path.join(work, 'out.txt'), content: 'x' },
          },
    );
    const root = await makeWorkspace({
      claude: { command: [REAL_CLAUDE] },
      run: { maxConsecutiveFailures: 0 },
    });
    fs.writeFileSync(
      path.join(root, 'agents', 'AGENT_reader.md'),
      '---\ntools: "Read,Grep,Glob"\ndisallowed_tools: [Write, Edit]\nauto_approve_tools: [Read, Grep, Glob]\nmax_turns: 5\n---\nPERSONA-MARKER: you only read and report.\n',
    );
    const env = claudeEnv(api, await tempDir('ralph-home-'));
    await ralph(
      root,
      [
        'add',
        'Try to write',
        '--id',
        'ro',
        '--agent',
        'reader',
        '--work-dir',
        work,
        '--body',
        'BOOTSTRAP-MARKER write out.txt',
      ],
      env,
    );
    const run = await ralph(root, ['run', '--drain'], env);
    expect(run.code).toBe(1);
    expect(fs.existsSync(path.join(work, 'out.txt'))).toBe(false);
    const [record] = readSessions(root);
    expect(record).toMatchObject({
      persona: 'reader',
      status: 'failed',
      outcome: { kind: 'permission_denied' },
      result: { subtype: 'success', isError: false, permissionDenials: [{ toolName: 'Write' }] },
    });
    expect(readQueue(root).items[0]).toMatchObject({
      status: 'failed',
      lastOutcome: 'permission_denied',
    });
    const system = systemText(api.requests.find((r) => r.method === 'POST')!);
    const persona = system.indexOf('PERSONA-MARKER');
    const bootstrap = system.indexOf('BOOTSTRAP-MARKER');
    expect(system.indexOf('# Identity')).toBeGreaterThanOrEqual(0);
    expect(persona).toBeGreaterThan(system.indexOf('# Identity'));
    expect(bootstrap).toBeGreaterThan(persona);
  });
});
