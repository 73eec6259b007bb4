// Row: a worktree's dependencies. A project with real registry dependencies and a lockfile
// (eslint, vitest, dependency-cruiser and what they need, from the npm cache: offline). ralph's
// setup stage gives each new worktree its own copy of the tree built once for the lockfile;
// a new worktree ready (git's `worktree add`, then the tree given, as the setup stage logs it)
// is set against a cold `npm ci --offline` in a new worktree of the same project and against
// a bare `worktree add`, in the same run. The other ways a tree could be given are measured
// beside it on the same tree: a plain copy, hard links, a symlink.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { writeLockedProject } from '../locked-project.mjs';
import { BIN, FIXTURES, benchEnv, elapsed, run, stats, workspace } from './lib.mjs';

const PACKAGES = ['eslint', 'vitest', 'dependency-cruiser', 'commander', 'zod'];
const NPM_CI = ['npm', 'ci', '--offline', '--no-audit', '--no-fund'];
const AGENT = path.join(FIXTURES, 'instant-claude.mjs');

const tempDir = (prefix) => fs.mkdtempSync(path.join(os.tmpdir(), prefix));
const git = (cwd, ...args) => execFileSync('git', args, { cwd, stdio: 'pipe' }).toString().trim();

/** The project: its lockfile and package.json committed, node_modules ignored. */
function project() {
  const repo = tempDir('ralph-bench-env-');
  git(repo, 'init', '-q', '-b', 'main');
  const packages = writeLockedProject(repo, { dependencies: PACKAGES });
  fs.writeFileSync(path.join(repo, '.gitignore'), 'node_modules/\n');
  git(repo, 'add', '.');
  git(repo, '-c', 'user.name=bench', '-c', 'user.email=bench@localhost', 'commit', '-q', '-m', 'a');
  return { repo, packages };
}

/** Times `fn(dir)` on a new worktree of the repository (made before the clock starts). */
async function inWorktree(repo, fn) {
  const dir = path.join(tempDir('ralph-bench-env-wt-'), 'wt');
  git(repo, 'worktree', 'add', '-q', '--detach', dir, 'HEAD');
  try {
    return await elapsed(() => fn(dir));
  } finally {
    git(repo, 'worktree', 'remove', '--force', dir);
  }
}

/** A command that must succeed. */
async function must(file, args, options) {
  const code = await run(file, args, { ...options, env: benchEnv() });
  if (code !== 0)
    throw new Error(`environment benchmark: ${file} ${args.join(' ')} exited ${code}`);
}

/** ralph's setup over `items` items, one worker: each item's setup as its log times it. */
async function ralphSetups(repo, items) {
  const root = workspace([AGENT], {
    git: { enabled: true },
    defaults: { workDir: repo },
    environment: {
      dependencies: [
        { lockfiles: ['package-lock.json'], paths: ['node_modules'], install: [NPM_CI] },
      ],
    },
  });
  for (let i = 0; i < items; i++)
    execFileSync(process.execPath, [BIN, '-C', root, 'add', `Item ${i}`, '--id', `item-${i}`]);
  await must(process.execPath, [BIN, '-C', root, 'run', '--drain']);
  const log = fs
    .readFileSync(path.join(root, 'state', 'iteration.log'), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line));
  const given = new Map(
    log.filter((e) => e.event === 'dependencies_given').map((e) => [e.item, e.given]),
  );
  const setups = log
    .filter((e) => e.event === 'environment_ready')
    .map((e) => ({ given: given.get(e.item), ms: e.durationMs }));
  if (setups.length !== items)
    throw new Error(`environment benchmark: ${setups.length} of ${items} items set up`);
  fs.rmSync(root, { recursive: true, force: true });
  return setups;
}

export async function environmentFigures({ items, runs }) {
  const { repo, packages } = project();
  const samples = { bare: [], npmCi: [], copy: [], links: [], symlink: [], spare: [], built: [] };
  // A tree npm made, for the other ways of giving it.
  const tree = tempDir('ralph-bench-env-tree-');
  fs.copyFileSync(path.join(repo, 'package.json'), path.join(tree, 'package.json'));
  fs.copyFileSync(path.join(repo, 'package-lock.json'), path.join(tree, 'package-lock.json'));
  await must(NPM_CI[0], NPM_CI.slice(1), { cwd: tree });
  const modules = path.join(tree, 'node_modules');
  for (let r = 0; r < runs; r++) {
    const dir = path.join(tempDir('ralph-bench-env-wt-'), 'wt');
    samples.bare.push(
      await elapsed(() =>
        must('git', ['worktree', 'add', '-q', '--detach', dir, 'HEAD'], { cwd: repo }),
      ),
    );
    git(repo, 'worktree', 'remove', '--force', dir);
    samples.npmCi.push(
      await inWorktree(repo, (wt) => must(NPM_CI[0], NPM_CI.slice(1), { cwd: wt })),
    );
    for (const [name, way] of [
      [
        'copy',
        (wt) => must('cp', ['-a', '--reflink=auto', modules, path.join(wt, 'node_modules')]),
      ],
      ['links', (wt) => must('cp', ['-al', modules, path.join(wt, 'node_modules')])],
      ['symlink', (wt) => fs.promises.symlink(modules, path.join(wt, 'node_modules'))],
    ])
      samples[name].push(await inWorktree(repo, way));
    for (const setup of await ralphSetups(repo, items))
      if (setup.given === 'spare' || setup.given === 'built') samples[setup.given].push(setup.ms);
  }
  git(repo, 'worktree', 'prune');
  fs.rmSync(repo, { recursive: true, force: true });
  fs.rmSync(tree, { recursive: true, force: true });
  const m = Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, stats(v).median]));
  const ready = m.bare + m.spare;
  const ratio = ready / m.npmCi;
  const of = (ms) => `${ms.toFixed(0)} ms (${(ms / m.npmCi).toFixed(2)}x)`;
  return {
    name: `a new worktree ready with its dependencies (${packages} lockfile entries)`,
    value: ratio,
    unit: 'x a cold npm ci',
    measure: 'ratio',
    target: '<= 0.2',
    ok: ratio <= 0.2,
    detail: `worktree add and its tree given ${ready.toFixed(0)} ms, ${(ready / m.bare).toFixed(1)}x a bare worktree add (${m.bare.toFixed(0)} ms); npm ci --offline in a new worktree ${m.npmCi.toFixed(0)} ms; the tree given as ralph gives it (a spare copy moved in) ${m.spare.toFixed(0)} ms, built once by its install ${m.built.toFixed(0)} ms; other ways on the same tree: a copy (cp -a) ${of(m.copy)}, hard links ${of(m.links)}, a symlink ${of(m.symlink)} (medians of ${runs} runs, ${items} items each)`,
  };
}
