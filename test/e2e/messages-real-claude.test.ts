// End-to-end: a person's messages reach the real claude CLI's model. One item's agent runs a
// command that waits; `ralph say` gives the message on the CLI's stdin (stream-json) while it
// runs, and the fake Anthropic API sees it in the same session's next request, beside the
// command's result. Another item, waiting, was sent a message before the night: its first
// request carries it.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { lastIsToolResult, requestText, type RecordedRequest } from '../support/fake-anthropic.js';
import { closeFakeApiAfterEach, realClaudeWorkspace } from '../support/real-claude.js';
import { startRunner } from '../support/runner.js';
import { eventually } from '../support/wait.js';
import { ralph, readQueue } from '../support/workspace.js';

closeFakeApiAfterEach();

/** The text of the conversation's messages (a resumed session's first words travel there). */
const messagesText = (request: RecordedRequest) => JSON.stringify(request.body.messages ?? []);

/** The agent's step: a process that waits for the test's go file (at most two minutes). */
const waitingStep = (go: string) =>
  `node -e "const f=require('fs');const t=Date.now();const i=setInterval(()=>{if(f.existsSync('${go}')||Date.now()-t>120000){clearInterval(i)}},50)"`;

const working = () => {
  try {
    execFileSync('pgrep', ['-f', 'existsSync'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
};

describe('the real claude CLI given a message', () => {
  it('takes a message mid-task on its stdin, in the same session, and one sent before its start in its prompt', async () => {
    const go = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'ralph-go-')), 'go');
    const { root, env, api } = await realClaudeWorkspace(
      (request) => {
        const item = /Work item: (\S+) —/.exec(requestText(request))?.[1] ?? 'unknown';
        if (messagesText(request).includes('Stop and finish.'))
          return { kind: 'text', text: `Finishing ${item} as asked.` };
        if (item === 'job' && !lastIsToolResult(request))
          return {
            kind: 'tool_use',
            name: 'Bash',
            input: { command: waitingStep(go), description: 'a step that waits' },
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
    await eventually(working, 60_000, "the agent's step runs");
    const said = await ralph(root, ['say', 'job', 'Stop and finish.'], env);
    expect(said.code, said.stderr).toBe(0);
    expect(said.stdout).toContain('job: given to its running session');
    // The step ends; the CLI's next request carries its result and the message.
    fs.writeFileSync(go, '');
    expect(await runner.exited).toBe(0);
    const items = readQueue(root).items;
    for (const item of items) expect(item).toMatchObject({ status: 'done' });
    const job = items.find((i) => i.id === 'job') as { sessions: string[] };
    expect(job.sessions).toHaveLength(1);
    const heard = api.requests.find((r) => messagesText(r).includes('Stop and finish.'));
    expect(heard).toBeDefined();
    expect(lastIsToolResult(heard as RecordedRequest)).toBe(true);
    expect(requestText(heard as RecordedRequest)).toContain('Work item: job —');
    // The waiting item's first request carried the message sent before its start.
    const later = api.requests.find((r) => requestText(r).includes('Work item: later —'));
    expect(requestText(later as RecordedRequest)).toContain('Use the staging database.');
    const show = await ralph(root, ['show', 'job'], env);
    expect(show.stdout).toContain('(while it ran): Stop and finish.');
    expect(working()).toBe(false);
  });
});
