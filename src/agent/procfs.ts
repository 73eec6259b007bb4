import fsp from 'node:fs/promises';
import { isErrnoException } from '../lib/errors.js';

/**
 * A process's start time (clock ticks since boot, field 22 of /proc/<pid>/stat), or undefined
 * when it is gone. Together with the pid it names one process: a reused pid has another.
 */
export async function processStartTime(pid: number): Promise<string | undefined> {
  // Unreadable is not gone: a lock's holder that cannot be looked at is never taken as dead.
  return (await liveStatFields(pid, GONE))?.[19];
}

/** Whether the process recorded as (pid, start time) is still the one running. */
export async function isSameProcessAlive(
  pid: number,
  startTime: string | undefined,
): Promise<boolean> {
  const current = await processStartTime(pid);
  return current !== undefined && (startTime === undefined || current === startTime);
}

// How many /proc files a scan holds open at once: a busy machine has thousands of processes,
// and opening them all together runs into the descriptor limit (EMFILE), missing some.
const SCAN_CONCURRENCY = 8;

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
  const pids = (await fsp.readdir('/proc'))
    .filter((name) => /^\d+$/.test(name))
    .map(Number)
    .filter((pid) => pid !== process.pid);
  const belongs = async (pid: number): Promise<boolean> => {
    const fields = await liveStatFields(pid, GONE_OR_NOT_OURS);
    if (fields === undefined) return false;
    if (groupId !== undefined && Number(fields[2]) === groupId) return true;
    const environ = await readUnlessGone(`/proc/${pid}/environ`, GONE_OR_NOT_OURS);
    return (
      environ !== undefined &&
      (environ.includes(inside) || environ.subarray(0, first.length).equals(first))
    );
  };
  const found: number[] = [];
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < pids.length) {
      const pid = pids[next++] as number;
      if (await belongs(pid)) found.push(pid);
    }
  };
  await Promise.all(Array.from({ length: SCAN_CONCURRENCY }, worker));
  return found;
}

/**
 * Fields 3 onwards of /proc/<pid>/stat (fields[0] is the state), or undefined when the process
 * has exited already (a zombie) or reading failed with one of `absent`'s codes.
 */
async function liveStatFields(pid: number, absent: Set<string>): Promise<string[] | undefined> {
  const stat = (await readUnlessGone(`/proc/${pid}/stat`, absent))?.toString('utf8');
  if (stat === undefined) return undefined;
  // The command name (field 2) may hold spaces and parentheses: count from its end.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return fields[0] === 'Z' || fields[0] === 'X' ? undefined : fields;
}

const GONE = new Set(['ENOENT', 'ESRCH']);
const GONE_OR_NOT_OURS = new Set([...GONE, 'EACCES', 'EPERM']);

/** A /proc file's bytes, or undefined when reading it failed with one of `absent`'s codes. */
async function readUnlessGone(file: string, absent: Set<string>): Promise<Buffer | undefined> {
  try {
    return await fsp.readFile(file);
  } catch (error) {
    if (isErrnoException(error) && absent.has(error.code ?? '')) return undefined;
    throw error;
  }
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
