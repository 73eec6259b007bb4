// Shared helpers of the benchmarks: workspaces, timing, process sampling.
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const BIN = fileURLToPath(new URL('../../dist/bin.js', import.meta.url));
export const FIXTURES = fileURLToPath(new URL('./fixtures/', import.meta.url));

/** A fresh workspace whose claude is `command`, with config overrides. */
export function workspace(command, config = {}) {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'ralph-bench-'));
  execFileSync(process.execPath, [BIN, 'init', root], { stdio: 'ignore' });
  const file = path.join(root, 'ralph.config.json');
  const current = JSON.parse(fs.readFileSync(file, 'utf8'));
  current.claude.command = command;
  for (const [key, value] of Object.entries(config)) current[key] = { ...current[key], ...value };
  fs.writeFileSync(file, JSON.stringify(current, null, 2));
  return root;
}

/** Writes a queue of `count` items straight into the file. */
export function fillQueue(root, count, fields = {}) {
  const now = Date.now();
  const items = Array.from({ length: count }, (_, i) => ({
    id: `item-${i}`,
    title: `Benchmark item ${i}`,
    body: 'Nothing to do.',
    createdAt: new Date(now + i).toISOString(),
    ...fields,
  }));
  fs.writeFileSync(
    path.join(root, 'state', 'queue.json'),
    JSON.stringify({ version: 1, items }, null, 2),
  );
}

/** Milliseconds a function takes. */
export async function elapsed(fn) {
  const t0 = process.hrtime.bigint();
  await fn();
  return Number(process.hrtime.bigint() - t0) / 1e6;
}

/** Median, min and max of samples. */
export function stats(samples) {
  const sorted = [...samples].sort((a, b) => a - b);
  return {
    median: sorted[Math.floor(sorted.length / 2)],
    min: sorted[0],
    max: sorted.at(-1),
    n: sorted.length,
  };
}

/** Runs a command to its end; resolves with its exit code. */
export function run(file, args, options = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { stdio: 'ignore', ...options });
    child.on('error', reject);
    child.on('exit', (code) => resolve(code));
  });
}

/** CPU time (user + system) of a process so far, in ms, from /proc. */
export function cpuMs(pid) {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]);
  return (ticks * 1000) / 100;
}

/** A field of /proc/<pid>/status in kB (VmRSS, VmHWM). */
export function statusKb(pid, field) {
  const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(
    fs.readFileSync(`/proc/${pid}/status`, 'utf8'),
  );
  return match ? Number(match[1]) : 0;
}

/** Resolves when `check()` holds, checking every `everyMs`. */
export async function until(check, everyMs = 5, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('benchmark timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

/** The environment for ralph and its agent in a benchmark. */
export function benchEnv(extra = {}) {
  return { PATH: process.env.PATH, HOME: process.env.HOME, ...extra };
}
