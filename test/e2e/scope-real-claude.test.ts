// The default allowlist against the real claude CLI (fake Anthropic API on 127.0.0.1): the agent
// may write inside its work dir, and a write outside it is refused, whoever runs ralph.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { lastIsToolResult } from '../support/fake-anthropic.js';
import { closeFakeApiAfterEach, realClaudeWorkspace } from '../support/real-claude.js';
import { ralph, readSessions, tempDir } from '../support/workspace.js';

closeFakeApiAfterEach();

async function writeWith(target: (root: string) => string) {
  let file = '';
  const { root, env } = await realClaudeWorkspace((request) =>
    lastIsToolResult(request)
      ? { kind: 'text', text: 'written' }
      : { kind: 'tool_use', name: 'Write', input: { file_path: file, content: 'hello\n' } },
  );
  file = target(root);
  await ralph(root, ['add', 'Write a file', '--id', 'w', '--max-attempts', '1'], env);
  const run = await ralph(root, ['run', '--drain'], env);
  return { run, file, record: readSessions(root)[0] };
}

describe('the default allowlist with the real claude CLI', () => {
  it('lets the agent write inside its work dir', async () => {
    const { run, file, record } = await writeWith((root) =>
      path.join(root, 'project', 'inside.txt'),
    );
    expect(run.code).toBe(0);
    expect(fs.readFileSync(file, 'utf8')).toBe('hello\n');
    expect(record).toMatchObject({ outcome: { kind: 'success' } });
  });

  it('refuses a write outside the work dir', async () => {
    const outside = await tempDir('ralph-outside-');
    const { run, file, record } = await writeWith(() => path.join(outside, 'escaped.txt'));
    expect(fs.existsSync(file)).toBe(false);
    // Refused, its task undone: parked for a person (needs_input), not a failed night.
    expect(run.code).toBe(0);
    expect(record).toMatchObject({ outcome: { kind: 'permission_denied' } });
  });
});
