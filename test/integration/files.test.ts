// What ralph writes: private modes whatever the umask, and never through a planted link.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { guardedWorkspace } from '../support/guarded.js';
import { listFiles, ralph, tempDir } from '../support/workspace.js';

describe('files ralph writes', () => {
  it('T36 are 0600 in 0700 directories under a permissive umask', async () => {
    const previous = process.umask(0o000);
    try {
      const { root, env } = await guardedWorkspace();
      await ralph(root, ['add', 'One', '--id', 'one'], env);
      expect((await ralph(root, ['run', '--drain'], env)).code).toBe(0);
      for (const dir of ['state', 'docs/sessions']) {
        expect(fs.statSync(path.join(root, dir)).mode & 0o777, dir).toBe(0o700);
        for (const file of listFiles(path.join(root, dir))) {
          expect(fs.statSync(path.join(root, dir, file)).mode & 0o777, `${dir}/${file}`).toBe(
            0o600,
          );
        }
      }
    } finally {
      process.umask(previous);
    }
  });

  it.each(['state/queue.json', 'state/budget.json'])(
    'refuses to write through a link planted at %s',
    async (planted) => {
      const { root, env } = await guardedWorkspace();
      await ralph(root, ['add', 'One', '--id', 'one'], env);
      const victim = path.join(await tempDir('ralph-victim-'), 'victim.json');
      const file = path.join(root, planted);
      fs.copyFileSync(
        file === path.join(root, 'state/budget.json') ? path.join(root, 'state/queue.json') : file,
        victim,
      );
      fs.rmSync(file, { force: true });
      fs.symlinkSync(victim, file);
      const before = fs.readFileSync(victim, 'utf8');
      const result = await ralph(root, ['run', '--drain'], env);
      expect(result.code).not.toBe(0);
      expect(result.stderr).toContain(
        `${file} is a symbolic link; ralph does not write through links`,
      );
      expect(fs.readFileSync(victim, 'utf8')).toBe(before);
    },
  );

  it('refuses a state directory that is a link', async () => {
    const { root, env } = await guardedWorkspace();
    const victim = await tempDir('ralph-victim-');
    fs.renameSync(path.join(root, 'state'), path.join(victim, 'state'));
    fs.symlinkSync(path.join(victim, 'state'), path.join(root, 'state'));
    const result = await ralph(root, ['run', '--drain'], env);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('is not a directory (or is a symbolic link)');
    expect(fs.readdirSync(path.join(victim, 'state')).sort()).toEqual([
      '.queue.json.sha1',
      'queue.json',
    ]);
  });

  it.each([
    [
      'writable by others',
      (dir: string) => fs.chmodSync(dir, 0o777),
      /is writable by others \(mode 777\); run "chmod 700 /,
    ],
    [
      'owned by another user',
      (dir: string) => fs.chownSync(dir, 65534, 65534),
      /belongs to uid 65534, not to this user/,
    ],
  ])('refuses a state directory %s, touching nothing', async (_what, spoil, message) => {
    const { root, env } = await guardedWorkspace();
    await ralph(root, ['add', 'One', '--id', 'one'], env);
    const state = path.join(root, 'state');
    spoil(state);
    const before = listFiles(state).map((f) => [f, fs.readFileSync(path.join(state, f), 'utf8')]);
    const result = await ralph(root, ['run', '--drain'], env);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(listFiles(state).map((f) => [f, fs.readFileSync(path.join(state, f), 'utf8')])).toEqual(
      before,
    );
  });
});
