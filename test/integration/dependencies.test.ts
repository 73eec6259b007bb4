// Shared dependencies: a project with a real registry dependency and its lockfile (installed
// offline, from the npm cache that installing ralph filled). The tree is built once for the
// lockfile's contents and each worktree gets a copy of its own, so three workers' `npm test`
// gates pass without the agent installing anything; an item that changes the lockfile gets a
// tree of its own (and so does the lander's worktree when it lands); an agent's write into its
// node_modules reaches no other; no commit holds it.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { git } from '../support/git.js';
import { item, landingWorkspace } from '../support/landing.js';
import { writeLockedProject } from '../support/locked-project.js';
import { ralph, tempDir } from '../support/workspace.js';

const NPM_CI = ['npm', 'ci', '--offline', '--no-audit', '--no-fund'];

const lines = (file: string) =>
  fs.existsSync(file) ? fs.readFileSync(file, 'utf8').trim().split('\n') : [];

/** A test of the project's that needs its dependency `name` installed. */
const needs = (name: string) =>
  `import test from 'node:test';\nimport * as dep from '${name}';\ntest('${name} is installed', () => {\n  if (Object.keys(dep).length === 0) throw new Error('empty');\n});\n`;

describe('dependencies shared between worktrees', () => {
  it('are built once for a lockfile and copied into each worktree; a changed lockfile gets its own; no write or commit reaches the shared tree', async () => {
    const ledgers = await tempDir('ralph-ledgers-');
    const builds = path.join(ledgers, 'builds');
    // Each lands, its gate run again on the merged tree in the lander's worktree.
    const { root, repo } = await landingWorkspace(
      {},
      {
        environment: {
          dependencies: [
            {
              lockfiles: ['package-lock.json'],
              paths: ['node_modules'],
              install: [
                [
                  'node',
                  '-e',
                  `require('fs').appendFileSync(${JSON.stringify(builds)}, 'built\\n')`,
                ],
                NPM_CI,
              ],
            },
          ],
        },
        gates: [['npm', 'test', '--silent']],
        run: {
          workers: 3,
          retryBackoffCap: 0,
          failureBackoffCap: 0,
          maxConsecutiveFailures: 0,
          pollInterval: 0.2,
        },
      },
    );
    // The project ignores no node_modules of its own: ralph has the repository ignore it.
    writeLockedProject(repo, { dependencies: ['chai'], scripts: { test: 'node --test' } });
    fs.mkdirSync(path.join(repo, 'test'));
    fs.writeFileSync(path.join(repo, 'test', 'chai.test.mjs'), needs('chai'));
    git(repo, 'add', '.');
    git(repo, 'commit', '-q', '-m', 'a project with a dependency');
    // What item e brings: a second dependency, its lockfile, and a test that needs it.
    const change = await tempDir('ralph-lockfile-change-');
    writeLockedProject(change, {
      dependencies: ['chai', 'picocolors'],
      scripts: { test: 'node --test' },
    });
    fs.mkdirSync(path.join(change, 'test'));
    fs.writeFileSync(path.join(change, 'test', 'picocolors.test.mjs'), needs('picocolors'));

    const behave: Record<string, string> = {
      a: 'work commit=1',
      b: 'work commit=1',
      c: 'work commit=1',
      d: 'work file=node_modules/chai/README.md commit=1',
      e: `work copy=${change} commit=1`,
    };
    for (const [id, behaviour] of Object.entries(behave))
      expect(
        (await ralph(root, ['add', `Item ${id}`, '--id', id, '--body', `#behave: ${behaviour}`]))
          .code,
      ).toBe(0);
    const run = await ralph(root, ['run', '--drain']);
    expect(run.code, run.stderr).toBe(0);

    // Every gate passed at the first attempt: no agent installed anything.
    for (const id of ['a', 'b', 'c', 'd'])
      expect(item(root, id)).toMatchObject({ status: 'done', attempts: 1 });
    // e's gate failed with the tree of the old lockfile; its next session had a tree of its own.
    expect(item(root, 'e')).toMatchObject({ status: 'done', attempts: 2 });
    expect(lines(builds)).toEqual(['built', 'built']);
    const store = path.join(root, 'worktrees', '.dependencies');
    const trees = fs.readdirSync(store).filter((name) => !name.startsWith('.'));
    expect(trees).toHaveLength(2);

    // d wrote into its copy of chai: the shared trees are as npm made them.
    for (const key of trees) {
      const readme = path.join(store, key, 'tree', 'node_modules', 'chai', 'README.md');
      const text = fs.readFileSync(readme, 'utf8');
      expect(text).toContain('Chai');
      expect(text).not.toContain('work of d');
    }
    // Neither the agent's commits nor ralph's hold a tree.
    for (const id of Object.keys(behave)) {
      const files = git(repo, 'ls-tree', '-r', '--name-only', `ralph/${id}`).split('\n');
      expect(files.filter((file) => file.startsWith('node_modules'))).toEqual([]);
    }
    expect(fs.readFileSync(path.join(repo, '.git', 'info', 'exclude'), 'utf8')).toContain(
      '\n/node_modules\n',
    );
    const given = (run.stdout + run.stderr).match(/dependencies_given/g) ?? [];
    expect(given.length).toBeGreaterThanOrEqual(6);
    // The target holds every item's work, e's lockfile last: the landing worktree's tree is its.
    expect(git(repo, 'show', 'ralph/landed:package.json')).toContain('picocolors');
    const landing = fs.readdirSync(path.join(root, 'state', 'land'));
    expect(landing).toHaveLength(1);
    const landed = path.join(root, 'state', 'land', landing[0] ?? '', 'node_modules');
    expect(fs.existsSync(path.join(landed, 'picocolors', 'package.json'))).toBe(true);
  });
});
