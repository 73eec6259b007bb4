// The shared queue's claims: claims per second with 1, 4 and 16 concurrent claimers on a queue
// of 100,000 items in Postgres (a cluster of the bench's own), a claim's latency (median, p99),
// against the queue file's figures measured in the same run with the same claimers.
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { startPostgres } from '../postgres-cluster.mjs';
import { BIN, bigQueueItems, workspace } from './lib.mjs';

const built = (module) => import(pathToFileURL(path.join(path.dirname(BIN), module)).href);

const percentile = (sorted, p) =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))];

/** `claimers` claiming side by side until `total` claims are made: claims/s and latencies. */
async function claimRace(queues, total) {
  let made = 0;
  const latencies = [];
  const t0 = process.hrtime.bigint();
  await Promise.all(
    queues.map(async (queue) => {
      while (made < total) {
        made++;
        const start = process.hrtime.bigint();
        const claim = await queue.claim({
          sessionId: randomUUID(),
          now: Date.now(),
          busy: () => false,
          maxAttempts: 3,
        });
        latencies.push(Number(process.hrtime.bigint() - start) / 1e6);
        if (claim.item === undefined) throw new Error('the queue ran dry');
      }
    }),
  );
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  const sorted = latencies.sort((a, b) => a - b);
  return {
    perSecond: latencies.length / seconds,
    median: percentile(sorted, 0.5),
    p99: percentile(sorted, 0.99),
  };
}

export async function fleetClaims({ items: count, claims, fileClaims }) {
  const { loadWorkspace } = await built('config/workspace.js');
  const { openQueue } = await built('queue/open.js');
  const { openPool } = await built('queue/postgres/connection.js');
  const { migrate } = await built('queue/postgres/migrations.js');
  const { FileQueue } = await built('queue/file-queue.js');
  const cluster = await startPostgres();
  const rows = [];
  const open = [];
  try {
    const url = await cluster.database();
    const root = workspace(['true'], { queue: { backend: 'postgres' } });
    const ws = await loadWorkspace(root);
    const env = { RALPH_DATABASE_URL: url };
    const pool = openPool(url, ws.config.queue, 1);
    await migrate(pool, 'bench');
    await pool.end();
    const all = bigQueueItems(count);
    const first = await openQueue(ws, env, 1);
    open.push(first);
    await first.importItems(all);
    const file = path.join(root, 'state', 'queue.json');
    fs.writeFileSync(file, `${JSON.stringify({ version: 1, items: all }, null, 2)}\n`);
    for (const n of [1, 4, 16]) {
      const queues = [first];
      while (queues.length < n) {
        const queue = await openQueue(ws, env, 1);
        open.push(queue);
        queues.push(queue);
      }
      const pg = await claimRace(queues, claims);
      const files = Array.from({ length: n }, () => new FileQueue(file));
      const plain = await claimRace(files, fileClaims);
      const ratio = pg.perSecond / plain.perSecond;
      rows.push({
        name: `claims/s, ${n} claimer${n === 1 ? '' : 's'}, ${count} items`,
        value: ratio,
        unit: 'x the queue file',
        target: '>= 1',
        ok: ratio >= 1,
        detail: `postgres ${pg.perSecond.toFixed(0)}/s (median ${pg.median.toFixed(1)} ms, p99 ${pg.p99.toFixed(1)} ms), file ${plain.perSecond.toFixed(1)}/s (median ${plain.median.toFixed(0)} ms, p99 ${plain.p99.toFixed(0)} ms)`,
      });
    }
    fs.rmSync(root, { recursive: true, force: true });
  } finally {
    await Promise.all(open.map((queue) => queue.close()));
    cluster.close();
  }
  return rows;
}
