import fsp from 'node:fs/promises';
import { isErrnoException } from '../lib/errors.js';

/**
 * A process's start time (clock ticks since boot, field 22 of /proc/<pid>/stat), or undefined
 * when it is gone. Together with the pid it names one process: a reused pid has another.
 */
export async function processStartTime(pid: number): Promise<string | undefined> {
  try {
    const stat = await fsp.readFile(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces and parentheses: count from its end.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // fields[0] is field 3 (state); a zombie has exited already.
    if (fields[0] === 'Z') return undefined;
    return fields[19];
  } catch (error) {
    if (isErrnoException(error) && (error.code === 'ENOENT' || error.code === 'ESRCH'))
      return undefined;
    throw error;
  }
}

/** Whether the process recorded as (pid, start time) is still the one running. */
export async function isSameProcessAlive(
  pid: number,
  startTime: string | undefined,
): Promise<boolean> {
  const current = await processStartTime(pid);
  return current !== undefined && (startTime === undefined || current === startTime);
}

/**
 * Pids of live (not zombie) processes that belong to a session: members of its process group,
 * or carriers of its environment marker `name=value` wherever they moved to.
 */
export async function findSessionProcesses(
  groupId: number | undefined,
  marker: { name: string; value: string },
): Promise<number[]> {
  const entry = `${marker.name}=${marker.value}\0`;
  const inside = Buffer.from(`\0${entry}`);
  const first = Buffer.from(entry);
  const entries = await fsp.readdir('/proc').catch(() => [] as string[]);
  const found: number[] = [];
  await Promise.all(
    entries.map(async (name) => {
      if (!/^\d+$/.test(name)) return;
      const pid = Number(name);
      if (pid === process.pid) return;
      try {
        const stat = await fsp.readFile(`/proc/${pid}/stat`, 'utf8');
        const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        if (fields[0] === 'Z' || fields[0] === 'X') return;
        if (groupId !== undefined && Number(fields[2]) === groupId) {
          found.push(pid);
          return;
        }
        const environ = await fsp.readFile(`/proc/${pid}/environ`);
        if (environ.includes(inside) || environ.subarray(0, first.length).equals(first)) {
          found.push(pid);
        }
      } catch {
        // Gone, or not ours to read.
      }
    }),
  );
  return found;
}

/** Sends a signal, ignoring a process or group that is already gone. */
export function signalQuietly(pid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(pid, signal);
    return true;
  } catch (error) {
    if (isErrnoException(error) && error.code === 'ESRCH') return false;
    throw error;
  }
}
