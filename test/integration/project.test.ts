// The project a night works on is named, and it is never the workspace: init names it (or
// finds the repository it runs in and puts the workspace beside it), add refuses an item
// without one, doctor says so, and an item that reaches the runner without one pauses the night
// before anything is spawned.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { captureOutput } from '../support/output.js';
import { main } from '../../src/cli/main.js';
import { FAKE_CLAUDE, makeWorkspace, ralph, readQueue, tempDir } from '../support/workspace.js';

/** `ralph <args>` run in `cwd` (no -C), in process. */
async function ralphIn(cwd: string, args: string[]) {
  const output = captureOutput();
  const code = await main(['node', 'ralph', '-C', cwd, ...args], output, {
    PATH: process.env.PATH,
  });
  return { code, stdout: output.stdout.join('\n'), stderr: output.stderr.join('\n') };
}

const config = (root: string) =>
  JSON.parse(fs.readFileSync(path.join(root, 'ralph.config.json'), 'utf8')) as {
    defaults: { workDir?: string };
    environment: { dependencies: unknown[]; allowHosts: string[] };
  };

describe('the project', () => {
  it('is named by init --project, and a workspace inside it is refused with nothing written', async () => {
    const dir = await tempDir();
    const app = path.join(dir, 'app');
    fs.mkdirSync(app);
    execFileSync('git', ['init', '-q'], { cwd: app });

    const inside = await ralphIn(dir, ['init', 'app/.night', '--project', 'app']);
    expect(inside.code).toBe(2);
    expect(inside.stderr).toContain(`the workspace ${path.join(app, '.night')} would be inside`);
    expect(inside.stderr).toContain(`ralph init ${app}.ralph --project ${app}`);
    expect(fs.existsSync(path.join(app, '.night'))).toBe(false);
    // Named inside a repository with no project: that repository is the project it sits in.
    const unnamed = await ralphIn(app, ['init', '.night']);
    expect(unnamed.code).toBe(2);
    expect(unnamed.stderr).toContain(`would be inside the project ${app}`);
    expect(fs.existsSync(path.join(app, '.night'))).toBe(false);

    const missing = await ralphIn(dir, ['init', 'night', '--project', 'nowhere']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain(`--project nowhere: ${path.join(dir, 'nowhere')} is not`);

    // Its lockfile found: node_modules is built once by npm ci and copied into each worktree.
    fs.writeFileSync(path.join(app, 'package-lock.json'), '{}\n');
    // Its origin on a self-hosted GitLab: init says how to give its work merge requests.
    execFileSync('git', ['remote', 'add', 'origin', 'git@gitlab.acme.example:platform/app.git'], {
      cwd: app,
    });
    const named = await ralphIn(dir, ['init', 'night', '--project', 'app']);
    expect(named.code).toBe(0);
    expect(named.stdout).toContain(`Project: ${app}, the agents' work dir`);
    expect(named.stdout).toContain(
      'Forge: GitLab at https://gitlab.acme.example (origin is platform/app): for a merge request of each item\'s work, with its pipeline in the loop, add "git": {"enabled": true} and "forge": {"kind":"gitlab","apiUrl":"https://gitlab.acme.example","repo":"platform/app"} to ralph.config.json, and set GITLAB_TOKEN where ralph runs',
    );
    expect(named.stdout).toContain(
      'Dependencies: node_modules of package-lock.json, built once by `npm ci`',
    );
    expect(config(path.join(dir, 'night')).defaults.workDir).toBe(app);
    expect(config(path.join(dir, 'night')).environment.dependencies).toMatchObject([
      {
        lockfiles: ['package-lock.json'],
        paths: ['node_modules'],
        install: [{ command: ['npm', 'ci'] }],
      },
    ]);
    // Under the sandbox its install reaches the registry; the agent does not.
    expect(config(path.join(dir, 'night')).environment.allowHosts).toEqual([
      'registry.npmjs.org:443',
    ]);
    expect((await ralph(path.join(dir, 'night'), ['doctor'])).stdout).toMatch(
      new RegExp(`ok +project +${app}`),
    );
  });

  it('is required by add, which refuses the workspace itself or a directory holding it, and doctor warns', async () => {
    const root = await makeWorkspace();
    const file = path.join(root, 'ralph.config.json');
    const written = config(root);
    delete written.defaults.workDir;
    fs.writeFileSync(file, JSON.stringify(written));
    const queue = fs.readFileSync(path.join(root, 'state', 'queue.json'));

    const none = await ralph(root, ['add', 'Fix it']);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('no project is named');
    expect(none.stderr).toContain('"defaults.workDir" in ralph.config.json');
    expect(none.stderr).toContain("or the item's --work-dir");
    for (const dir of [root, path.dirname(root)]) {
      const held = await ralph(root, ['add', 'Fix it', '--work-dir', dir]);
      expect(held.code).toBe(2);
      expect(held.stderr).toContain(`work dir ${dir} holds the workspace ${root}`);
    }
    const state = await ralph(root, ['add', 'Fix it', '--work-dir', path.join(root, 'state')]);
    expect(state.stderr).toContain("is in the workspace's state");
    expect(fs.readFileSync(path.join(root, 'state', 'queue.json'))).toEqual(queue);

    const doctor = await ralph(root, ['doctor']);
    expect(doctor.stdout).toMatch(/warn +project +no project is named/);
    expect((await ralph(root, ['add', 'Fix it', '--work-dir', 'project'])).code).toBe(0);
  });

  it('unnamed when an item runs pauses the night before spawning, its attempt not spent', async () => {
    const root = await makeWorkspace({ clis: { claude: { command: [FAKE_CLAUDE] } } });
    const calls = path.join(root, 'calls.jsonl');
    await ralph(root, ['add', 'Fix it', '--id', 'fix']);
    // The configuration changed after the item was added: it names no project any more.
    const written = config(root);
    delete written.defaults.workDir;
    fs.writeFileSync(path.join(root, 'ralph.config.json'), JSON.stringify(written));

    const run = await ralph(root, ['run', '--drain'], { FAKE_CLAUDE_CALLS: calls });
    expect(run.code).toBe(6);
    expect(fs.existsSync(calls)).toBe(false);
    expect(readQueue(root).items[0]).toMatchObject({ status: 'pending', attempts: 0 });
    expect(fs.readFileSync(path.join(root, 'state', 'interrupt-request.txt'), 'utf8')).toContain(
      'no project is named',
    );
  });
});
