// Row 5: the queue at scale: `ralph add` and a runner's claim on a 100,000-item queue, against
// reading, parsing, serialising and atomically writing the same file in plain node.
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { BIN, bigQueueItems, elapsed, run, stats, workspace } from './lib.mjs';

const PLAIN = `
const fs = require('node:fs');
const file = process.argv[1];
const queue = JSON.parse(fs.readFileSync(file, 'utf8'));
queue.items.push({ id: 'plain-' + process.pid, title: 'plain' });
queue.version++;
fs.writeFileSync(file + '.tmp', JSON.stringify(queue, null, 2) + '\\n');
fs.renameSync(file + '.tmp', file);
`;

function bigQueue(file, count) {
  fs.writeFileSync(
    file,
    `${JSON.stringify({ version: 1, items: bigQueueItems(count) }, null, 2)}\n`,
  );
}

export async function queueAtScale({ items, runs }) {
  const root = workspace(['true']);
  const file = path.join(root, 'state', 'queue.json');
  const plainFile = path.join(root, 'plain-queue.json');
  bigQueue(file, items);
  fs.copyFileSync(file, plainFile);
  // A first add validates the foreign file in full; the runs measure ralph on its own file.
  await run(process.execPath, [BIN, '-C', root, 'add', 'warm-up', '--id', 'warm-up']);
  const add = [];
  const plainAdd = [];
  for (let r = 0; r < runs; r++) {
    add.push(
      await elapsed(() =>
        run(process.execPath, [BIN, '-C', root, 'add', `bench ${r}`, '--id', `bench-${r}`]),
      ),
    );
    plainAdd.push(await elapsed(() => run(process.execPath, ['-e', PLAIN, plainFile])));
  }
  const { QueueStore } = await import(
    pathToFileURL(path.join(path.dirname(BIN), 'queue', 'store.js')).href
  );
  const { selectNext } = await import(
    pathToFileURL(path.join(path.dirname(BIN), 'queue', 'select.js')).href
  );
  const { claim } = await import(
    pathToFileURL(path.join(path.dirname(BIN), 'queue', 'transitions.js')).href
  );
  const store = new QueueStore(file);
  const claims = [];
  const plainClaims = [];
  for (let r = 0; r < runs; r++) {
    claims.push(
      await elapsed(() =>
        store.update((list) => {
          const next = selectNext(list, Date.now());
          return {
            items: list.map((i) => (i === next ? claim(i, `s${r}`, Date.now()) : i)),
            value: next?.id,
          };
        }),
      ),
    );
    plainClaims.push(
      await elapsed(async () => {
        const queue = JSON.parse(await fs.promises.readFile(plainFile, 'utf8'));
        const next = queue.items.find((i) => i.status === 'pending');
        next.status = 'running';
        queue.version++;
        await fs.promises.writeFile(`${plainFile}.tmp`, `${JSON.stringify(queue, null, 2)}\n`);
        await fs.promises.rename(`${plainFile}.tmp`, plainFile);
      }),
    );
  }
  fs.rmSync(root, { recursive: true, force: true });
  const a = stats(add);
  const pa = stats(plainAdd);
  const c = stats(claims);
  const pc = stats(plainClaims);
  return [
    {
      name: `ralph add, ${items} items`,
      value: a.median / pa.median,
      unit: 'x plain node',
      measure: 'ratio',
      target: '<= 2',
      ok: a.median / pa.median <= 2,
      detail: `ralph ${a.median.toFixed(0)} ms (min ${a.min.toFixed(0)}, max ${a.max.toFixed(0)}), plain ${pa.median.toFixed(0)} ms`,
    },
    {
      name: `claim, ${items} items`,
      value: c.median / pc.median,
      unit: 'x plain node',
      measure: 'ratio',
      target: '<= 2',
      ok: c.median / pc.median <= 2,
      detail: `ralph ${c.median.toFixed(0)} ms (min ${c.min.toFixed(0)}, max ${c.max.toFixed(0)}), plain ${pc.median.toFixed(0)} ms`,
    },
  ];
}
