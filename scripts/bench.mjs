#!/usr/bin/env node
// ralph's own cost: each row a ratio to a baseline measured in the same run (so the figures
// hold on a noisy machine), or an absolute figure where there is no baseline to run (a
// latency, a memory ceiling), and says which. Prints one table and writes it to
// bench-results/bench.json (`npm run bench:record` keeps a full run's for the docs).
// Usage: node scripts/bench.mjs [--quick] [--only <row prefix>]   (npm run bench builds first)
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { idleCost } from './bench/idle.mjs';
import { interruptLatency } from './bench/interrupt.mjs';
import { loopOverhead } from './bench/loop.mjs';
import { queueAtScale } from './bench/queue.mjs';
import { serveFigures } from './bench/serve.mjs';
import { sessionsListing } from './bench/sessions.mjs';
import { markedProcesses } from './bench/lib.mjs';
import { cliStart } from './bench/startup.mjs';
import { streamThroughput } from './bench/stream.mjs';
import { workerFigures } from './bench/workers.mjs';
import { cliFigures } from './bench/clis.mjs';
import { fleetClaims } from './bench/fleet.mjs';
import { landingFigures } from './bench/landing.mjs';
import { environmentFigures } from './bench/environment.mjs';
import { sandboxCost } from './bench/sandbox.mjs';
import { firstRequestFigures } from './bench/first-request.mjs';
import { reapScan } from './bench/reap.mjs';
import { reviewFigures } from './bench/review.mjs';
import { inboxAtScale } from './bench/inbox.mjs';
import { cachePrefixFigures } from './bench/cache-prefix.mjs';
import { candidateFigures } from './bench/candidates.mjs';
import { lessonsFigures } from './bench/lessons.mjs';
import { trackerFigures } from './bench/trackers.mjs';
import { table } from './bench/tables.mjs';

const quick = process.argv.includes('--quick');
const onlyAt = process.argv.indexOf('--only');
const only = onlyAt === -1 ? undefined : process.argv[onlyAt + 1];
const size = quick
  ? {
      loop: { items: 40, runs: 3 },
      stream: { totalMb: 60, maxLineMb: 20, runs: 3 },
      interrupt: { trials: 10 },
      idle: { seconds: 10 },
      queue: { items: 100_000, runs: 3 },
      start: { runs: 7 },
      sessions: { sessions: 10_000, runs: 5 },
      serve: {
        latency: { lines: 100 },
        clients: { clients: 50, lines: 200 },
        sessions: { sessions: 10_000, runs: 5 },
        loop: { items: 40, runs: 3 },
      },
      workers: { items: 20, agentMs: 500, runs: 1, gitItems: 20 },
      clis: { items: 5, runs: 1 },
      fleet: { items: 100_000, claims: 400, fileClaims: 8 },
      landing: { branches: 20, runs: 3 },
      environment: { items: 3, runs: 2 },
      sandbox: { items: 20, runs: 3 },
      reap: { scans: 50, runs: 3 },
      review: { items: 10, runs: 3 },
      candidates: { agentMs: 1500, runs: 1 },
      inbox: { sessions: 10_000, runs: 5 },
    }
  : {
      loop: { items: 200, runs: 3 },
      stream: { totalMb: 200, maxLineMb: 50, runs: 3 },
      interrupt: { trials: 20 },
      idle: { seconds: 60 },
      queue: { items: 100_000, runs: 5 },
      start: { runs: 15 },
      sessions: { sessions: 10_000, runs: 9 },
      serve: {
        latency: { lines: 300 },
        clients: { clients: 50, lines: 500 },
        sessions: { sessions: 10_000, runs: 9 },
        loop: { items: 200, runs: 3 },
      },
      workers: { items: 20, agentMs: 500, runs: 3, gitItems: 40 },
      clis: { items: 10, runs: 3 },
      fleet: { items: 100_000, claims: 2000, fileClaims: 24 },
      landing: { branches: 20, runs: 7 },
      environment: { items: 4, runs: 5 },
      sandbox: { items: 40, runs: 5 },
      reap: { scans: 200, runs: 5 },
      review: { items: 20, runs: 5 },
      candidates: { agentMs: 3000, runs: 3 },
      inbox: { sessions: 10_000, runs: 9 },
    };

const benches = [
  ['loop', () => loopOverhead(size.loop)],
  ['reap', () => reapScan(size.reap)],
  ['stream', () => streamThroughput(size.stream)],
  ['interrupt', () => interruptLatency(size.interrupt)],
  ['idle', () => idleCost(size.idle)],
  ['queue', () => queueAtScale(size.queue)],
  ['start', () => cliStart(size.start)],
  ['sessions', () => sessionsListing(size.sessions)],
  ['serve', () => serveFigures(size.serve)],
  ['workers', () => workerFigures(size.workers)],
  ['clis', () => cliFigures(size.clis)],
  ['fleet', () => fleetClaims(size.fleet)],
  ['landing', () => landingFigures(size.landing)],
  ['environment', () => environmentFigures(size.environment)],
  ['sandbox', () => sandboxCost(size.sandbox)],
  ['first-request', () => firstRequestFigures()],
  ['cache-prefix', () => cachePrefixFigures()],
  ['review', () => reviewFigures(size.review)],
  ['candidates', () => candidateFigures(size.candidates)],
  ['lessons', () => lessonsFigures()],
  ['trackers', () => trackerFigures()],
  ['inbox', () => inboxAtScale(size.inbox)],
];

const rows = [];
const started = Date.now();
for (const [name, bench] of benches) {
  if (only !== undefined && !name.startsWith(only)) continue;
  process.stderr.write(`bench: ${name}…\n`);
  rows.push(...[await bench()].flat().map((row) => ({ bench: name, ...row })));
}
// Every row says what its target is: a ratio to a baseline measured in this run, or absolute.
for (const r of rows)
  if (r.measure !== 'ratio' && r.measure !== 'absolute')
    throw new Error(`bench row "${r.name}" says no measure`);
const seconds = Math.round((Date.now() - started) / 1000);
const at = new Date().toISOString();
console.log(table(rows));
console.log(`\n${quick ? 'quick' : 'full'} run, ${seconds} s, node ${process.version}, ${at}`);
const out = fileURLToPath(new URL('../bench-results/bench.json', import.meta.url));
fs.mkdirSync(path.dirname(out), { recursive: true });
const machine = `${os.cpus().length} cores, ${Math.round(os.totalmem() / 2 ** 30)} GiB`;
fs.writeFileSync(
  out,
  `${JSON.stringify({ quick, only, node: process.version, machine, at, seconds, rows }, null, 2)}\n`,
);
if (rows.some((r) => !r.ok)) process.exitCode = 1;
// A benchmark must leave nothing running: whatever it started and did not stop is a fault.
const survivors = markedProcesses();
for (const { pid } of survivors) {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // Gone meanwhile.
  }
}
if (survivors.length > 0) {
  console.error(
    `bench: processes left behind (killed now):\n${survivors.map((p) => `${p.pid} ${p.cmdline}`).join('\n')}`,
  );
  process.exitCode = 1;
}
