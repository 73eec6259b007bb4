// Acceptance criteria on an item: given with `ralph add --criterion`, kept in the queue, in the
// agent's prompt under their own heading (none: no heading), and shown with the item.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { guardedWorkspace } from '../support/guarded.js';
import { ralph, readQueue, readSessions } from '../support/workspace.js';
import { taskListOf } from '../../src/sources/task-list.js';

const promptOf = (root: string, sessionId: unknown) =>
  fs.readFileSync(path.join(root, 'docs', 'sessions', `${String(sessionId)}-prompt.md`), 'utf8');

describe('acceptance criteria', () => {
  it('are given with the item, put in its prompt and shown with it', async () => {
    const { root, env } = await guardedWorkspace();
    const add = (id: string, ...flags: string[]) =>
      ralph(root, ['add', `Item ${id}`, '--id', id, '--body', '#behave: work', ...flags], env);
    expect(
      (await add('c', '--criterion', 'the login test passes', '--criterion', '  no new warnings  '))
        .code,
    ).toBe(0);
    expect((await add('plain')).code).toBe(0);
    expect(readQueue(root).items[0]).toMatchObject({
      criteria: ['the login test passes', 'no new warnings'],
    });
    expect(readQueue(root).items[1]?.criteria).toBeUndefined();
    // An empty one is refused in the words of its flag, the queue left as it was.
    const empty = await add('e', '--criterion', ' ');
    expect(empty.code).not.toBe(0);
    expect(empty.stderr).toMatch(/--criterion.*a criterion cannot be empty/);
    expect(readQueue(root).items).toHaveLength(2);

    expect((await ralph(root, ['run', '--drain'], env)).code).toBe(0);
    const sessions = readSessions(root);
    const of = (id: string) => promptOf(root, sessions.find((s) => s.itemId === id)?.sessionId);
    expect(of('c')).toContain(
      '## Acceptance criteria\n\nThe item is done only when each of these holds',
    );
    expect(of('c')).toContain('1. the login test passes\n2. no new warnings');
    expect(of('plain')).not.toContain('Acceptance criteria');
    const shown = await ralph(root, ['show', 'c'], env);
    expect(shown.stdout).toContain('Criteria:\n  1. the login test passes\n  2. no new warnings');
    // `ralph edit --criterion` replaces them.
    expect((await ralph(root, ['edit', 'plain', '--criterion', 'docs say it'], env)).code).toBe(0);
    expect(readQueue(root).items[1]?.criteria).toEqual(['docs say it']);
  });

  it("of an issue are its task list's boxes, in order, nested ones too", () => {
    const body = [
      'The export is slow.',
      '',
      '- [ ] exports 10k rows in under a second',
      '- [x] keeps the column order',
      '  - [ ] nested: says how long it took',
      '',
      '```',
      '- [ ] code, not a box',
      '```',
    ].join('\n');
    expect(taskListOf(body)).toEqual([
      'exports 10k rows in under a second',
      'keeps the column order',
      'nested: says how long it took',
    ]);
  });
});
