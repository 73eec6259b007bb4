#!/usr/bin/env node
// `ralph sessions` over 10,000 archived sessions: builds a workspace whose index holds them,
// then times the built CLI against `node -e 0` (the floor of any node command) in the same run.
// Usage: node scripts/bench-sessions.mjs [--sessions N] [--runs N]
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const arg = (name, fallback) => {
  const i = process.argv.indexOf(name);
  return i === -1 ? fallback : Number(process.argv[i + 1]);
};
const sessions = arg('--sessions', 10_000);
const runs = arg('--runs', 7);
const bin = fileURLToPath(new URL('../dist/bin.js', import.meta.url));
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'ralph-bench-sessions-'));
execFileSync(process.execPath, [bin, 'init', root], { stdio: 'ignore' });
const start = Date.parse('2026-01-01T00:00:00Z');
const lines = [];
for (let i = 0; i < sessions; i++) {
  lines.push(
    JSON.stringify({
      sessionId: randomUUID(),
      itemId: `item-${i % 500}`,
      itemTitle: `Item ${i % 500}`,
      status: i % 7 === 0 ? 'failed' : 'completed',
      outcome: i % 7 === 0 ? 'no_result' : 'success',
      message: 'completed in 4 turns',
      startedAt: new Date(start + i * 60_000).toISOString(),
      endedAt: new Date(start + i * 60_000 + 45_000).toISOString(),
      durationMs: 45_000,
      turns: 4,
      toolCalls: 7,
      costUsd: 0.0123,
    }),
  );
}
fs.writeFileSync(path.join(root, 'docs', 'sessions', 'index.jsonl'), `${lines.join('\n')}\n`);

const time = (args) => {
  const samples = [];
  for (let i = 0; i < runs; i++) {
    const t0 = process.hrtime.bigint();
    execFileSync(process.execPath, args, { stdio: 'ignore' });
    samples.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  samples.sort((a, b) => a - b);
  return { median: samples[Math.floor(samples.length / 2)], min: samples[0], max: samples.at(-1) };
};
const baseline = time(['-e', '0']);
const listing = time([bin, '-C', root, 'sessions']);
const json = time([bin, '-C', root, 'sessions', '--json']);
const row = (name, t) =>
  `${name.padEnd(28)} ${t.median.toFixed(0).padStart(6)} ms  (min ${t.min.toFixed(0)}, max ${t.max.toFixed(0)})  ${(t.median / baseline.median).toFixed(2)}x node -e 0`;
console.log(`ralph sessions over ${sessions} archived sessions, median of ${runs} runs`);
console.log(row('node -e 0 (baseline)', baseline));
console.log(row('ralph sessions', listing));
console.log(row('ralph sessions --json', json));
fs.rmSync(root, { recursive: true, force: true });
