// Row: the scan of the machine's processes after every session (what the session left running:
// its group, and whatever carries its marker), against the least a scan by process can do:
// reading each process's /proc/<pid>/stat once. In this run, on this machine's processes.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { findSessionProcesses, processStartTime } from '../../dist/lib/procfs.js';
import { elapsed, stats } from './lib.mjs';

const MARKER = { name: 'RALPH_SESSION', value: 'bench-reap' };

/** Each /proc/<pid>/stat read whole, as any scan by process must at least. */
function readEveryStat() {
  for (const name of fs.readdirSync('/proc'))
    if (/^\d+$/.test(name))
      try {
        fs.readFileSync(`/proc/${name}/stat`);
      } catch {
        // Gone meanwhile.
      }
}

export async function reapScan({ scans, runs }) {
  // A session's process, left running with the marker: the scan must find it.
  const left = spawn('sleep', ['600'], {
    env: { PATH: process.env.PATH, [MARKER.name]: MARKER.value },
    stdio: 'ignore',
  });
  try {
    const since = await processStartTime(left.pid);
    const times = { floor: [], since: [], full: [] };
    const processes = fs.readdirSync('/proc').filter((n) => /^\d+$/.test(n)).length;
    for (let r = 0; r < runs; r++) {
      times.floor.push(
        await elapsed(() => {
          for (let i = 0; i < scans; i++) readEveryStat();
        }),
      );
      for (const [key, bound] of [
        ['since', since],
        ['full', undefined],
      ])
        times[key].push(
          await elapsed(async () => {
            for (let i = 0; i < scans; i++) {
              const found = await findSessionProcesses(undefined, MARKER, bound);
              if (!found.includes(left.pid))
                throw new Error('reap benchmark: the marked process was not found');
            }
          }),
        );
    }
    const per = (key) => stats(times[key]).median / scans;
    const ratio = per('since') / per('floor');
    return {
      name: `process scan after a session (${processes} processes)`,
      value: ratio,
      unit: 'x reading every /proc/<pid>/stat',
      measure: 'ratio',
      target: '<= 1.5',
      ok: ratio <= 1.5,
      detail: `${per('since').toFixed(2)} ms a scan (every environment read: ${per('full').toFixed(2)} ms), every stat read ${per('floor').toFixed(2)} ms; medians of ${runs} runs of ${scans} scans`,
    };
  } finally {
    left.kill('SIGKILL');
  }
}
