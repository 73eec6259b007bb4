// End-to-end: a person's messages reach the real claude CLI's model. One item's agent runs a
// long command; `ralph say` stops that session and resumes its conversation with the message,
// which the fake Anthropic API sees in the resumed conversation. Another item, waiting, was
// sent a message before the night: its first request carries it.
import { execFileSync } from 'node:child_process';
import { describe, expect, it, onTestFinished } from 'vitest';
import { lastIsToolResult, systemText, type RecordedRequest } from '../support/fake-anthropic.js';
import { closeFakeApiAfterEach, realClaudeWorkspace } from '../support/real-claude.js';
import { startRunner } from '../support/runner.js';
import { eventually } from '../support/wait.js';
import { ralph, readQueue } from '../support/workspace.js';

closeFakeApiAfterEach();

/** The text of the conversation's messages (a resumed session's first words travel there). */
const messagesText = (request: RecordedRequest) => JSON.stringify(request.body.messages ?? []);

/** The agent's long step: a process that waits two minutes (the CLI refuses a long `sleep`). */
const LONG_STEP = 'node -e "setTimeout(() => {}, 120000)"';

const working = () => {
  try {
    execFileSync('pgrep', ['-f', 'setTimeout\\(\\(\\) => \\{\\}, 120000\\)'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
};

describe('the real claude CLI given a message', () => {
  it('takes a message mid-task through a resumed conversation, and one sent before its start in its prompt', async () => {
    const { root, env, api } = await realClaudeWorkspace(
      (request) => {
        const item = /Work item: (\S+) —/.exec(systemText(request))?.[1] ?? 'unknown';
        if (messagesText(request).includes('Stop and finish.'))
          return { kind: 'text', text: `Finishing ${item} as asked.` };
        if (item === 'job' && !lastIsToolResult(request))
          return {
            kind: 'tool_use',
            name: 'Bash',
            input: { command: LONG_STEP, description: 'a long step' },
          };
        return { kind: 'text', text: `Done with ${item}.` };
      },
      { defaults: { allowedTools: ['Bash', 'Read'] } },
    );
    await ralph(root, ['add', 'A long job', '--id', 'job'], env);
    await ralph(root, ['add', 'After it', '--id', 'later', '--depends-on', 'job'], env);
    const early = await ralph(root, ['say', 'later', 'Use the staging database.'], env);
    expect(early.stdout).toContain('later: message kept for its next session');
    const runner = startRunner(root, env, '--drain');
    onTestFinished(() => void runner.child.kill('SIGKILL'));
    await eventually(working, 60_000, "the agent's long command runs");
    const said = await ralph(root, ['say', 'job', 'Stop and finish.'], env);
    expect(said.code, said.stderr).toBe(0);
    expect(said.stdout).toContain('job: its session was stopped and resumes now with your message');
    expect(await runner.exited).toBe(0);
    const items = readQueue(root).items;
    for (const item of items) expect(item).toMatchObject({ status: 'done' });
    const job = items.find((i) => i.id === 'job') as { sessions: string[] };
    expect(job.sessions).toHaveLength(2);
    // The model saw the message in the resumed conversation: its first prompt is there too.
    const resumed = api.requests.find((r) => messagesText(r).includes('Stop and finish.'));
    expect(resumed).toBeDefined();
    expect(messagesText(resumed as RecordedRequest)).toContain('120000');
    // The waiting item's first request carried the message sent before its start.
    const later = api.requests.find((r) => systemText(r).includes('Work item: later —'));
    expect(systemText(later as RecordedRequest)).toContain('Use the staging database.');
    expect(working()).toBe(false);
  });
});
