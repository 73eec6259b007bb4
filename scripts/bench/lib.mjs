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
  current.clis.claude.command = command;
  // Rows measure ralph without its sandbox unless they ask for it (the sandbox has a row).
  current.sandbox = { ...current.sandbox, kind: 'none' };
  // The rows measure items, not the night's start: its login check (a CLI's status command, a
  // request to its API) and its sleep inhibitor are paid once a night, not once an item.
  current.run = { ...current.run, checkLogins: false, keepAwake: false };
  // The project the agents work in, unless the row names its own: never the workspace.
  fs.mkdirSync(path.join(root, 'project'));
  current.defaults = { ...current.defaults, workDir: 'project' };
  for (const [key, value] of Object.entries(config)) current[key] = { ...current[key], ...value };
  fs.writeFileSync(file, JSON.stringify(current, null, 2));
  return root;
}

/** `count` items as a big workspace's queue holds them: a quarter done, three priorities. */
export function bigQueueItems(count) {
  const now = Date.parse('2026-11-22T00:00:00Z');
  return Array.from({ length: count }, (_, i) => ({
    id: `item-${i}`,
    title: `Queued task number ${i}`,
    body: 'Fix the thing described in the ticket, then run the tests.',
    priority: i % 3,
    status: i % 4 === 0 ? 'done' : 'pending',
    attempts: 0,
    dependsOn: [],
    vars: {},
    createdAt: new Date(now + i).toISOString(),
    updatedAt: new Date(now + i).toISOString(),
    sessions: [],
    costUsd: 0,
  }));
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

/** Marks every process of this benchmark run, agents and their tools included. */
export const BENCH_MARKER = `RALPH_BENCH_RUN=${process.pid}-${Date.now()}`;

/** The environment for ralph and its agent in a benchmark. */
export function benchEnv(extra = {}) {
  const [name, value] = BENCH_MARKER.split('=');
  return { PATH: process.env.PATH, HOME: process.env.HOME, [name]: value, ...extra };
}

/** Pids and command lines of live processes carrying the benchmark's marker. */
export function markedProcesses() {
  const entry = Buffer.from(`${BENCH_MARKER}\0`);
  const found = [];
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    try {
      const stat = fs.readFileSync(`/proc/${name}/stat`, 'utf8');
      if (/\) [ZX] /.test(stat)) continue;
      if (!fs.readFileSync(`/proc/${name}/environ`).includes(entry)) continue;
      const cmdline = fs.readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0').join(' ');
      found.push({ pid: Number(name), cmdline: cmdline.trim() });
    } catch {
      // Gone, or not ours to read.
    }
  }
  return found;
}

/** Stops a runner as a person would (SIGTERM: it stops and reaps its agent) and waits for it. */
export async function stopRunner(runner, timeoutMs = 30_000) {
  if (runner.exitCode !== null || runner.signalCode !== null) return;
  const exited = new Promise((resolve) => runner.once('exit', resolve));
  runner.kill('SIGTERM');
  const timer = setTimeout(() => runner.kill('SIGKILL'), timeoutMs);
  await exited;
  clearTimeout(timer);
}

/** A new git repository with one commit on main, under a temporary directory. */
export function repository(prefix = 'ralph-bench-repo-') {
  const repo = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  const git = (...args) => execFileSync('git', args, { cwd: repo, stdio: 'ignore' });
  git('init', '-q', '-b', 'main');
  fs.writeFileSync(path.join(repo, 'README.md'), '# bench\n');
  git('add', '.');
  git('-c', 'user.name=bench', '-c', 'user.email=bench@localhost', 'commit', '-q', '-m', 'init');
  return repo;
}
