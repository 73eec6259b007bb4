// End-to-end: ralph drives the real gemini CLI (pinned devDependency) against a fake Gemini API
// on 127.0.0.1 (GOOGLE_GEMINI_BASE_URL).
import { describe, expect, it } from 'vitest';
import { HARNESSES } from '../support/agent-clis.js';
import { RUN, archived, scenarios } from '../support/cli-scenarios.js';
import { ralph, readSessions } from '../support/workspace.js';

const gemini = HARNESSES.find((h) => h.name === 'gemini')!;
scenarios(gemini);

describe('ralph with the real gemini CLI, its policy', () => {
  gemini.closeAfterEach();

  it('gets the Bash rule as a policy file written for the session', async () => {
    const { root, env } = await gemini.setup(
      (request) =>
        gemini.toolOutput(request) !== undefined
          ? { kind: 'text', text: 'Done.' }
          : { kind: 'shell', command: 'true' },
      { run: RUN },
    );
    await ralph(root, ['add', 'Run', '--id', 'run'], env);
    expect((await ralph(root, ['run', '--drain'], env)).code).toBe(0);
    const sessionId = String(readSessions(root)[0]?.sessionId);
    const policy = archived(root, sessionId, '-policy.toml');
    expect(policy).toContain('toolName = "run_shell_command"\ndecision = "allow"');
  });
});
