// End-to-end: the real claude CLI hands a conflict back to itself. Two items append a line
// to the same file from the same base; the second cannot land, its agent is resumed with the
// conflict in its prompt, merges the target into its branch, resolves and commits, and lands.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { lastIsToolResult, requestText, type RecordedRequest } from '../support/fake-anthropic.js';
import { git, makeRepo } from '../support/git.js';
import { closeFakeApiAfterEach, realClaudeWorkspace } from '../support/real-claude.js';
import { ralph, readQueue } from '../support/workspace.js';

closeFakeApiAfterEach();

const TARGET = 'ralph/landed';

/** The text of the conversation's messages (a resumed session's news travels there). */
const messagesText = (request: RecordedRequest) => JSON.stringify(request.body.messages ?? []);

/** What the fake model does as the agent: append its line, or resolve the conflict it is told of. */
function command(item: string, told: boolean): string {
  if (!told) return `echo "line of ${item}" >> shared.txt`;
  // Both sides' lines kept: the conflict markers dropped, the merge committed.
  const as = 'git -c user.name=agent -c user.email=agent@example.test';
  return [
    `${as} merge ${TARGET} || true`,
    "grep -v '^[<=>]\\{7\\}' shared.txt > shared.resolved",
    'mv shared.resolved shared.txt',
    'git add shared.txt',
    `${as} commit --no-edit -qm "Merge the target"`,
  ].join(' && ');
}

describe('the real claude CLI resolving a landing conflict', () => {
  it('is handed the conflict, merges the target into its branch, resolves it, and lands', async () => {
    const repo = await makeRepo();
    fs.writeFileSync(path.join(repo, 'shared.txt'), 'base\n');
    git(repo, 'add', 'shared.txt');
    git(repo, 'commit', '-qm', 'shared');
    const { root, env, api } = await realClaudeWorkspace(
      (request) => {
        const item = /Work item: (\S+) —/.exec(requestText(request))?.[1] ?? 'unknown';
        const told = messagesText(request).includes('could not land on');
        return lastIsToolResult(request)
          ? { kind: 'text', text: `Done with ${item}.` }
          : {
              kind: 'tool_use',
              name: 'Bash',
              input: { command: command(item, told), description: 'do the work' },
            };
      },
      {
        defaults: { workDir: repo, allowedTools: ['Bash', 'Read'] },
        git: { enabled: true, base: 'main' },
        land: { enabled: true, maxRounds: 3 },
      },
    );
    for (const id of ['first', 'second'])
      await ralph(root, ['add', `Append ${id}`, '--id', id], env);
    const run = await ralph(root, ['run', '--drain'], env);
    expect(run.code, run.stderr).toBe(0);
    const items = readQueue(root).items;
    for (const item of items) expect(item).toMatchObject({ status: 'done', landedOn: TARGET });
    // Both lines on the target, no conflict marker left.
    const shared = git(repo, 'show', `${TARGET}:shared.txt`);
    expect(shared.split('\n').sort()).toEqual(['base', 'line of first', 'line of second']);
    // The second went back once, resuming its conversation, with the conflict in its prompt.
    const second = items.find((i) => i.id === 'second') as { sessions: string[] };
    expect(second.sessions).toHaveLength(2);
    // In the message it resumed with: a resumed claude keeps the system prompt it began with.
    const told = api.requests.map(messagesText).find((s) => s.includes('could not land on')) ?? '';
    expect(told).toContain('- shared.txt');
    expect(told).toContain(`git merge ${TARGET}`);
    const log = fs.readFileSync(path.join(root, 'state', 'iteration.log'), 'utf8');
    expect(log).toMatch(/"event":"land_refused","item":"second".*"outcome":"land_conflict"/);
  });
});
