// A read-only persona against the real claude CLI: the model's Write is refused, and the
// system prompt the API receives holds the persona and the bootstrap in the documented order.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { lastIsToolResult, requestText, systemText } from '../support/fake-anthropic.js';
import { closeFakeApiAfterEach, realClaudeWorkspace } from '../support/real-claude.js';
import { ralph, readQueue, readSessions, tempDir } from '../support/workspace.js';

closeFakeApiAfterEach();

describe('a read-only persona with the real claude CLI', () => {
  it('gets Write refused, recorded as a permission denial, with its instructions in the system prompt', async () => {
    const work = await tempDir('ralph-work-');
    const { root, env, api } = await realClaudeWorkspace(
      (request) =>
        lastIsToolResult(request)
          ? { kind: 'text', text: 'I could not write.' }
          : {
              kind: 'tool_use',
              name: 'Write',
              input: { file_path: path.join(work, 'out.txt'), content: 'x' },
            },
      { run: { maxConsecutiveFailures: 0 } },
    );
    fs.writeFileSync(
      path.join(root, 'agents', 'AGENT_reader.md'),
      '---\ntools: "Read,Grep,Glob"\ndisallowed_tools: [Write, Edit]\nauto_approve_tools: [Read, Grep, Glob]\nmax_turns: 5\n---\nPERSONA-MARKER: you only read and report.\n',
    );
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
    expect(run.code).toBe(0);
    expect(fs.existsSync(path.join(work, 'out.txt'))).toBe(false);
    const [record] = readSessions(root);
    expect(record).toMatchObject({
      persona: 'reader',
      status: 'failed',
      outcome: { kind: 'permission_denied' },
      result: { subtype: 'success', isError: false, permissionDenials: [{ toolName: 'Write' }] },
    });
    const [parked] = readQueue(root).items;
    expect(parked?.status).toBe('needs_input');
    expect(String(parked?.question)).toContain('tools refused by the permission mode: Write');
    // The persona is in the system prompt after ralph's identity; the assignment (the rendered
    // bootstrap) is in the first message, after the system prompt.
    const request = api.requests.find((r) => r.method === 'POST')!;
    const system = systemText(request);
    const persona = system.indexOf('PERSONA-MARKER');
    expect(system.indexOf('# Identity')).toBeGreaterThanOrEqual(0);
    expect(persona).toBeGreaterThan(system.indexOf('# Identity'));
    expect(system).not.toContain('BOOTSTRAP-MARKER');
    const text = requestText(request);
    expect(text.indexOf('BOOTSTRAP-MARKER')).toBeGreaterThan(text.indexOf('PERSONA-MARKER'));
  });
});
