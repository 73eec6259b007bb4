import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, expect, it } from 'vitest';
import { SESSION_MARKER } from '../../src/agent/env.js';
import { findSessionProcesses, processStartTime } from '../../src/lib/procfs.js';

const PROCFS = fileURLToPath(new URL('../../dist/lib/procfs.js', import.meta.url));
const children: ChildProcess[] = [];

afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
});

it('finds every marked process on a machine with more processes than free descriptors', async () => {
  const marker = { name: SESSION_MARKER, value: 'scan-under-a-low-limit' };
  for (let i = 0; i < 60; i++) {
    const child = spawn('sleep', ['600'], {
      env: { PATH: process.env.PATH, [marker.name]: marker.value },
      stdio: 'ignore',
    });
    children.push(child);
  }
  const pids = children.map((c) => c.pid);
  // The scanner runs with 48 descriptors: far fewer than there are processes to look at.
  const script = `import(${JSON.stringify(PROCFS)})
    .then((m) => m.findSessionProcesses(undefined, ${JSON.stringify(marker)}))
    .then((found) => process.stdout.write(JSON.stringify(found)))`;
  const { stdout } = await promisify(execFile)('prlimit', [
    '--nofile=48:48',
    process.execPath,
    '-e',
    script,
  ]);
  expect((JSON.parse(stdout) as number[]).sort()).toEqual(pids.sort());
});

it('reads the environment only of processes started since the session began, finding its group whenever', async () => {
  const marker = { name: SESSION_MARKER, value: 'scan-since' };
  const sleeper = (env: Record<string, string>, detached = false) => {
    const child = spawn('sleep', ['600'], {
      env: { PATH: process.env.PATH, ...env },
      stdio: 'ignore',
      detached,
    });
    children.push(child);
    return child.pid as number;
  };
  const startOf = async (pid: number) => Number(await processStartTime(pid));
  // Made before the session: it carries the marker (as no process made before could), and
  // leads a group the session names.
  const before = sleeper({ [marker.name]: marker.value }, true);
  // The session's first process: one started a clock tick later than the one before it.
  let first = sleeper({});
  while ((await startOf(first)) <= (await startOf(before))) first = sleeper({});
  const since = String(await startOf(first));
  const after = sleeper({ [marker.name]: marker.value });
  expect(await findSessionProcesses(undefined, marker, since)).toEqual([after]);
  expect((await findSessionProcesses(before, marker, since)).sort()).toEqual(
    [before, after].sort(),
  );
  expect((await findSessionProcesses(undefined, marker)).sort()).toEqual([before, after].sort());
});
