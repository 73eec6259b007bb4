// Row 6: CLI start-up: `ralph --version` and `ralph status` against `node -e 0`.
import fs from 'node:fs';
import { BIN, elapsed, run, stats, workspace } from './lib.mjs';

export async function cliStart({ runs }) {
  const root = workspace(['true']);
  const node = [];
  const version = [];
  const status = [];
  for (let r = 0; r < runs; r++) {
    node.push(await elapsed(() => run(process.execPath, ['-e', '0'])));
    version.push(await elapsed(() => run(process.execPath, [BIN, '--version'])));
    status.push(await elapsed(() => run(process.execPath, [BIN, '-C', root, 'status'])));
  }
  fs.rmSync(root, { recursive: true, force: true });
  const n = stats(node);
  const v = stats(version);
  const s = stats(status);
  return [
    {
      name: 'ralph --version',
      value: v.median / n.median,
      unit: 'x node -e 0',
      target: '<= 1.5',
      ok: v.median / n.median <= 1.5,
      detail: `${v.median.toFixed(0)} ms (min ${v.min.toFixed(0)}, max ${v.max.toFixed(0)}), node -e 0 ${n.median.toFixed(0)} ms`,
    },
    {
      name: 'ralph status',
      value: s.median / n.median,
      unit: 'x node -e 0',
      target: '(reported)',
      ok: true,
      detail: `${s.median.toFixed(0)} ms (min ${s.min.toFixed(0)}, max ${s.max.toFixed(0)})`,
    },
  ];
}
