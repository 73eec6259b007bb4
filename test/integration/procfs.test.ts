import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, expect, it } from 'vitest';
import { SESSION_MARKER } from '../../src/agent/env.js';

const PROCFS = fileURLToPath(new URL('../../dist/agent/procfs.js', import.meta.url));
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
