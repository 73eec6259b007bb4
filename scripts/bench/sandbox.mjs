// Row: what the bubblewrap sandbox adds to a session: `ralph run --drain` over N items of an
// instant agent with `sandbox.kind: "bwrap"` (ralph's egress proxy on, as by default), against
// the same run without a sandbox, in the same run of the bench. Absolute: milliseconds an item.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BIN, FIXTURES, benchEnv, elapsed, fillQueue, run, stats, workspace } from './lib.mjs';

export async function sandboxCost({ items, runs }) {
  const agent = path.join(FIXTURES, 'instant-claude.mjs');
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'ralph-bench-home-'));
  const timed = async (kind) => {
    const root = workspace([agent], { sandbox: { kind } });
    fillQueue(root, items);
    const ms = await elapsed(() =>
      run(process.execPath, [BIN, '-C', root, 'run', '--drain'], { env: benchEnv({ HOME: home }) }),
    );
    const done = JSON.parse(
      fs.readFileSync(path.join(root, 'state', 'queue.json'), 'utf8'),
    ).items.filter((i) => i.status === 'done');
    if (done.length !== items)
      throw new Error(`sandbox benchmark (${kind}): ${done.length} of ${items} items done`);
    fs.rmSync(root, { recursive: true, force: true });
    return ms;
  };
  const boxed = [];
  const bare = [];
  // Interleaved, so that the machine's load falls on both alike.
  for (let r = 0; r < runs; r++) {
    bare.push(await timed('none'));
    boxed.push(await timed('bwrap'));
  }
  fs.rmSync(home, { recursive: true, force: true });
  const b = stats(boxed);
  const n = stats(bare);
  const perItem = (b.median - n.median) / items;
  return {
    name: `sandbox: bwrap's cost (${items} items)`,
    value: perItem,
    unit: 'ms an item',
    measure: 'absolute',
    target: '<= 100',
    ok: perItem <= 100,
    detail: `in the sandbox ${b.median.toFixed(0)} ms (min ${b.min.toFixed(0)}, max ${b.max.toFixed(0)}), without ${n.median.toFixed(0)} ms (min ${n.min.toFixed(0)}, max ${n.max.toFixed(0)}): ${(b.median / n.median).toFixed(2)}x`,
  };
}
