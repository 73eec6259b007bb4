// End-to-end: the real claude CLI, two items at once, each in its own git worktree.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { lastIsToolResult, requestText } from '../support/fake-anthropic.js';
import { branches, filesAt, git, makeRepo } from '../support/git.js';
import { closeFakeApiAfterEach, realClaudeWorkspace } from '../support/real-claude.js';
import { ralph, readQueue, readSessions } from '../support/workspace.js';

closeFakeApiAfterEach();

describe('the real claude CLI in git mode with two workers', () => {
  it('runs two items in parallel worktrees, each committed on its own branch, gates green', async () => {
    const repo = await makeRepo();
    const { root, env } = await realClaudeWorkspace(
      (request) => {
        const item = /Work item: (\S+) —/.exec(requestText(request))?.[1] ?? 'unknown';
        return lastIsToolResult(request)
          ? { kind: 'text', text: `Wrote ${item}.txt.` }
          : {
              kind: 'tool_use',
              name: 'Bash',
              input: { command: `echo ${item} > ${item}.txt`, description: 'write the file' },
            };
      },
      {
        defaults: { workDir: repo, allowedTools: ['Bash', 'Read'] },
        git: { enabled: true },
        gates: [{ name: 'has its file', command: ['sh', '-c', 'ls *.txt'] }],
        run: { workers: 2 },
      },
    );
    for (const id of ['left', 'right'])
      await ralph(root, ['add', `Write ${id}`, '--id', id, '--max-attempts', '1'], env);
    const run = await ralph(root, ['run', '--drain'], env);
    expect(run.code, run.stderr).toBe(0);

    expect(readQueue(root).items.map((i) => i.status)).toEqual(['done', 'done']);
    const sessions = readSessions(root);
    expect(sessions).toHaveLength(2);
    // They ran at the same time.
    const [a, b] = sessions.map((s) => [
      Date.parse(String(s.startedAt)),
      Date.parse(String(s.endedAt)),
    ]);
    expect(a![0]! < b![1]! && b![0]! < a![1]!).toBe(true);
    for (const session of sessions) {
      const id = String(session.itemId);
      expect(session).toMatchObject({
        outcome: { kind: 'success' },
        workDir: path.join(root, 'worktrees', id),
        heartbeat: { toolCalls: 1 },
        gates: [{ name: 'has its file', passed: true }],
        git: { branch: `ralph/${id}`, commits: [{ subject: `ralph: Write ${id} (${id})` }] },
      });
      expect(filesAt(repo, `ralph/${id}`)).toEqual(['README.md', `${id}.txt`]);
      expect(git(repo, 'show', `ralph/${id}:${id}.txt`)).toBe(id);
    }
    expect(branches(repo)).toEqual(['main', 'ralph/left', 'ralph/right']);
    expect(fs.readdirSync(path.join(root, 'worktrees'))).toEqual([]);
    expect(git(repo, 'status', '--porcelain')).toBe('');
  });
});
