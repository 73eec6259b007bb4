// Row 1: the loop's own cost per item: `ralph run --drain` over N items of an instant agent,
// against a bare node loop spawning the same agent N times (stdout to a file), waiting for each.
import fs from 'node:fs';
import path from 'node:path';
import { BIN, FIXTURES, benchEnv, elapsed, fillQueue, run, stats, workspace } from './lib.mjs';

export async function loopOverhead({ items, runs }) {
  const agent = path.join(FIXTURES, 'instant-claude.mjs');
  const ralph = [];
  const bare = [];
  for (let r = 0; r < runs; r++) {
    const root = workspace([agent]);
    fillQueue(root, items);
    ralph.push(
      await elapsed(() =>
        run(process.execPath, [BIN, '-C', root, 'run', '--drain'], { env: benchEnv() }),
      ),
    );
    const done = JSON.parse(
      fs.readFileSync(path.join(root, 'state', 'queue.json'), 'utf8'),
    ).items.filter((i) => i.status === 'done');
    if (done.length !== items)
      throw new Error(`loop benchmark: ${done.length} of ${items} items done`);
    const out = path.join(root, 'bare.ndjson');
    bare.push(
      await elapsed(async () => {
        for (let i = 0; i < items; i++) {
          const fd = fs.openSync(out, 'w');
          await run(agent, ['--session-id', `s${i}`], { stdio: ['ignore', fd, 'ignore'] });
          fs.closeSync(fd);
        }
      }),
    );
    fs.rmSync(root, { recursive: true, force: true });
  }
  const ralphStats = stats(ralph);
  const bareStats = stats(bare);
  return {
    name: `loop overhead (${items} items)`,
    value: ralphStats.median / bareStats.median,
    unit: 'x bare loop',
    measure: 'ratio',
    target: '<= 1.25',
    ok: ralphStats.median / bareStats.median <= 1.25,
    detail: `ralph ${ralphStats.median.toFixed(0)} ms (min ${ralphStats.min.toFixed(0)}, max ${ralphStats.max.toFixed(0)}), bare ${bareStats.median.toFixed(0)} ms (min ${bareStats.min.toFixed(0)}, max ${bareStats.max.toFixed(0)}); per item ${((ralphStats.median - bareStats.median) / items).toFixed(1)} ms`,
  };
}
