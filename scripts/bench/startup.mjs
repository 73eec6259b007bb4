// CLI start-up: `ralph --version`, `ralph status` and `ralph ls` against `node -e 0`, on a
// workspace with a few items added by `ralph add` (what a watch loop or a prompt looks at).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { BIN, elapsed, run, stats, workspace } from './lib.mjs';

export async function cliStart({ runs }) {
  const root = workspace(['true']);
  for (let i = 0; i < 5; i++)
    execFileSync(process.execPath, [BIN, '-C', root, 'add', `Task ${i}`], { stdio: 'ignore' });
  // Warm the page cache and the configuration cache alike for every row.
  await run(process.execPath, [BIN, '-C', root, 'status']);
  const commands = [
    ['ralph --version', ['--version'], 1.2],
    ['ralph status', ['-C', root, 'status'], 1.5],
    ['ralph ls', ['-C', root, 'ls'], 1.5],
  ];
  const node = [];
  const times = commands.map(() => []);
  for (let r = 0; r < runs; r++) {
    node.push(await elapsed(() => run(process.execPath, ['-e', '0'])));
    for (const [i, [, args]] of commands.entries())
      times[i].push(await elapsed(() => run(process.execPath, [BIN, ...args])));
  }
  fs.rmSync(root, { recursive: true, force: true });
  const n = stats(node);
  return commands.map(([name, , target], i) => {
    const s = stats(times[i]);
    return {
      name,
      value: s.median / n.median,
      unit: 'x node -e 0',
      measure: 'ratio',
      target: `<= ${target}`,
      ok: s.median / n.median <= target,
      detail: `${s.median.toFixed(0)} ms (min ${s.min.toFixed(0)}, max ${s.max.toFixed(0)}), node -e 0 ${n.median.toFixed(0)} ms`,
    };
  });
}
