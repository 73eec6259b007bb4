// Rows: parallel workers and git mode. The speed-up of `--workers 2` and `--workers 4` over one
// worker on items of a fixed-duration agent; and what git mode adds to each item (worktree
// add, commit, diffstat, worktree remove) against the same items without it.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BIN, FIXTURES, benchEnv, elapsed, repository, run, stats, workspace } from './lib.mjs';

const AGENT = path.join(FIXTURES, 'steady-claude.mjs');

function tempDir(prefix) {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

function writeQueue(root, items) {
  fs.writeFileSync(
    path.join(root, 'state', 'queue.json'),
    JSON.stringify({ version: 1, items }, null, 2),
  );
}

const item = (i, fields = {}) => ({
  id: `item-${i}`,
  title: `Benchmark item ${i}`,
  body: 'Nothing to do.',
  createdAt: new Date(Date.now() + i).toISOString(),
  ...fields,
});

/** Milliseconds `ralph run --drain` takes over the workspace's queue, checking all are done. */
async function drain(root, args, env, items) {
  const ms = await elapsed(() =>
    run(process.execPath, [BIN, '-C', root, 'run', '--drain', ...args], { env }),
  );
  const queue = JSON.parse(fs.readFileSync(path.join(root, 'state', 'queue.json'), 'utf8'));
  const done = queue.items.filter((i) => i.status === 'done').length;
  if (done !== items) throw new Error(`workers benchmark: ${done} of ${items} items done`);
  return ms;
}

/** Each item in a work dir of its own: without git mode, one dir runs one item at a time. */
async function throughput(workers, { items, agentMs }) {
  const root = workspace([AGENT]);
  writeQueue(
    root,
    Array.from({ length: items }, (_, i) => item(i, { workDir: tempDir('ralph-bench-dir-') })),
  );
  const env = { ...benchEnv(), BENCH_AGENT_MS: String(agentMs) };
  const ms = await drain(root, ['--workers', String(workers)], env, items);
  fs.rmSync(root, { recursive: true, force: true });
  return ms;
}

/** One item after another in one repository, with git mode on or off. */
async function gitRun(enabled, items) {
  const repo = repository();
  const root = workspace([AGENT], { git: { enabled }, defaults: { workDir: repo } });
  writeQueue(
    root,
    Array.from({ length: items }, (_, i) => item(i)),
  );
  const ms = await drain(root, [], benchEnv(), items);
  fs.rmSync(root, { recursive: true, force: true });
  fs.rmSync(repo, { recursive: true, force: true });
  return ms;
}

export async function workerFigures({ items, agentMs, runs, gitItems }) {
  const times = { 1: [], 2: [], 4: [] };
  for (let r = 0; r < runs; r++)
    for (const workers of [1, 2, 4])
      times[workers].push(await throughput(workers, { items, agentMs }));
  const one = stats(times[1]).median;
  const rows = [2, 4].map((workers) => {
    const median = stats(times[workers]).median;
    const speedup = one / median;
    const target = workers === 2 ? 1.7 : 3;
    return {
      name: `workers speed-up (${workers} workers, ${items} items of ${agentMs} ms)`,
      value: speedup,
      unit: 'x 1 worker',
      measure: 'ratio',
      target: `>= ${target}`,
      ok: speedup >= target,
      detail: `${workers} workers ${median.toFixed(0)} ms, 1 worker ${one.toFixed(0)} ms (medians of ${runs})`,
    };
  });
  const plain = [];
  const withGit = [];
  for (let r = 0; r < runs; r++) {
    plain.push(await gitRun(false, gitItems));
    withGit.push(await gitRun(true, gitItems));
  }
  const plainMs = stats(plain).median;
  const gitMs = stats(withGit).median;
  const perItem = (gitMs - plainMs) / gitItems;
  rows.push({
    name: `git mode cost (${gitItems} items of an instant agent)`,
    value: gitMs / plainMs,
    unit: 'x without git mode',
    measure: 'absolute',
    target: '<= 250 ms per item',
    ok: perItem <= 250,
    detail: `git mode ${gitMs.toFixed(0)} ms, without ${plainMs.toFixed(0)} ms: ${perItem.toFixed(0)} ms per item for worktree add, commit, diffstat and remove`,
  });
  return rows;
}
