// Row: landing. The landings of branches that do not conflict, an instant land gate checking
// each merge, against a plain loop doing the same (`git merge`, then the gate) over the same
// branches in a worktree of the same repository, in this run. The landings are timed as a
// night's lander makes them: in `ralph land`, from its first landing's start to its last
// landing recorded (its log's `land_started` and `landed`), as a night pays no start-up per
// landing. The detail gives the whole `ralph land` command too (node's start, loading ralph,
// validating the configuration and queue this benchmark wrote by hand), and the same loop
// checking after each gate that the worktree holds the merge and nothing else (`git status`,
// which the lander does so that no landing's gates run on a tree an earlier gate changed).
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
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
  const heads = [];
  for (let i = 0; i < count; i++) {
    const branch = `ralph/item-${i}`;
    git('checkout', '-q', '-b', branch, base);
    fs.writeFileSync(path.join(repo, `item-${i}.txt`), `item ${i}\n`);
    git('add', '.');
    git(...IDENTITY, 'commit', '-q', '-m', `item ${i}`);
    branches.push(branch);
    heads.push(git('rev-parse', 'HEAD'));
  }
  git('checkout', '-q', 'main');
  return { repo, base, branches, heads };
}

/** `ralph land` over done items whose branches are those of the repository. */
async function ralphLand(count) {
  const { repo, base, branches, heads } = repository(count);
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
    // The commit its session left, as ralph records it: what lands.
    head: heads[i],
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
  const log = fs
    .readFileSync(path.join(root, 'state', 'iteration.log'), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line));
  const first = log.find((entry) => entry.event === 'land_started');
  const last = log.findLast((entry) => entry.event === 'landed');
  if (first === undefined || last === undefined)
    throw new Error('landing benchmark: no landing in the log');
  const landed = execFileSync('git', ['rev-list', '--count', '--merges', 'main..ralph/landed'], {
    cwd: repo,
  })
    .toString()
    .trim();
  if (Number(landed) !== count) throw new Error(`landing benchmark: ${landed} of ${count} landed`);
  fs.rmSync(root, { recursive: true, force: true });
  fs.rmSync(repo, { recursive: true, force: true });
  return { command: ms, landings: Date.parse(last.time) - Date.parse(first.time) };
}

/** The argument that makes this module run the plain loop (see `plainMerges`). */
const MERGE_LOOP = '--merge-loop';

/**
 * The same branches merged one after another with git alone, in a worktree of the target;
 * `checked`: each gate followed by the worktree's check. Run in a node process of its own, as
 * `ralph land` is: a spawn from this one, whose heap the earlier benches have grown, costs
 * several times one from a small process.
 */
async function plainMerges(count, checked = false) {
  const { repo, branches } = repository(count);
  const tree = path.join(tempDir('ralph-bench-land-tree-'), 'tree');
  const job = JSON.stringify({ repo, tree, branches, checked });
  const ms = Number(
    execFileSync(process.execPath, [fileURLToPath(import.meta.url), MERGE_LOOP, job]).toString(),
  );
  fs.rmSync(repo, { recursive: true, force: true });
  fs.rmSync(path.dirname(tree), { recursive: true, force: true });
  return ms;
}

/** The plain loop itself, timed from its first git to its last. */
async function mergeLoop({ repo, tree, branches, checked }) {
  return elapsed(async () => {
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
      if (checked) await git(tree, 'status', '--porcelain');
    }
  });
}

if (process.argv[2] === MERGE_LOOP)
  process.stdout.write(String(await mergeLoop(JSON.parse(process.argv[3]))));

export async function landingFigures({ branches, runs }) {
  const landings = [];
  const command = [];
  const plain = [];
  const checked = [];
  for (let r = 0; r < runs; r++) {
    plain.push(await plainMerges(branches));
    const ralph = await ralphLand(branches);
    landings.push(ralph.landings);
    command.push(ralph.command);
    checked.push(await plainMerges(branches, true));
  }
  const landingsMs = stats(landings).median;
  const commandMs = stats(command).median;
  const plainMs = stats(plain).median;
  const checkedMs = stats(checked).median;
  const ratio = landingsMs / plainMs;
  return {
    name: `landing (${branches} branches that do not conflict, an instant land gate; the lander's time)`,
    value: ratio,
    unit: 'x a git merge loop',
    measure: 'ratio',
    target: '<= 1.5',
    ok: ratio <= 1.5,
    detail: `the landings ${landingsMs.toFixed(0)} ms, git merge and gate loop ${plainMs.toFixed(0)} ms (medians of ${runs}); ${((landingsMs - plainMs) / branches).toFixed(1)} ms more per branch; the loop checking the worktree after each gate ${checkedMs.toFixed(0)} ms (${(checkedMs / plainMs).toFixed(2)}x); the whole ralph land command ${commandMs.toFixed(0)} ms (${(commandMs / plainMs).toFixed(2)}x)`,
  };
}
