// Row: landing. `ralph land` of branches that do not conflict, an instant land gate checking
// each merge, against a plain loop doing the same (`git merge`, then the gate) over the same
// branches in a worktree of the same repository, in this run.
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BIN, benchEnv, elapsed, run, stats, workspace } from './lib.mjs';

const IDENTITY = ['-c', 'user.name=bench', '-c', 'user.email=bench@localhost'];
/** The land gate: instant, so the row measures landing itself. */
const GATE = ['true'];

const tempDir = (prefix) => fs.mkdtempSync(path.join(os.tmpdir(), prefix));

/** A repository with `count` branches off main, each adding a file of its own. */
function repository(count) {
  const repo = tempDir('ralph-bench-land-');
  const git = (...args) =>
    execFileSync('git', args, { cwd: repo, stdio: 'pipe' }).toString().trim();
  git('init', '-q', '-b', 'main');
  fs.writeFileSync(path.join(repo, 'README.md'), '# bench\n');
  git('add', '.');
  git(...IDENTITY, 'commit', '-q', '-m', 'init');
  const base = git('rev-parse', 'HEAD');
  const branches = [];
  for (let i = 0; i < count; i++) {
    const branch = `ralph/item-${i}`;
    git('checkout', '-q', '-b', branch, base);
    fs.writeFileSync(path.join(repo, `item-${i}.txt`), `item ${i}\n`);
    git('add', '.');
    git(...IDENTITY, 'commit', '-q', '-m', `item ${i}`);
    branches.push(branch);
  }
  git('checkout', '-q', 'main');
  return { repo, base, branches };
}

/** `ralph land` over done items whose branches are those of the repository. */
async function ralphLand(count) {
  const { repo, base, branches } = repository(count);
  const root = workspace(['true'], {
    git: { enabled: true },
    defaults: { workDir: repo },
    land: { gates: [GATE] },
  });
  const now = Date.now();
  const items = branches.map((branch, i) => ({
    id: `item-${i}`,
    title: `Item ${i}`,
    status: 'done',
    attempts: 1,
    branch,
    baseCommit: base,
    sessions: [randomUUID()],
    lastOutcome: 'success',
    createdAt: new Date(now + i).toISOString(),
    finishedAt: new Date(now + 1000 + i).toISOString(),
  }));
  fs.writeFileSync(
    path.join(root, 'state', 'queue.json'),
    JSON.stringify({ version: 1, items }, null, 2),
  );
  const ms = await elapsed(() =>
    run(process.execPath, [BIN, '-C', root, 'land'], { env: benchEnv() }),
  );
  const landed = execFileSync('git', ['rev-list', '--count', '--merges', 'main..ralph/landed'], {
    cwd: repo,
  })
    .toString()
    .trim();
  if (Number(landed) !== count) throw new Error(`landing benchmark: ${landed} of ${count} landed`);
  fs.rmSync(root, { recursive: true, force: true });
  fs.rmSync(repo, { recursive: true, force: true });
  return ms;
}

/** The same branches merged one after another with git alone, in a worktree of the target. */
async function plainMerges(count) {
  const { repo, branches } = repository(count);
  const tree = path.join(tempDir('ralph-bench-land-tree-'), 'tree');
  const ms = await elapsed(async () => {
    const git = (cwd, ...args) => run('git', args, { cwd });
    await git(repo, 'branch', 'landed', 'main');
    await git(repo, 'worktree', 'add', '-q', tree, 'landed');
    for (const branch of branches) {
      if (
        (await git(tree, ...IDENTITY, 'merge', '--no-ff', '-q', '-m', `land ${branch}`, branch)) !==
        0
      )
        throw new Error(`landing benchmark: git merge ${branch} failed`);
      await run(GATE[0], GATE.slice(1), { cwd: tree });
    }
  });
  fs.rmSync(repo, { recursive: true, force: true });
  fs.rmSync(path.dirname(tree), { recursive: true, force: true });
  return ms;
}

export async function landingFigures({ branches, runs }) {
  const ralph = [];
  const plain = [];
  for (let r = 0; r < runs; r++) {
    plain.push(await plainMerges(branches));
    ralph.push(await ralphLand(branches));
  }
  const ralphMs = stats(ralph).median;
  const plainMs = stats(plain).median;
  const ratio = ralphMs / plainMs;
  return {
    name: `landing (${branches} branches that do not conflict, an instant land gate)`,
    value: ratio,
    unit: 'x a git merge loop',
    measure: 'ratio',
    target: '<= 1.5',
    ok: ratio <= 1.5,
    detail: `ralph land ${ralphMs.toFixed(0)} ms, git merge and gate loop ${plainMs.toFixed(0)} ms (medians of ${runs}); ${((ralphMs - plainMs) / branches).toFixed(1)} ms more per branch`,
  };
}
