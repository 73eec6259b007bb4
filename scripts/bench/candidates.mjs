// Rows: candidates. The wall time of an item that three agents try side by side on three
// workers, against one attempt of the same agent; and ralph's own time per candidate (a run's
// wall time less its sessions', on one worker) against a single attempt's. The agent is the
// suite's fake claude, which writes and commits a file in `ms` milliseconds; the judge is the
// same fake, ranking the candidates as shown.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { BIN, benchEnv, elapsed, repository, run, stats, workspace } from './lib.mjs';

const AGENT = fileURLToPath(new URL('../../test/fixtures/fake-claude.mjs', import.meta.url));
const MODELS = ['one', 'two', 'three'];

/** One night of one item, tried by three candidates or by its own agent alone. */
async function night({ candidates, workers, agentMs }) {
  const repo = repository('ralph-bench-candidates-');
  const root = workspace([AGENT], { git: { enabled: true }, defaults: { workDir: repo } });
  const item = {
    id: 'x',
    title: 'Benchmark item',
    body: `#behave: work commit=1 ms=${agentMs}`,
    createdAt: new Date().toISOString(),
    ...(candidates
      ? { candidates: { clis: MODELS.map((model) => ({ cli: 'claude', model })), when: 'always' } }
      : {}),
  };
  const queueFile = path.join(root, 'state', 'queue.json');
  fs.writeFileSync(queueFile, JSON.stringify({ version: 1, items: [item] }));
  const ms = await elapsed(() =>
    run(process.execPath, [BIN, '-C', root, 'run', '--drain', '--workers', String(workers)], {
      env: benchEnv(),
    }),
  );
  const x = JSON.parse(fs.readFileSync(queueFile, 'utf8')).items.find((i) => i.id === 'x');
  if (x?.status !== 'done') throw new Error(`candidates benchmark: the item is ${x?.status}`);
  const log = fs
    .readFileSync(path.join(root, 'state', 'iteration.log'), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line));
  const started = new Map(
    log.filter((e) => e.event === 'session_started').map((e) => [e.session, Date.parse(e.time)]),
  );
  const sessions = log
    .filter((e) => e.event === 'session_ended' && started.has(e.session))
    .reduce((sum, e) => sum + Date.parse(e.time) - started.get(e.session), 0);
  for (const dir of [root, repo]) fs.rmSync(dir, { recursive: true, force: true });
  return { ms, own: ms - sessions };
}

export async function candidateFigures({ agentMs, runs }) {
  const wall = { single: [], tried: [] };
  const own = { single: [], tried: [] };
  for (let i = 0; i < runs; i++) {
    wall.single.push((await night({ candidates: false, workers: 1, agentMs })).ms);
    wall.tried.push((await night({ candidates: true, workers: 3, agentMs })).ms);
    own.single.push((await night({ candidates: false, workers: 1, agentMs: 0 })).own);
    own.tried.push((await night({ candidates: true, workers: 1, agentMs: 0 })).own / MODELS.length);
  }
  const ratio = (of) => stats(of.tried).median / stats(of.single).median;
  const side = ratio(wall);
  const each = ratio(own);
  return [
    {
      name: `candidates: wall time of an item three agents try side by side (3 workers, ${agentMs} ms agents) over one attempt`,
      value: side,
      unit: 'x',
      measure: 'ratio',
      target: '<= 1.3',
      ok: side <= 1.3,
      detail: `median ${Math.round(stats(wall.tried).median)} ms with candidates (the judge's session included), ${Math.round(stats(wall.single).median)} ms alone, ${runs} runs`,
    },
    {
      name: "candidates: ralph's own time per candidate (one worker, instant agents) over a single attempt's",
      value: each,
      unit: 'x',
      measure: 'ratio',
      target: '<= 1.1',
      ok: each <= 1.1,
      detail: `median ${Math.round(stats(own.tried).median)} ms a candidate (its fork, worktree, settle and its share of the pick), ${Math.round(stats(own.single).median)} ms a single attempt`,
    },
  ];
}
