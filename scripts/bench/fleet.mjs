// The shared queue's claims: claims per second with 1, 4 and 16 concurrent claimers on a queue
// of 100,000 items in Postgres (a cluster of the bench's own), a claim's latency (median, p99),
// against two baselines measured in the same run with the same claimers: the queue file, and
// the best a Postgres queue can do, a bare one-statement `FOR UPDATE SKIP LOCKED` claim,
// prepared, on a table of the same items (no leases, no dependencies, no work dirs: a floor
// ralph's claim can approach but not pass).
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import pg from 'pg';
import { startPostgres } from '../postgres-cluster.mjs';
import { BIN, bigQueueItems, workspace } from './lib.mjs';

const built = (module) => import(pathToFileURL(path.join(path.dirname(BIN), module)).href);

const percentile = (sorted, p) =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))];

const claimOf = (queue) =>
  queue.claim({ sessionId: randomUUID(), now: Date.now(), busy: () => false, maxAttempts: 3 });

/**
 * `claimers` claiming side by side until `total` claims are made: claims/s and latencies. A
 * tenth as many claims are made before the clock starts (each claimer's connection, ralph's
 * first lease sweep and count of waiting items, the JIT's and the plan cache's warm-up), the
 * same for every contender: the figures are a night's steady state.
 */
async function claimRace(queues, total) {
  await Promise.all(queues.map(claimOf));
  await race(queues, Math.ceil(total / 10));
  return race(queues, total);
}

async function race(queues, total) {
  let made = 0;
  const latencies = [];
  const t0 = process.hrtime.bigint();
  await Promise.all(
    queues.map(async (queue) => {
      while (made < total) {
        made++;
        const start = process.hrtime.bigint();
        const claim = await claimOf(queue);
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

/** The bare queue: the same items in a table of their own, claimed by one statement each. */
async function bareQueue(url, items) {
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`CREATE TABLE bare_items (
    seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, id text NOT NULL, status text NOT NULL,
    priority integer NOT NULL, created_at timestamptz NOT NULL, doc jsonb NOT NULL)`);
  for (let at = 0; at < items.length; at += 5000) {
    const batch = items.slice(at, at + 5000);
    await admin.query(
      `INSERT INTO bare_items (id, status, priority, created_at, doc)
       SELECT * FROM unnest($1::text[], $2::text[], $3::int[], $4::timestamptz[], $5::jsonb[])`,
      [
        batch.map((i) => i.id),
        batch.map((i) => i.status),
        batch.map((i) => i.priority),
        batch.map((i) => i.createdAt),
        batch.map((i) => JSON.stringify(i)),
      ],
    );
  }
  await admin.query(
    `CREATE INDEX bare_runnable ON bare_items (priority DESC, created_at, seq) WHERE status = 'pending'`,
  );
  await admin.end();
  const claimer = async () => {
    const db = new pg.Client({ connectionString: url });
    await db.connect();
    return {
      claim: async () => {
        // Prepared, as a tuned queue's claim is.
        const { rows } = await db.query({
          name: 'bare_claim',
          text: `UPDATE bare_items SET status = 'running', doc = doc || '{"status": "running"}'
           WHERE seq = (SELECT seq FROM bare_items WHERE status = 'pending'
                        ORDER BY priority DESC, created_at, seq LIMIT 1 FOR UPDATE SKIP LOCKED)
           RETURNING doc`,
        });
        return { item: rows[0]?.doc };
      },
      close: () => db.end(),
    };
  };
  return { claimer };
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
    const bare = await bareQueue(url, all);
    const figures = (r, digits) =>
      `${r.perSecond.toFixed(digits)}/s (median ${r.median.toFixed(1)} ms, p99 ${r.p99.toFixed(1)} ms)`;
    for (const n of [1, 4, 16]) {
      const queues = [first];
      while (queues.length < n) {
        const queue = await openQueue(ws, env, 1);
        open.push(queue);
        queues.push(queue);
      }
      const claimers = `${n} claimer${n === 1 ? '' : 's'}, ${count} items`;
      const ralph = await claimRace(queues, claims);
      const bareClaimers = await Promise.all(Array.from({ length: n }, bare.claimer));
      const floor = await claimRace(bareClaimers, claims).finally(() =>
        Promise.all(bareClaimers.map((c) => c.close())),
      );
      const files = Array.from({ length: n }, () => new FileQueue(file));
      const plain = await claimRace(files, fileClaims);
      const rate = ralph.perSecond / floor.perSecond;
      const p99 = ralph.p99 / floor.p99;
      rows.push(
        {
          name: `claims/s, ${claimers}`,
          value: rate,
          unit: 'x a bare SKIP LOCKED claim',
          measure: 'ratio',
          target: n === 16 ? '>= 0.5' : 'reported',
          ok: n !== 16 || rate >= 0.5,
          detail: `ralph ${figures(ralph, 0)}, bare ${figures(floor, 0)}`,
        },
        {
          name: `claim p99, ${claimers}`,
          value: p99,
          unit: 'x a bare SKIP LOCKED claim',
          measure: 'ratio',
          target: n === 16 ? '<= 2' : 'reported',
          ok: n !== 16 || p99 <= 2,
          detail: `ralph p99 ${ralph.p99.toFixed(1)} ms, bare p99 ${floor.p99.toFixed(1)} ms`,
        },
        {
          name: `claims/s against the file, ${claimers}`,
          value: ralph.perSecond / plain.perSecond,
          unit: 'x the queue file',
          measure: 'ratio',
          target: '>= 1',
          ok: ralph.perSecond >= plain.perSecond,
          detail: `file ${figures(plain, 1)}`,
        },
      );
    }
    fs.rmSync(root, { recursive: true, force: true });
  } finally {
    await Promise.all(open.map((queue) => queue.close()));
    cluster.close();
  }
  return rows;
}
