// End-to-end: a message reaches a running session of the real codex CLI through interrupt and
// resume. Its model's stream stalls (a session that goes on); `ralph say` stops it, and the
// resumed thread's next request carries both its first prompt and the message.
import { describe, expect, it, onTestFinished } from 'vitest';
import { inputItems, type OpenAiRequest } from '../support/fake-openai.js';
import { closeFakeOpenAiAfterEach, realCodexWorkspace } from '../support/real-codex.js';
import { startRunner } from '../support/runner.js';
import { eventually } from '../support/wait.js';
import { ralph, readQueue } from '../support/workspace.js';

closeFakeOpenAiAfterEach();

const conversation = (request: OpenAiRequest) => JSON.stringify(inputItems(request));

describe('the real codex CLI given a message', () => {
  it('is stopped mid-turn and resumes its thread with the message', async () => {
    const { root, env, api } = await realCodexWorkspace((request) =>
      conversation(request).includes('Stop and finish.')
        ? { kind: 'text', text: 'Finished as asked.' }
        : { kind: 'stall' },
    );
    await ralph(root, ['add', 'A long turn', '--id', 'turn'], env);
    const runner = startRunner(root, env, '--drain');
    onTestFinished(() => void runner.child.kill('SIGKILL'));
    await eventually(
      () =>
        api.requests.length > 0 &&
        readQueue(root).items.some((i) => i.id === 'turn' && i.status === 'running'),
      60_000,
      'codex asks its model',
    );
    const said = await ralph(root, ['say', 'turn', 'Stop and finish.'], env);
    expect(said.code, said.stderr).toBe(0);
    expect(said.stdout).toContain(
      'turn: its session was stopped and resumes now with your message',
    );
    expect(await runner.exited).toBe(0);
    const [item] = readQueue(root).items;
    expect(item).toMatchObject({ status: 'done', lastOutcome: 'success' });
    expect(item?.sessions).toHaveLength(2);
    // The resumed thread: the first session's turn (cut short) and the message, in one request.
    const resumed = conversation(
      api.requests.find((r) => conversation(r).includes('Stop and finish.')) as OpenAiRequest,
    );
    const [first, second] = item?.sessions as string[];
    expect(resumed.includes(`Session: ${first ?? '?'}`)).toBe(true);
    expect(resumed.includes('turn_aborted')).toBe(true);
    expect(resumed.includes(`Session: ${second ?? '?'}`)).toBe(true);
  });
});
