// What trying ralph as its users would found: answers that misled, a broken queue said three
// times, a removal refused for a dependent that is done, and a session prefix too short.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { QueueStore } from '../../src/queue/store.js';
import { guardedWorkspace } from '../support/guarded.js';
import { ralph, readQueue, tempDir } from '../support/workspace.js';

describe('a broken queue', () => {
  it('is said in one line of status, naming its file once', async () => {
    const { root, env } = await guardedWorkspace();
    await ralph(root, ['add', 'a', '--id', 'a'], env);
    const queue = path.join(root, 'state', 'queue.json');
    fs.writeFileSync(queue, '{"version": 3, "items": [{"id": "a\n');
    const { stdout } = await ralph(root, ['status'], env);
    const broken = stdout.split('\n').filter((l) => l.startsWith('Broken:'));
    expect(broken).toHaveLength(1);
    expect(broken[0]?.split(queue)).toHaveLength(2);
    expect(broken[0]).toMatch(/invalid JSON at line \d+, column \d+: .* \(left as it is\)$/);
  });

  it('is set aside once however many operations find it', async () => {
    const dir = await tempDir('ralph-quarantine-');
    const file = path.join(dir, 'queue.json');
    fs.writeFileSync(file, '{"version": 3, "items": []}');
    const store = new QueueStore(file);
    await store.read();
    fs.writeFileSync(file, '{"broken');
    const aside = path.join(dir, 'quarantine');
    const first = await store.quarantine(aside, Date.now());
    const again = await Promise.all([1, 2].map((n) => store.quarantine(aside, Date.now() + n)));
    expect(again).toEqual([first, first]);
    expect(fs.readdirSync(aside).sort()).toEqual(
      [path.basename(first.copy ?? ''), path.basename(first.lastGood ?? '')].sort(),
    );
  });
});

describe('answers that say what they mean', () => {
  it('removes an item whose only dependents are done', async () => {
    const { root, env } = await guardedWorkspace();
    await ralph(root, ['add', 'mul', '--id', 'mul'], env);
    await ralph(root, ['add', 'docs', '--id', 'docs', '--depends-on', 'mul'], env);
    expect((await ralph(root, ['run', '--drain'], env)).code).toBe(0);
    const removed = await ralph(root, ['rm', 'mul'], env);
    expect(removed.code, removed.stderr).toBe(0);
    expect(readQueue(root).items.map((i) => i.id)).toEqual(['docs']);
  });

  it('says a session prefix needs 4 characters, and that an id is ASCII', async () => {
    const { root, env } = await guardedWorkspace();
    await ralph(root, ['add', 'one', '--id', 'one'], env);
    expect((await ralph(root, ['run', '--drain'], env)).code).toBe(0);
    const [session] = fs
      .readdirSync(path.join(root, 'docs', 'sessions'))
      .filter((n) => /^[0-9a-f-]{36}\.json$/.test(n));
    const short = await ralph(root, ['logs', (session ?? '').slice(0, 3)], env);
    expect(short.code).toBe(2);
    expect(short.stderr).toMatch(/a prefix of a session id needs at least 4 characters/);
    const accented = await ralph(root, ['add', 'x', '--id', 'café'], env);
    expect(accented.code).toBe(2);
    expect(accented.stderr).toMatch(/ASCII letters/);
  });

  it("gives a failed item's pull request in ls, as a merged one's", async () => {
    const { root, env } = await guardedWorkspace();
    await ralph(root, ['add', 'pr', '--id', 'pr'], env);
    const file = path.join(root, 'state', 'queue.json');
    const queue = readQueue(root);
    const url = 'https://github.com/owner/repo/pull/7';
    Object.assign(queue.items[0] ?? {}, {
      status: 'failed',
      lastError: 'checks failed: ci',
      pullRequest: { number: 7, url, head: 'ralph/pr', base: 'main', kind: 'item' },
    });
    fs.writeFileSync(file, JSON.stringify(queue));
    const { stdout } = await ralph(root, ['ls'], env);
    expect(stdout).toContain(`PR #7`);
    expect(stdout).toContain(url);
  });

  it('asks an import of issues for a token that reads issues, not one that pushes', async () => {
    const { root, env } = await guardedWorkspace();
    const imported = await ralph(root, ['import', 'github:owner/repo'], {
      ...env,
      GITHUB_TOKEN: '',
    });
    expect(imported.code).not.toBe(0);
    expect(imported.stderr).toMatch(/read its issues/);
    expect(imported.stderr).not.toMatch(/push/);
  });
});
